/* ras.S - return-address stack and BTB: every prediction is checked in
 * execute, so whatever the predictors hold, control flow must be exact.
 * Covers: recursion deeper than the stack (the oldest entries are
 * overwritten), returns to an address other than the one pushed (ra changed,
 * longjmp-like escapes out of nested calls), t0 (x5) as a link register,
 * calls through function pointers, and BTB index aliasing (branches and
 * jumps 1 KiB and 4 KiB apart share entries). */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  /* 1. recursion 50 deep (> the 8-entry stack): sum(n) = n + sum(n-1) */
  li a0, 50
  call rsum
  CHECK_EQ(1, a0, 1275)
  /* twice, so the stack holds stale entries from the first run */
  li a0, 37
  call rsum
  CHECK_EQ(2, a0, 703)

  /* 2. longjmp-like escape: setjmp saves sp and a resume address; nest 5
   * calls deep, the innermost jumps straight to the resume point (no
   * returns); then calls and returns must still go to the right places */
  li s2, 0
  mv s3, sp                  /* saved sp */
  la s4, 1f                  /* resume address */
  li a0, 5
  call nest
  j test_fail                /* nest never returns */
1:mv sp, s3
  CHECK_EQ(3, s2, 5)         /* the 5 levels ran */
  li a0, 10
  call leaf_add1
  CHECK_EQ(4, a0, 11)
  li a0, 4
  call rsum
  CHECK_EQ(5, a0, 10)
  /* repeat the escape from a different depth */
  li s2, 0
  la s4, 2f
  li a0, 12
  call nest
  j test_fail
2:mv sp, s3
  CHECK_EQ(6, s2, 12)
  li a0, 20
  call leaf_add1
  CHECK_EQ(7, a0, 21)

  /* 3. a return whose ra was changed: returns to `3f`, not after the call */
  li a0, 0
  call ret_elsewhere
  j test_fail
3:CHECK_EQ(8, a0, 77)
  li a0, 1
  call leaf_add1
  CHECK_EQ(9, a0, 2)

  /* 4. t0 (x5) as the link register: jal t0 / jr t0 */
  li a0, 3
  jal t0, leaf_t0
  CHECK_EQ(10, a0, 6)
  li a0, 8
  jal t0, leaf_t0
  CHECK_EQ(11, a0, 16)

  /* 5. calls through function pointers from two sites, alternating targets */
  li s5, 0                   /* i */
  li s6, 0                   /* accumulator */
4:andi t1, s5, 1
  la t2, leaf_add1
  beqz t1, 5f
  la t2, leaf_times3
5:mv a0, s5
  jalr ra, 0(t2)
  add s6, s6, a0
  addi s5, s5, 1
  li t1, 20
  bne s5, t1, 4b
  /* sum over i<20: even i -> i+1, odd i -> 3i: (0+2+..+18)+10 + 3*(1+3+..+19) = 100 + 300 */
  CHECK_EQ(12, s6, 400)

  /* 6. BTB index aliasing: alias_b is 1 KiB after alias_a, alias_c 4 KiB after it (same
   * index in a 256-entry or smaller BTB); alternate them so each evicts the other */
  li s5, 0
  li s6, 0
6:andi a1, s5, 1
  li a0, 0
  call alias_a
  add s6, s6, a0
  li a0, 0
  call alias_b
  add s6, s6, a0
  li a0, 0
  call alias_c
  add s6, s6, a0
  addi s5, s5, 1
  li t1, 16
  bne s5, t1, 6b
  /* per round: alias_a gives 1 (a1=0) or 2 (a1=1); alias_b 20 or 10; alias_c 300 (jump) */
  CHECK_EQ(13, s6, 8*(1+20+300) + 8*(2+10+300))
  j test_pass

rsum:                         /* a0 = a0 + (a0-1) + ... + 1, recursive */
  beqz a0, 1f
  addi sp, sp, -8
  sw ra, 4(sp)
  sw a0, 0(sp)
  addi a0, a0, -1
  call rsum
  lw t1, 0(sp)
  lw ra, 4(sp)
  addi sp, sp, 8
  add a0, a0, t1
1:ret

nest:                         /* s2++, recurse a0-1 times, then escape to s4 */
  addi sp, sp, -16
  sw ra, 12(sp)
  addi s2, s2, 1
  addi a0, a0, -1
  beqz a0, 1f
  call nest
  lw ra, 12(sp)              /* never reached: the innermost call escapes */
  addi sp, sp, 16
  ret
1:jr s4

ret_elsewhere:
  li a0, 77
  la ra, 3b
  ret

leaf_add1:
  addi a0, a0, 1
  ret
leaf_times3:
  slli t1, a0, 1
  add a0, a0, t1
  ret
leaf_t0:
  add a0, a0, a0
  jr t0

  .balign 4096
alias_a:                      /* a1 == 0: 1, else 2 */
  bnez a1, 1f
  li a0, 1
  ret
1:li a0, 2
  ret
  .balign 1024
alias_b:                      /* a1 == 0: 20, else 10 (opposite direction, same index as alias_a) */
  beqz a1, 1f
  li a0, 10
  ret
1:li a0, 20
  ret
  .balign 4096
alias_c:                      /* a non-branch at alias_a's index, then a jump */
  addi a0, a0, 100
  j 1f
  addi a0, a0, 1000
1:addi a0, a0, 200
  ret
