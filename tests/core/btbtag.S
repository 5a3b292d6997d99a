/* btbtag.S - BTB partial-tag aliasing: code copied 4 MiB above alias_p (same
 * index and same 12-bit partial tag in the BTB) where alias_p has a taken
 * jump, the copy has plain adds. The copy's first add is predicted taken
 * (a stale entry); execute must see the mistake, drop the entry and run the
 * adds; alias_p's jump must still jump afterwards. Needs memory at
 * alias_p + 4 MiB: coresim's default RAM (0x80000000, 16 MiB). */
#include "core_test.h"
#define ALIAS_DIST 0x400000
  .text
  .globl test_main
test_main:
  /* copy alias_q_src (5 words) to alias_p + 4 MiB */
  la t0, alias_q_src
  la t1, alias_p
  li t2, ALIAS_DIST
  add t1, t1, t2
  mv s2, t1                  /* s2 = the copy */
  li t3, 5
1:lw t4, 0(t0)
  sw t4, 0(t1)
  addi t0, t0, 4
  addi t1, t1, 4
  addi t3, t3, -1
  bnez t3, 1b
  fence.i
  li s5, 0
  li s6, 0
2:li a0, 0
  call alias_p
  CHECK_EQ(1, a0, 1)
  add s6, s6, a0
  li a0, 0
  jalr ra, 0(s2)
  CHECK_EQ(2, a0, 30)
  add s6, s6, a0
  addi s5, s5, 1
  li t1, 10
  bne s5, t1, 2b
  CHECK_EQ(3, s6, 310)
  j test_pass

  .balign 64
alias_p:                      /* a0 += 1 (the adds are jumped over) */
  j 1f
  addi a0, a0, 100
  addi a0, a0, 100
1:addi a0, a0, 1
  ret
alias_q_src:                  /* copied to alias_p + 4 MiB: a0 += 30 */
  addi a0, a0, 10
  addi a0, a0, 10
  addi a0, a0, 10
  nop
  ret
