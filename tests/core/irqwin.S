/* irqwin.S - an interrupt window: `csrsi mstatus, 8` immediately followed by
 * `csrci mstatus, 8` must take an interrupt that is already pending and
 * enabled, with mepc = the csrci (the instruction after the enabling write).
 * Same for enabling through mie while MIE is already set. Firmware event loops
 * rely on this to poll interrupts at a chosen point. */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  li s1, NIC_TIMER_BASE
  la t0, handler
  csrw mtvec, t0
  li s3, 0                        /* interrupts taken */
  /* MSIP pending and enabled in mie, MIE = 0 */
  li t0, 1
  sw t0, NIC_TIMER_MSIP(s1)
  li t0, 0x8
  csrw mie, t0
  nop
  nop
  csrsi mstatus, 8
win1:
  csrci mstatus, 8
  CHECK_EQ(1, s3, 1)
  la t1, win1
  CHECK_REG(2, s4, t1)
  /* MIE = 1 already, enable the source through mie */
  csrw mie, zero
  li t0, 1
  sw t0, NIC_TIMER_MSIP(s1)
  nop
  nop
  csrsi mstatus, 8
  li t0, 0x8
  csrs mie, t0
win2:
  csrci mstatus, 8
  CHECK_EQ(3, s3, 2)
  la t1, win2
  CHECK_REG(4, s4, t1)
  j test_pass

  .align 2
handler:
  csrr s4, mepc
  addi s3, s3, 1
  sw zero, NIC_TIMER_MSIP(s1)     /* clear the source */
  mret
