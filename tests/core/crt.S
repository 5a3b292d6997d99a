/* crt.S - common start-up and result reporting for the core tests. */
#include "core_test.h"

  .section .text.init, "ax"
  .globl _start
_start:
  la sp, stack_top
  la t0, unexpected_trap
  csrw mtvec, t0
  li gp, 0
  j test_main

  /* any trap a test did not plan for: FAIL 1000 + mcause (low bits) */
  .align 2
  .globl unexpected_trap
unexpected_trap:
  csrr gp, mcause
  andi gp, gp, 0xff
  addi gp, gp, 1000
  j test_fail

  .globl test_fail
test_fail:
  slli t0, gp, 1
  ori t0, t0, 1
  la t1, tohost
  sw t0, 0(t1)
  sw zero, 4(t1)     /* high word: QEMU's HTIF acts on this store */
1:j 1b

  .globl test_pass
test_pass:
  li t0, 1
  la t1, tohost
  sw t0, 0(t1)
  sw zero, 4(t1)     /* high word: QEMU's HTIF acts on this store */
1:j 1b

  .section .tohost, "aw", @progbits
  .align 6
  .globl tohost
  .type tohost, @object
  .size tohost, 8
tohost: .dword 0
  .align 6
  .globl fromhost
  .type fromhost, @object
  .size fromhost, 8
fromhost: .dword 0

  .bss
  .align 4
  .space 4096
  .globl stack_top
stack_top:
