/* branch.S - all branches taken / not taken, backward loops, jal/jalr
 * (rd=x0, rs1==rd, negative offsets), link values. */
#include "core_test.h"

#define BR_TAKEN(n, inst, v1, v2) \
  li gp, n; li a1, v1; li a2, v2; inst a1, a2, 1f; j test_fail; 1:
#define BR_NOT(n, inst, v1, v2) \
  li gp, n; li a1, v1; li a2, v2; inst a1, a2, test_fail

  .text
  .globl test_main
test_main:
  BR_TAKEN(1, beq, 5, 5)
  BR_NOT(2, beq, 5, 6)
  BR_TAKEN(3, bne, 5, 6)
  BR_NOT(4, bne, 7, 7)
  BR_TAKEN(5, blt, -1, 0)
  BR_NOT(6, blt, 0, -1)
  BR_NOT(7, blt, 3, 3)
  BR_TAKEN(8, bge, 0, -1)
  BR_TAKEN(9, bge, 3, 3)
  BR_NOT(10, bge, -1, 0)
  BR_TAKEN(11, bltu, 0, -1)
  BR_NOT(12, bltu, -1, 0)
  BR_NOT(13, bltu, 4, 4)
  BR_TAKEN(14, bgeu, -1, 0)
  BR_TAKEN(15, bgeu, 4, 4)
  BR_NOT(16, bgeu, 0, -1)
  BR_TAKEN(17, blt, 0x80000000, 0x7fffffff)
  BR_TAKEN(18, bltu, 0x7fffffff, 0x80000000)

  /* backward loop: sum 1..100 */
  li a1, 100
  li a2, 0
1:add a2, a2, a1
  addi a1, a1, -1
  bnez a1, 1b
  CHECK_EQ(20, a2, 5050)

  /* nested loops with alternating inner exit (predictor stress) */
  li a1, 0          /* outer count */
  li a3, 0          /* total */
2:li a2, 0
3:addi a3, a3, 1
  addi a2, a2, 1
  andi a4, a1, 1
  beqz a4, 4f
  li a5, 3
  blt a2, a5, 3b
  j 5f
4:li a5, 7
  blt a2, a5, 3b
5:addi a1, a1, 1
  li a5, 10
  blt a1, a5, 2b
  CHECK_EQ(21, a3, 50)   /* 5 x 7 + 5 x 3 */

  /* jal: link value, rd = x0 */
  li gp, 30
  jal ra, 6f
7:j 8f
6:la a1, 7b
  bne ra, a1, test_fail
  ret
8:li gp, 31
  jal x0, 9f
  j test_fail
9:
  /* jalr with offset, rd = x0, and rs1 == rd */
  li gp, 32
  la a1, 10f
  jalr x0, 8(a1)
10:j test_fail
  j test_fail
  la a1, 11f - 4
  jalr a1, 4(a1)           /* rs1 == rd: target from old a1, link into a1 */
12:j test_fail
11:la a2, 12b
  CHECK_REG(33, a1, a2)
  /* jalr clears bit 0 of the target */
  la a1, 13f + 1
  li gp, 34
  jalr ra, 0(a1)
  j test_fail
13:
  /* jalr with negative offset */
  la a1, 14f + 16
  li gp, 35
  jalr ra, -16(a1)
  j test_fail
14:
  /* call/return many times from two call sites (return prediction) */
  li s0, 0
  li s1, 20
15:jal ra, inc_s0
  jal ra, inc_s0_twice
  addi s1, s1, -1
  bnez s1, 15b
  CHECK_EQ(36, s0, 60)
  /* a branch immediately after a taken branch, and back-to-back jumps */
  li gp, 37
  j 16f
16:j 17f
17:beqz zero, 18f
  j test_fail
18:bnez zero, test_fail
  j test_pass

inc_s0:
  addi s0, s0, 1
  ret
inc_s0_twice:
  mv t0, ra
  jal ra, inc_s0
  jal ra, inc_s0
  mv ra, t0
  ret
