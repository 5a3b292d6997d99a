/* core_test.h - macros for the self-checking core tests (preprocessed .S).
 * Convention: gp (x3) holds the current check number; on a failed check the
 * test jumps to test_fail, which reports FAIL code gp through tohost, so every
 * check has its own code. test_pass reports PASS. tp (x4) is reserved too.
 * crt.S provides _start (sets sp, default mtvec = unexpected-trap fail with
 * code 1000+mcause), test_fail, test_pass, tohost/fromhost. Tests define
 * test_main. */
#ifndef CORE_TEST_H
#define CORE_TEST_H
#include "core_dev.h"

#define CHECKNUM(n)  li gp, n

/* reg must equal the 32-bit constant val, else FAIL n (clobbers t6) */
#define CHECK_EQ(n, reg, val) \
  li gp, n; li t6, val; bne reg, t6, test_fail

/* two registers equal, else FAIL n */
#define CHECK_REG(n, a, b) \
  li gp, n; bne a, b, test_fail

/* rd = op(v1, v2) must equal res */
#define TEST_RR(n, inst, res, v1, v2) \
  li a1, v1; li a2, v2; inst a3, a1, a2; CHECK_EQ(n, a3, res)

#define TEST_RI(n, inst, res, v1, imm) \
  li a1, v1; inst a3, a1, imm; CHECK_EQ(n, a3, res)

#define CSR_CHECK(n, csr, val) \
  csrr t5, csr; CHECK_EQ(n, t5, val)

/* The instruction(s) given must trap with mcause == cause and mepc at the
 * first of them (check mtval separately). Restores the default mtvec
 * afterwards. Clobbers t0-t2. */
#define EXPECT_TRAP(n, cause, ...) \
  li gp, n; la t0, 80f; csrw mtvec, t0; 70: __VA_ARGS__; j test_fail; \
  .align 2; 80: csrr t1, mcause; li t2, cause; bne t1, t2, test_fail; \
  csrr t1, mepc; la t2, 70b; bne t1, t2, test_fail; \
  la t0, unexpected_trap; csrw mtvec, t0

#define EXPECT_ILLEGAL(n, ...) EXPECT_TRAP(n, 2, __VA_ARGS__)

#endif
