/* mtvec.S - direct and vectored modes, mstatus MIE/MPIE across trap and mret. */
#include "core_test.h"
  .text
  .globl test_main
test_main:
  /* direct mode: exceptions and interrupts both go to base */
  la t0, direct_handler
  csrw mtvec, t0
  li s2, 0
  li gp, 1
  ecall
  CHECK_EQ(2, s2, 1)
  /* trap entry: MPIE <- MIE, MIE <- 0; mret: MIE <- MPIE, MPIE <- 1 */
  csrsi mstatus, 8              /* MIE = 1 (no interrupt enabled in mie) */
  ecall                         /* handler records mstatus in s3 */
  CHECK_EQ(3, s3, 0x1880)       /* in handler: MPIE=1, MIE=0, MPP=11 */
  CSR_CHECK(4, mstatus, 0x1888) /* after mret: MIE=1, MPIE=1 */
  csrci mstatus, 8
  ecall
  CHECK_EQ(5, s3, 0x1800)
  CSR_CHECK(6, mstatus, 0x1880) /* MIE restored to 0, MPIE = 1 */
  /* interrupt in direct mode (software interrupt via MSIP) */
  li s2, 0
  li t0, 8
  csrw mie, t0                  /* MSIE */
  li s1, NIC_TIMER_BASE
  li t0, 1
  sw t0, NIC_TIMER_MSIP(s1)
  csrsi mstatus, 8
  li t1, 100
1:addi t1, t1, -1
  beqz s2, 1b                   /* until the handler ran */
  csrci mstatus, 8
  CHECK_EQ(7, s4, 0x80000003)
  /* vectored mode: exceptions to base, interrupts to base + 4*cause */
  la t0, vec_table + 1
  csrw mtvec, t0
  li s2, 0
  ecall
  CHECK_EQ(8, s2, 0x100)        /* entry 0 (exceptions) */
  li s2, 0
  li t0, 1
  sw t0, NIC_TIMER_MSIP(s1)
  csrsi mstatus, 8
1:beqz s2, 1b
  csrci mstatus, 8
  CHECK_EQ(9, s2, 0x103)        /* entry 3 (MSI) */
  /* timer interrupt, entry 7 */
  csrw mie, zero
  li s2, 0
  lw t0, NIC_TIMER_MTIME_LO(s1)
  sw zero, NIC_TIMER_MTIMECMP_HI(s1)
  addi t0, t0, 50
  sw t0, NIC_TIMER_MTIMECMP_LO(s1)
  li t0, 0x80
  csrw mie, t0
  csrsi mstatus, 8
1:beqz s2, 1b
  csrci mstatus, 8
  CHECK_EQ(10, s2, 0x107)
  /* external interrupt, entry 11 */
  li s5, NIC_INTC_BASE
  li t0, 0x800
  csrw mie, t0
  li t0, 4
  sw t0, NIC_INTC_ENABLE(s5)
  li s2, 0
  csrsi mstatus, 8
  sw t0, NIC_INTC_RAISE(s5)
1:beqz s2, 1b
  csrci mstatus, 8
  CHECK_EQ(11, s2, 0x10b)
  csrw mie, zero
  la t0, unexpected_trap
  csrw mtvec, t0
  j test_pass

  .align 2
direct_handler:
  csrr s3, mstatus
  csrr s4, mcause
  li s2, 1
  bltz s4, 1f                   /* interrupt: clear MSIP, return to mepc */
  csrr t6, mepc
  addi t6, t6, 4
  csrw mepc, t6
  mret
1:sw zero, NIC_TIMER_MSIP(s1)
  mret

  .align 6
vec_table:
  j vec_exc
  j test_fail
  j test_fail
  j vec_msi
  j test_fail
  j test_fail
  j test_fail
  j vec_mti
  j test_fail
  j test_fail
  j test_fail
  j vec_mei
vec_exc:
  li s2, 0x100
  csrr t6, mepc
  addi t6, t6, 4
  csrw mepc, t6
  mret
vec_msi:
  li s2, 0x103
  sw zero, NIC_TIMER_MSIP(s1)
  mret
vec_mti:
  li s2, 0x107
  li t6, -1
  sw t6, NIC_TIMER_MTIMECMP_HI(s1)
  mret
vec_mei:
  li s2, 0x10b
  li t6, 4
  sw t6, NIC_INTC_ACK(s5)
  mret
