/* wfi.S - wfi with mstatus.MIE = 0 wakes on (mip & mie) != 0 and continues
 * after the wfi without a trap; with MIE = 1 the interrupt is taken with
 * mepc = wfi + 4; wfi with an interrupt already pending does not sleep. */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  li s1, NIC_TIMER_BASE
  sw zero, NIC_TIMER_MTIMECMP_HI(s1)
  /* MIE = 0, MTIE = 1: wake, no trap (mtvec = unexpected_trap fails) */
  li t0, 0x80
  csrw mie, t0
  lw s2, NIC_TIMER_MTIME_LO(s1)
  addi s3, s2, 300
  sw s3, NIC_TIMER_MTIMECMP_LO(s1)
  csrr s4, mcycle
  wfi
  csrr s5, mcycle
  lw s6, NIC_TIMER_MTIME_LO(s1)
  li gp, 1
  bltu s6, s3, test_fail          /* did not wake early */
  sub t0, s5, s4
  li gp, 2
  li t1, 250
  bltu t0, t1, test_fail          /* really slept */
  CSR_CHECK(3, mip, 0x80)
  /* interrupt already pending: wfi falls through */
  csrr s4, mcycle
  wfi
  csrr s5, mcycle
  sub t0, s5, s4
  li gp, 4
  li t1, 20
  bgeu t0, t1, test_fail
  /* pending but not enabled in mie does not wake: enable MSIE only, timer
   * pending; raise MSIP later via... nothing else runs, so instead check that
   * an enabled source wakes: set MSIP then wfi with mie = MSIE */
  li t0, 8
  csrw mie, t0
  li t0, 1
  sw t0, NIC_TIMER_MSIP(s1)
  wfi
  sw zero, NIC_TIMER_MSIP(s1)
  /* MIE = 1: trap taken after the wfi, mepc = wfi + 4 */
  li t0, -1
  sw t0, NIC_TIMER_MTIMECMP_LO(s1)
  la t0, handler
  csrw mtvec, t0
  li s7, 0
  li t0, 0x80
  csrw mie, t0
  lw s2, NIC_TIMER_MTIME_LO(s1)
  addi s3, s2, 200
  sw s3, NIC_TIMER_MTIMECMP_LO(s1)
  csrsi mstatus, 8
  wfi
9:csrci mstatus, 8
  CHECK_EQ(5, s7, 1)
  la t0, 9b
  CHECK_REG(6, s8, t0)
  CHECK_EQ(7, s9, 0x80000007)
  la t0, unexpected_trap
  csrw mtvec, t0
  j test_pass

  .align 2
handler:
  csrr s8, mepc
  csrr s9, mcause
  addi s7, s7, 1
  li t6, -1
  sw t6, NIC_TIMER_MTIMECMP_LO(s1)
  mret
