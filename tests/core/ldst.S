/* ldst.S - all loads and stores: sign/zero extension, byte enables, offsets. */
#include "core_test.h"
  .data
  .align 4
buf: .word 0x80ff7f01, 0x12345678, 0xdeadbeef, 0
  .text
  .globl test_main
test_main:
  la s0, buf
  lb a1, 0(s0);  CHECK_EQ(1, a1, 0x00000001)
  lb a1, 1(s0);  CHECK_EQ(2, a1, 0x0000007f)
  lb a1, 2(s0);  CHECK_EQ(3, a1, 0xffffffff)
  lb a1, 3(s0);  CHECK_EQ(4, a1, 0xffffff80)
  lbu a1, 2(s0); CHECK_EQ(5, a1, 0x000000ff)
  lbu a1, 3(s0); CHECK_EQ(6, a1, 0x00000080)
  lh a1, 0(s0);  CHECK_EQ(7, a1, 0x00007f01)
  lh a1, 2(s0);  CHECK_EQ(8, a1, 0xffff80ff)
  lhu a1, 2(s0); CHECK_EQ(9, a1, 0x000080ff)
  lw a1, 4(s0);  CHECK_EQ(10, a1, 0x12345678)
  addi s1, s0, 12
  lw a1, -4(s1); CHECK_EQ(11, a1, 0xdeadbeef)
  lhu a1, -2(s1); CHECK_EQ(12, a1, 0xdead)
  /* stores: only the addressed bytes change */
  li a2, 0xaabbccdd
  sw a2, 12(s0)
  li a3, 0x11
  sb a3, 12(s0);  lw a1, 12(s0); CHECK_EQ(20, a1, 0xaabbcc11)
  li a3, 0x122
  sb a3, 13(s0);  lw a1, 12(s0); CHECK_EQ(21, a1, 0xaabb2211)
  sb a3, 14(s0);  lw a1, 12(s0); CHECK_EQ(22, a1, 0xaa222211)
  sb a3, 15(s0);  lw a1, 12(s0); CHECK_EQ(23, a1, 0x22222211)
  li a3, 0xfff05566
  sh a3, 12(s0);  lw a1, 12(s0); CHECK_EQ(24, a1, 0x22225566)
  sh a3, 14(s0);  lw a1, 12(s0); CHECK_EQ(25, a1, 0x55665566)
  sw zero, 12(s0); lw a1, 12(s0); CHECK_EQ(26, a1, 0)
  /* store then load back-to-back at the same and different addresses */
  li a2, 0x01020304
  sw a2, 12(s0)
  lb a1, 13(s0); CHECK_EQ(27, a1, 3)
  sh a2, 14(s0)
  lw a1, 12(s0); CHECK_EQ(28, a1, 0x03040304)
  /* load into x0 has no effect */
  lw zero, 4(s0)
  CHECK_EQ(29, zero, 0)
  /* stack push/pop pattern */
  addi sp, sp, -16
  li a1, 11; li a2, 22; li a3, 33
  sw a1, 0(sp); sw a2, 4(sp); sw a3, 8(sp)
  lw a4, 8(sp); lw a5, 4(sp); lw a6, 0(sp)
  addi sp, sp, 16
  CHECK_EQ(30, a4, 33)
  CHECK_EQ(31, a5, 22)
  CHECK_EQ(32, a6, 11)
  j test_pass
