/* hazard.S - forwarding from every stage, load-use, store-data forwarding,
 * back-to-back mul/div chains, branches on just-produced values. */
#include "core_test.h"
  .data
  .align 4
vals: .word 10, 20, 30, 40
ptrs: .word vals + 4, 0
  .text
  .globl test_main
test_main:
  /* ALU -> ALU at distance 1, 2, 3 */
  li a1, 1
  addi a2, a1, 1
  addi a3, a2, 1
  add a4, a3, a2
  add a5, a4, a1
  add a6, a5, a3
  CHECK_EQ(1, a6, 9)
  /* load-use: immediately, then distance 2 */
  la s0, vals
  lw a1, 0(s0)
  addi a1, a1, 1
  CHECK_EQ(2, a1, 11)
  lw a2, 4(s0)
  nop
  add a2, a2, a1
  CHECK_EQ(3, a2, 31)
  /* load -> load address (pointer chase) */
  la s1, ptrs
  lw a3, 0(s1)
  lw a3, 0(a3)
  CHECK_EQ(4, a3, 20)
  /* load -> store data and store address */
  lw a4, 8(s0)
  sw a4, 12(s0)
  lw a5, 12(s0)
  CHECK_EQ(5, a5, 30)
  /* load -> branch */
  li gp, 6
  lw a4, 0(s0)
  li a5, 10
  bne a4, a5, test_fail
  lw a4, 0(s0)
  beq a4, zero, test_fail
  /* ALU -> branch and -> jalr */
  li gp, 7
  la a1, 1f
  addi a1, a1, 0
  jalr zero, 0(a1)
  j test_fail
1:
  /* mul -> mul -> div chain, mul result to store and branch */
  li a1, 3
  mul a2, a1, a1
  mul a2, a2, a1
  div a3, a2, a1
  rem a4, a2, a3
  mul a5, a3, a3
  CHECK_EQ(8, a2, 27)
  CHECK_EQ(9, a3, 9)
  CHECK_EQ(10, a4, 0)
  CHECK_EQ(11, a5, 81)
  mul a6, a1, a1
  sw a6, 0(s0)
  lw a7, 0(s0)
  CHECK_EQ(12, a7, 9)
  li gp, 13
  mul a6, a1, a1
  li t0, 9
  bne a6, t0, test_fail
  /* div result consumed by a load address */
  li t0, 8
  li t1, 2
  divu t2, t0, t1
  add t2, t2, s0
  lw t3, 0(t2)
  CHECK_EQ(14, t3, 20)
  /* same destination written twice: the younger wins */
  li a1, 1
  li a1, 2
  addi a2, a1, 0
  CHECK_EQ(15, a2, 2)
  lw a1, 4(s0)
  li a1, 5
  addi a2, a1, 0
  CHECK_EQ(16, a2, 5)
  li a1, 5
  lw a1, 4(s0)
  addi a2, a1, 0
  CHECK_EQ(17, a2, 20)
  /* CSR result forwarding */
  li t0, 0x55
  csrw mscratch, t0
  csrr a1, mscratch
  addi a1, a1, 1
  CHECK_EQ(18, a1, 0x56)
  csrrw a2, mscratch, a1
  csrr a3, mscratch
  CHECK_EQ(19, a2, 0x55)
  CHECK_EQ(20, a3, 0x56)
  /* long dependent chain through a loop */
  li a1, 0
  li a2, 50
2:lw t0, 0(s0)
  add a1, a1, t0
  mul t1, a1, a1
  sub a1, t1, t1
  add a1, a1, t0
  addi a2, a2, -1
  bnez a2, 2b
  CHECK_EQ(21, a1, 9)
  j test_pass
