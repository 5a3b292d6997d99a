/* divcycles.S - every divide takes at most 8 cycles in execute, whatever the
 * operands, and gives the spec's result (run with 0 wait states: timing).
 * For each case: T = mcycle difference across the divide, minus the same
 * measured across an add; a divide occupying execute for k cycles gives
 * T = k - 1, so the check is T <= 7. The operands include the worst case
 * for the divider (a dividend with bit 31 set: all six iterations), divide
 * by zero, signed overflow and divisors 1, 3, 2^31. */
#include "core_test.h"

/* n: check number (results n, n+1 for the cycle bound) */
#define DIVCYC(n, inst, res, v1, v2) \
  li a1, v1; li a2, v2; \
  csrr t0, mcycle; inst a3, a1, a2; csrr t1, mcycle; \
  sub t1, t1, t0; sub t1, t1, s2; \
  CHECK_EQ(n, a3, res); \
  li gp, n + 1; li t2, 7; bgtu t1, t2, test_fail; \
  bgeu t1, s3, 1f; mv s3, t1; 1: ; \
  bleu t1, s4, 1f; mv s4, t1; 1:

  .text
  .globl test_main
test_main:
  /* baseline: an add between the two reads */
  li a1, 5
  li a2, 7
  csrr t0, mcycle
  add a3, a1, a2
  csrr s2, mcycle
  sub s2, s2, t0
  li s3, 1000                 /* smallest extra seen */
  li s4, 0                    /* largest extra seen */
  DIVCYC(10, div, 0x80000000, 0x80000000, -1)      /* overflow */
  DIVCYC(12, rem, 0, 0x80000000, -1)
  DIVCYC(14, div, -1, 0x80000000, 0)               /* by zero */
  DIVCYC(16, divu, 0xffffffff, 0xffffffff, 0)
  DIVCYC(18, rem, 0x80000000, 0x80000000, 0)
  DIVCYC(20, remu, 0xffffffff, 0xffffffff, 0)
  DIVCYC(22, divu, 0xffffffff, 0xffffffff, 1)      /* 32 quotient bits */
  DIVCYC(24, divu, 0x55555555, 0xffffffff, 3)
  DIVCYC(26, remu, 0, 0xffffffff, 3)
  DIVCYC(28, divu, 1, 0xffffffff, 0x80000000)
  DIVCYC(30, remu, 0x7fffffff, 0xffffffff, 0x80000000)
  DIVCYC(32, div, 0xc0000000, 0x80000000, 2)
  DIVCYC(34, div, 0x40000000, 0x80000000, -2)
  DIVCYC(36, rem, -1, 0x80000001, 2)
  DIVCYC(38, div, 1, 0x80000000, 0x80000000)
  DIVCYC(40, div, 0, 0x7fffffff, 0x80000000)
  DIVCYC(42, rem, 0x7fffffff, 0x7fffffff, 0x80000000)
  DIVCYC(44, divu, 0, 0, 0x12345)                  /* zero dividend */
  DIVCYC(46, rem, 0, 0, -7)
  DIVCYC(48, divu, 0x0000fffe, 0xffff0000, 0x10001)
  DIVCYC(50, remu, 0xffff, 0xffffffff, 0x10000)
  DIVCYC(52, div, -142857, 1000003, -7)
  DIVCYC(54, rem, 4, 1000003, -7)
  DIVCYC(56, rem, -4, -1000003, 7)
  DIVCYC(58, divu, 0xfffffffe, 0xfffffffe, 1)
  DIVCYC(60, divu, 1, 0xfffffffe, 0xfffffffe)
  DIVCYC(62, divu, 0, 0xfffffffe, 0xffffffff)
  DIVCYC(64, remu, 0xfffffffe, 0xfffffffe, 0xffffffff)
  DIVCYC(66, div, 9, 63, 7)                        /* small operands */
  DIVCYC(68, rem, 3, 3, 7)
  /* the measurement is live: every divide took longer than the add, and the
   * long dividends took several iterations */
  li gp, 70
  beqz s3, test_fail
  li gp, 71
  li t2, 5
  bltu s4, t2, test_fail
  j test_pass
