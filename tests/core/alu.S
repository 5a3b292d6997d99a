/* alu.S - register/immediate ALU ops, shift edge cases, lui/auipc. */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  TEST_RR(1, add, 0x00000003, 1, 2)
  TEST_RR(2, add, 0x00000000, 0xffffffff, 1)
  TEST_RR(3, add, 0x80000000, 0x7fffffff, 1)
  TEST_RR(4, sub, 0xffffffff, 0, 1)
  TEST_RR(5, sub, 0x7fffffff, 0x80000000, 1)
  TEST_RR(6, xor, 0x0ff00ff0, 0xff00ff00, 0xf0f0f0f0)
  TEST_RR(7, or,  0xfff0fff0, 0xff00ff00, 0xf0f0f0f0)
  TEST_RR(8, and, 0xf000f000, 0xff00ff00, 0xf0f0f0f0)
  TEST_RR(9, slt, 1, 0x80000000, 0)
  TEST_RR(10, slt, 0, 0, 0x80000000)
  TEST_RR(11, slt, 0, 5, 5)
  TEST_RR(12, sltu, 0, 0x80000000, 0)
  TEST_RR(13, sltu, 1, 0, 0x80000000)
  TEST_RR(14, sltu, 1, 0, 0xffffffff)
  TEST_RR(15, sll, 0x80000000, 1, 31)
  TEST_RR(16, sll, 0x00000001, 1, 32)          /* only rs2[4:0] used */
  TEST_RR(17, sll, 0x00000002, 1, 0xffffffe1)
  TEST_RR(18, srl, 0x00000001, 0x80000000, 31)
  TEST_RR(19, srl, 0x80000000, 0x80000000, 0)
  TEST_RR(20, sra, 0xffffffff, 0x80000000, 31)
  TEST_RR(21, sra, 0xc0000000, 0x80000000, 1)
  TEST_RR(22, sra, 0x3fffffff, 0x7fffffff, 1)
  TEST_RR(23, sra, 0x80000000, 0x80000000, 0x40)
  TEST_RI(30, addi, 0xfffff800, 0, -2048)
  TEST_RI(31, addi, 0x000007ff, 0, 2047)
  TEST_RI(32, addi, 0x00000000, 1, -1)
  TEST_RI(33, slti, 1, -5, -4)
  TEST_RI(34, slti, 0, -4, -5)
  TEST_RI(35, sltiu, 1, 0, -1)                  /* imm sign-extends, compared unsigned */
  TEST_RI(36, sltiu, 0, 0xffffffff, 1)
  TEST_RI(37, xori, 0xfffff0f0, 0x00000f0f, -1)
  TEST_RI(38, ori, 0xffffff0f, 0x00000f0f, -256)
  TEST_RI(39, andi, 0x00000700, 0xffffff00, 0x70f)
  TEST_RI(40, slli, 0x80000000, 0x00000001, 31)
  TEST_RI(41, slli, 0x12345678, 0x12345678, 0)
  TEST_RI(42, srli, 0x00000001, 0xffffffff, 31)
  TEST_RI(43, srai, 0xffffffff, 0x80000001, 31)
  TEST_RI(44, srai, 0x00000000, 0x7fffffff, 31)
  TEST_RI(45, srai, 0xfff00000, 0x80000000, 11)
  /* writes to x0 are discarded */
  li a1, 5
  addi x0, a1, 1
  add x0, a1, a1
  CHECK_EQ(50, x0, 0)
  mv a3, x0
  CHECK_EQ(51, a3, 0)
  /* lui / auipc */
  lui a3, 0xfffff
  CHECK_EQ(60, a3, 0xfffff000)
  lui a3, 0
  CHECK_EQ(61, a3, 0)
1:auipc a3, 0
  la a4, 1b
  CHECK_REG(62, a3, a4)
2:auipc a3, 0x1
  la a4, 2b
  li a5, 0x1000
  add a4, a4, a5
  CHECK_REG(63, a3, a4)
3:auipc a3, 0xfffff
  la a4, 3b
  li a5, 0xfffff000
  add a4, a4, a5
  CHECK_REG(64, a3, a4)
  /* same register as source and destination */
  li a1, 7
  add a1, a1, a1
  CHECK_EQ(70, a1, 14)
  sub a1, a1, a1
  CHECK_EQ(71, a1, 0)
  j test_pass
