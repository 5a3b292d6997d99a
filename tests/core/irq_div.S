/* irq_div.S - a timer interrupt arriving at every phase of a multi-cycle
 * divide: results stay correct and the handler runs once per round. The
 * interrupt may also land in the checks (divides take <= 8 cycles), so the
 * handler touches only s3, s7, s8 (not t6 or gp, which the checks use). */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  li s1, NIC_TIMER_BASE
  sw zero, NIC_TIMER_MTIMECMP_HI(s1)
  la t0, handler
  csrw mtvec, t0
  li t0, 0x80
  csrw mie, t0
  li s3, 0                  /* handler count */
  li s4, 0                  /* round */
  li s5, 60                 /* rounds: delay 4..63 cycles */
1:addi s6, s4, 4
  lw t0, NIC_TIMER_MTIME_LO(s1)
  add t0, t0, s6
  sw t0, NIC_TIMER_MTIMECMP_LO(s1)
  csrsi mstatus, 8
  li a1, 1000003
  li a2, 7
  div a3, a1, a2
  rem a4, a1, a2
  li a5, -99999
  divu a6, a5, a2
  div a7, a5, a2
  mul t1, a3, a2
  add t1, t1, a4
  CHECK_EQ(2, a3, 142857)
  CHECK_EQ(3, a4, 4)
  CHECK_EQ(4, a6, 613552471)
  CHECK_EQ(5, a7, -14285)
  CHECK_EQ(6, t1, 1000003)
  /* wait for this round's interrupt if it has not happened yet */
  li t2, 200
2:addi t3, s4, 1
  beq s3, t3, 3f
  addi t2, t2, -1
  bnez t2, 2b
3:csrci mstatus, 8
  addi s4, s4, 1
  CHECK_REG(7, s3, s4)
  bne s4, s5, 1b
  la t0, unexpected_trap
  csrw mtvec, t0
  j test_pass

  .align 2
handler:
  csrr s7, mcause
  li s8, 0x80000007
  bne s7, s8, bad_cause
  li s8, -1
  sw s8, NIC_TIMER_MTIMECMP_LO(s1)
  addi s3, s3, 1
  mret
bad_cause:
  li gp, 8
  j test_fail
