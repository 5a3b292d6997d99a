/* traps.S - every synchronous exception: mcause, mepc and mtval checked;
 * the trapping instruction has no side effect. */
#include "core_test.h"

#define CHECK_TVAL(n, val) csrr t1, mtval; CHECK_EQ(n, t1, val)
#define CHECK_TVAL_REG(n, reg) csrr t1, mtval; CHECK_REG(n, t1, reg)

  .data
  .align 4
word: .word 0x11223344
  .text
  .globl test_main
test_main:
  la s0, word
  /* illegal instruction: mtval = instruction bits */
  EXPECT_ILLEGAL(1, .word 0x00000000)
  CHECK_TVAL(2, 0x00000000)
  EXPECT_ILLEGAL(3, .word 0xffffffff)
  CHECK_TVAL(4, 0xffffffff)
  EXPECT_ILLEGAL(5, .word 0x02000033 | (1 << 27))   /* bad funct7 */
  CHECK_TVAL(6, 0x0a000033)
  EXPECT_ILLEGAL(7, .word 0x00007003)               /* load funct3 7 */
  EXPECT_ILLEGAL(8, .word 0x30200073 | (1 << 20))   /* bad SYSTEM funct12 */
  EXPECT_ILLEGAL(9, .word 0x00004073)               /* SYSTEM funct3 4 */
  EXPECT_ILLEGAL(10, .word 0x4000d013 | (1 << 26))  /* srai with bad funct7 */
  /* ecall / ebreak: mepc = the instruction, mtval = 0 */
  EXPECT_TRAP(11, 11, ecall)
  CHECK_TVAL(12, 0)
  EXPECT_TRAP(13, 3, ebreak)
  /* misaligned loads and stores: mtval = address, no access, rd unchanged */
  li a1, 0x5555
  addi s1, s0, 1
  EXPECT_TRAP(14, 4, lw a1, 0(s1))
  CHECK_TVAL_REG(15, s1)
  CHECK_EQ(16, a1, 0x5555)
  addi s1, s0, 2
  EXPECT_TRAP(17, 4, lw a1, 0(s1))
  addi s1, s0, 3
  EXPECT_TRAP(18, 4, lh a1, 0(s1))
  CHECK_TVAL_REG(19, s1)
  EXPECT_TRAP(20, 4, lhu a1, -2(s1))
  addi s1, s0, 1
  EXPECT_TRAP(21, 6, sw a1, 0(s1))
  CHECK_TVAL_REG(22, s1)
  EXPECT_TRAP(23, 6, sh a1, 2(s1))
  lw a2, 0(s0)
  CHECK_EQ(24, a2, 0x11223344)         /* nothing was written */
  /* aligned halfword at offset 2 and bytes anywhere are fine */
  lh a2, 2(s0)
  CHECK_EQ(25, a2, 0x1122)
  /* instruction address misaligned: jalr to an address with bit 1 set;
   * mepc = the jump, mtval = target, link register not written */
  la s1, 90f
  addi s1, s1, 2
  li ra, 0x77
  EXPECT_TRAP(26, 0, jalr ra, 0(s1))
  CHECK_TVAL_REG(27, s1)
  CHECK_EQ(28, ra, 0x77)
  /* taken branch to a misaligned target is built with .word: beq x0,x0,+6 */
  EXPECT_TRAP(29, 0, .word 0x00000363)
  /* not-taken branch with a misaligned target does not trap: bne x0,x0,+6 */
  li gp, 30
  .word 0x00001363
  /* load / store access fault from an unmapped address: mtval = address */
  li s1, UNMAPPED_ADDR + 8
  li a1, 0x66
  EXPECT_TRAP(31, 5, lw a1, 4(s1))
  addi t3, s1, 4
  CHECK_TVAL_REG(32, t3)
  CHECK_EQ(33, a1, 0x66)
  EXPECT_TRAP(34, 7, sb a1, -1(s1))
  addi t3, s1, -1
  CHECK_TVAL_REG(35, t3)
  /* the store after a faulting load must not happen */
  li a2, 0x12345678
  EXPECT_TRAP(36, 5, lw a1, 0(s1); sw a2, 0(s0))
  lw a3, 0(s0)
  CHECK_EQ(37, a3, 0x11223344)
  /* instruction access fault: jump to unmapped memory; mepc = mtval = target */
  li gp, 38
  la t0, 85f
  csrw mtvec, t0
  li s1, UNMAPPED_ADDR
  la ra, 0
  jalr ra, 0(s1)
  j test_fail
  .align 2
85:csrr t1, mcause
  CHECK_EQ(39, t1, 1)
  csrr t1, mepc
  CHECK_REG(40, t1, s1)
  csrr t1, mtval
  CHECK_REG(41, t1, s1)
  /* the jump retired: its link register was written */
  la t2, 85b - 4
  CHECK_REG(42, ra, t2)
  la t0, unexpected_trap
  csrw mtvec, t0
  /* mret returns to mepc (skip the trapping instruction) */
  li gp, 43
  la t0, 86f
  csrw mtvec, t0
  ecall
  j 87f
  j test_fail
  .align 2
86:csrr t1, mepc
  addi t1, t1, 4
  csrw mepc, t1
  mret
87:la t0, unexpected_trap
  csrw mtvec, t0
  j test_pass
90:nop
  nop
