/* muldiv.S - M extension with corner operands (spec table 7.1). */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  TEST_RR(1, mul, 0x00000000, 0, 0x12345678)
  TEST_RR(2, mul, 0xffeae800, 0x00007e00, 0xb6db6d8c)
  TEST_RR(3, mul, 0x00000001, 0xffffffff, 0xffffffff)
  TEST_RR(4, mul, 0x80000000, 0x80000000, 0xffffffff)
  TEST_RR(5, mulh, 0x00000000, 0x00000002, 0x00000003)
  TEST_RR(6, mulh, 0xffffffff, 0xffffffff, 0x00000001)
  TEST_RR(7, mulh, 0x40000000, 0x80000000, 0x80000000)
  TEST_RR(8, mulh, 0xc0000000, 0x80000000, 0x7fffffff)
  TEST_RR(9, mulh, 0x3fffffff, 0x7fffffff, 0x7fffffff)
  TEST_RR(10, mulhu, 0xfffffffe, 0xffffffff, 0xffffffff)
  TEST_RR(11, mulhu, 0x40000000, 0x80000000, 0x80000000)
  TEST_RR(12, mulhu, 0x00000000, 0xffffffff, 0x00000001)
  TEST_RR(13, mulhsu, 0xffffffff, 0xffffffff, 0xffffffff)
  TEST_RR(14, mulhsu, 0xc0000000, 0x80000000, 0x80000000)
  TEST_RR(15, mulhsu, 0x7ffffffe, 0x7fffffff, 0xffffffff)
  TEST_RR(16, mulhsu, 0x00000000, 0x00000001, 0xffffffff)
  TEST_RR(17, mul, 0x366176f8, 0x12345678, 0x9abcdef1)
  TEST_RR(18, mulhu, 0x0b00ea4e, 0x12345678, 0x9abcdef1)
  TEST_RR(19, mulh, 0xf8cc93d6, 0x12345678, 0x9abcdef1)
  TEST_RR(20, mulhsu, 0x0b00ea4e, 0x12345678, 0x9abcdef1)
  /* division */
  TEST_RR(30, div, 3, 20, 6)
  TEST_RR(31, div, -3, -20, 6)
  TEST_RR(32, div, -3, 20, -6)
  TEST_RR(33, div, 3, -20, -6)
  TEST_RR(34, div, 0x80000000, 0x80000000, -1)  /* overflow */
  TEST_RR(35, div, -1, 123, 0)                   /* by zero */
  TEST_RR(36, div, -1, -123, 0)
  TEST_RR(37, divu, 3, 20, 6)
  TEST_RR(38, divu, 0x2aaaaaa7, -20, 6)
  TEST_RR(39, divu, 0xffffffff, 5, 0)
  TEST_RR(40, divu, 0, 5, 6)
  TEST_RR(41, divu, 1, 0xffffffff, 0xffffffff)
  TEST_RR(42, rem, 2, 20, 6)
  TEST_RR(43, rem, -2, -20, 6)
  TEST_RR(44, rem, 2, 20, -6)
  TEST_RR(45, rem, -2, -20, -6)
  TEST_RR(46, rem, 0, 0x80000000, -1)
  TEST_RR(47, rem, 123, 123, 0)
  TEST_RR(48, rem, -123, -123, 0)
  TEST_RR(49, remu, 2, 20, 6)
  TEST_RR(50, remu, 2, -20, 6)
  TEST_RR(51, remu, 5, 5, 0)
  TEST_RR(52, remu, 0xfffffffe, 0xfffffffe, 0xffffffff)
  TEST_RR(53, div, 0xfffffffe, 0x80000000, 0x40000000)
  TEST_RR(54, rem, 0, 0x80000000, 0x40000000)
  TEST_RR(55, divu, 1, 0x80000000, 0x80000000)
  TEST_RR(56, div, 0x1, 0x7fffffff, 0x7fffffff)
  /* results used immediately, back-to-back mul and div, rd == rs */
  li a1, 7
  li a2, 6
  mul a3, a1, a2
  mul a3, a3, a3
  CHECK_EQ(60, a3, 1764)
  div a3, a3, a2
  div a3, a3, a1
  CHECK_EQ(61, a3, 42)
  mul a4, a1, a2
  div a5, a4, a1
  rem a6, a4, a1
  mulhu a7, a4, a4
  CHECK_EQ(62, a4, 42)
  CHECK_EQ(63, a5, 6)
  CHECK_EQ(64, a6, 0)
  CHECK_EQ(65, a7, 0)
  /* mul into x0 */
  mul zero, a1, a2
  div zero, a1, a2
  CHECK_EQ(66, zero, 0)
  j test_pass
