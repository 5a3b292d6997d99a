/* counters.S - writes to the 64-bit counters mcycle and minstret, each half.
 * Rule (docs/core.md): a write sets the half written and keeps the other one; the counter does
 * not increment in the cycle of the write, so a following read sees the written value plus only
 * the increments of later cycles, and a low half written to 0xffffffff carries into the high half
 * on the next increment, not in the cycle of the write.
 * minstret counts retired instructions, so its checks are exact. mcycle depends on bus timing
 * (the test runs with wait states and random stalls too), so its checks use what csrrw returns:
 * the value of the half at the very cycle of the write. */
#include "core_test.h"

  .text
  .globl test_main
test_main:
  /* ---- minstret, exact ---- */
  /* 1: a low write is what the next read sees (no increment for the writing instruction) */
  li t0, 0x1000
  csrw minstret, t0
  csrr a1, minstret
  CHECK_EQ(1, a1, 0x1000)
  /* 2: a high write keeps the low half and does not count itself */
  li t0, 0x77
  li t1, 0x1234
  csrw minstret, t1
  csrw minstreth, t0
  csrr a1, minstret            /* csrw minstreth retired without counting */
  csrr a2, minstreth
  CHECK_EQ(2, a1, 0x1234)
  CHECK_EQ(3, a2, 0x77)
  /* 4-7: the instret_overflow case: low = 0xffffffff; the write itself does not carry, the next
   * retired instruction does */
  li t0, 0x12
  li t1, -1
  csrw minstreth, t0
  csrw minstret, t1
  csrr a1, minstreth           /* still 0x12: no carry in the write's cycle */
  csrr a2, minstret            /* csrr minstreth retired: low wrapped to 0 */
  csrr a3, minstreth           /* ... and carried */
  CHECK_EQ(4, a1, 0x12)
  CHECK_EQ(5, a2, 0)
  CHECK_EQ(6, a3, 0x13)
  /* 7-8: low = 0xffffffff read back exactly, then carries on the reading instruction */
  li t0, 0x20
  li t1, -1
  csrw minstreth, t0
  csrw minstret, t1
  csrr a1, minstret
  csrr a2, minstreth
  CHECK_EQ(7, a1, 0xffffffff)
  CHECK_EQ(8, a2, 0x21)
  /* 9-10: a high write while the low half is 0xffffffff: the low half is kept (no increment, no
   * lost carry), and the next retirement carries into the value written */
  li t0, 0x55
  li t1, -1
  csrw minstret, t1
  csrw minstreth, t0
  csrr a1, minstret            /* 0xffffffff: csrw minstreth did not count */
  csrr a2, minstreth           /* csrr minstret retired: 0x55 + carry */
  CHECK_EQ(9, a1, 0xffffffff)
  CHECK_EQ(10, a2, 0x56)
  /* 11-12: full 64-bit wrap */
  li t1, -1
  csrw minstret, t1
  csrw minstreth, t1
  nop                          /* wraps to 0:0 */
  csrr a1, minstreth           /* 0 */
  csrr a2, minstret            /* 1 (csrr minstreth counted) */
  CHECK_EQ(11, a1, 0)
  CHECK_EQ(12, a2, 1)
  /* 13-17: csrrw / csrrs / csrrc return the old value; the new one is read next, exact */
  li t0, 0x100
  li t1, 0x40
  csrw minstret, t0
  csrrsi a1, minstret, 3       /* reads 0x100, writes 0x103, does not count */
  csrr a2, minstret            /* 0x103, counts */
  csrrci a3, minstret, 1       /* reads 0x104, writes 0x104 & ~1 = 0x104 */
  csrrc a4, minstret, t1       /* reads 0x104, writes 0x104 & ~0x40 = 0x104 */
  csrr a5, minstret            /* 0x104 */
  CHECK_EQ(13, a1, 0x100)
  CHECK_EQ(14, a2, 0x103)
  CHECK_EQ(15, a3, 0x104)
  CHECK_EQ(16, a4, 0x104)
  CHECK_EQ(17, a5, 0x104)
  /* 18-19: the user aliases read the same, and a write keeps counting afterwards */
  li t0, 0x9
  li t1, 0x500
  csrw minstreth, t0
  csrw minstret, t1
  nop; nop; nop
  csrr a1, instret             /* 0x503 */
  csrr a2, instreth
  CHECK_EQ(18, a1, 0x503)
  CHECK_EQ(19, a2, 0x9)
  /* 20-21: a set with no write (csrrs rs1=x0) is a read: it counts like any instruction */
  li t0, 0x600
  csrw minstret, t0
  csrrs a1, minstret, zero
  csrr a2, minstret
  CHECK_EQ(20, a1, 0x600)
  CHECK_EQ(21, a2, 0x601)

  /* ---- mcycle ---- */
  /* 30-31: a low write is what the next read sees, plus the later cycles only */
  li t0, 0x3000
  csrw mcycle, t0
  csrr a1, mcycle
  li gp, 30
  bltu a1, t0, test_fail       /* never below the value written */
  addi t1, t0, 256
  bgeu a1, t1, test_fail       /* and only a few cycles later */
  /* 32-33: a high write keeps the low half */
  li t0, 0xabc
  li t1, 0x4000
  csrw mcycle, t1
  csrw mcycleh, t0
  csrr a1, mcycle
  csrr a2, mcycleh
  CHECK_EQ(32, a2, 0xabc)
  li gp, 33
  bltu a1, t1, test_fail
  addi t1, t1, 256
  bgeu a1, t1, test_fail

  /* 34-36: low write while the low half passes 0xffffffff. For k = 1..120: mcycleh = H,
   * mcycle = -k, then csrrw mcycle <- 5 returns the low half at the cycle of that write (a1).
   * If a1 is before the wrap (>= 0x80000000, including 0xffffffff itself), the high half must
   * still be H; after the wrap it must be H + 1. Some k must hit a1 == 0xffffffff exactly (s2
   * counts them), which is the case a write must not carry. */
  li s0, 1                     /* k */
  li s1, 121
  li s2, 0                     /* hits of a1 == 0xffffffff */
  li s3, 0x700                 /* H */
  li s4, 5
1:
  sub t0, zero, s0
  csrw mcycleh, s3
  csrw mcycle, t0
  csrrw a1, mcycle, s4
  csrr a2, mcycleh
  csrr a3, mcycle
  mv t1, s3
  bltz a1, 2f                  /* before the wrap: expect H */
  addi t1, s3, 1               /* after: H + 1 */
2:
  li gp, 34
  bne a2, t1, test_fail
  li t2, -1
  bne a1, t2, 3f
  addi s2, s2, 1
3:
  li gp, 35                    /* low half: 5 plus a few cycles */
  bltu a3, s4, test_fail
  addi t2, s4, 256
  bgeu a3, t2, test_fail
  addi s0, s0, 1
  bne s0, s1, 1b
  li gp, 36
  beqz s2, test_fail

  /* 37-38: high write while the low half passes 0xffffffff. csrrw mcycleh returns the old high
   * half: H means the low half had not wrapped by the cycle of the write (it may be exactly
   * 0xffffffff), so its wrap comes later and must carry into the value written (H2 + 1); H + 1
   * means it had wrapped before, and the write replaces that carry (H2). */
  li s0, 1
  li s1, 121
  li s3, 0x800                 /* H */
  li s4, 0x900                 /* H2 */
1:
  sub t0, zero, s0
  csrw mcycleh, s3
  csrw mcycle, t0
  csrrw a1, mcycleh, s4
2:
  csrr a2, mcycle              /* wait until the low half has wrapped */
  bltz a2, 2b
  csrr a3, mcycleh
  addi t1, s4, 1
  beq a1, s3, 3f               /* not wrapped at the write: H2 + 1 */
  addi t2, s3, 1
  li gp, 37
  bne a1, t2, test_fail        /* old high is H or H + 1, nothing else */
  mv t1, s4                    /* wrapped before the write: H2 */
3:
  li gp, 38
  bne a3, t1, test_fail
  addi s0, s0, 1
  bne s0, s1, 1b

  /* 39-40: full 64-bit wrap of mcycle, and the user aliases */
  li t1, -1
  li t0, -4
  csrw mcycleh, t1
  csrw mcycle, t0
  nop; nop; nop; nop; nop; nop; nop; nop
  csrr a1, cycleh
  csrr a2, cycle
  CHECK_EQ(39, a1, 0)
  li gp, 40
  li t0, 256
  bgeu a2, t0, test_fail
  j test_pass
