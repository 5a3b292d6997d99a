/* predict.S - the predictors pay off (run with 0 wait states: timing).
 * Bubbles = mcycle - minstret over a measured loop (single-cycle memory, no
 * loads in the loops, so every extra cycle is a misprediction bubble).
 * 1. return-address stack: a function called alternately from two sites
 *    (a BTB alone predicts the last return target: every return would miss)
 *    and calls nested 4 deep: after the first round no return mispredicts.
 * 2. BTB capacity: a chain of 100 taken jumps 12 bytes apart (1200 bytes of
 *    code; a 32-entry BTB holds at most 32 of them): after the first pass every jump
 *    is predicted. */
#include "core_test.h"

#define MEASURE_START csrr s10, mcycle; csrr s11, minstret
/* t1 = bubbles since MEASURE_START */
#define MEASURE_END csrr t1, mcycle; csrr t2, minstret; sub t1, t1, s10; sub t2, t2, s11; sub t1, t1, t2

  .text
  .globl test_main
test_main:
  /* 1. return-address stack: 50 rounds, 4 returns to alternating sites each */
  li s2, 50
  li a0, 0
  MEASURE_START
1:call site_f
  call level1
  call site_f
  addi s2, s2, -1
  bnez s2, 1b
  MEASURE_END
  CHECK_EQ(1, a0, 50 * 4)
  /* first round: each call/return cold at most once (8 sites) plus the loop branch */
  li gp, 2
  li t3, 40
  bgtu t1, t3, test_fail

  /* 2. BTB capacity: 10 passes over 100 jumps */
  li s2, 10
  li a1, 0
  MEASURE_START
2:call jump_chain
  addi s2, s2, -1
  bnez s2, 2b
  MEASURE_END
  /* first pass: 100 cold jumps (2 bubbles each) + call/ret/loop; later passes ~0 */
  li gp, 3
  li t3, 2 * 100 + 40
  bgtu t1, t3, test_fail
  /* the chain ran (every jump executed): a1 counts the jump targets */
  CHECK_EQ(4, a1, 10 * 100)
  j test_pass

site_f:
  addi a0, a0, 1
  ret
level1:
  addi sp, sp, -16
  sw ra, 12(sp)
  call level2
  lw ra, 12(sp)
  addi sp, sp, 16
  ret
level2:
  addi sp, sp, -16
  sw ra, 12(sp)
  call level3
  call site_f
  lw ra, 12(sp)
  addi sp, sp, 16
  ret
level3:
  addi sp, sp, -16
  sw ra, 12(sp)
  addi a0, a0, 1
  call site_f
  addi a0, a0, -1
  lw ra, 12(sp)
  addi sp, sp, 16
  ret

  .balign 64
jump_chain:                   /* a1 += 100; a jump not taken would subtract 1000 */
  .rept 100
  j 1f
  addi a1, a1, -1000
1:addi a1, a1, 1
  .endr
  ret
