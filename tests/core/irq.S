/* irq.S - timer, software and external interrupts; priority MEI > MSI > MTI
 * when all are pending; mip reflects the inputs; precise interrupts during a
 * load/store/mul loop. */
#include "core_test.h"
  .data
  .align 4
order: .word 0, 0, 0, 0
arr:   .space 64
  .text
  .globl test_main
test_main:
  li s1, NIC_TIMER_BASE
  li s5, NIC_INTC_BASE
  /* block ids */
  lw t0, NIC_TIMER_ID(s1)
  CHECK_EQ(1, t0, NIC_TIMER_ID_VALUE)
  lw t0, NIC_INTC_ID(s5)
  CHECK_EQ(2, t0, NIC_INTC_ID_VALUE)
  la t0, handler
  csrw mtvec, t0
  /* make all three pending with MIE = 0 */
  li t0, 1
  sw t0, NIC_TIMER_MSIP(s1)
  sw zero, NIC_TIMER_MTIMECMP_HI(s1)
  sw zero, NIC_TIMER_MTIMECMP_LO(s1)
  li t0, 0x10
  sw t0, NIC_INTC_ENABLE(s5)
  sw t0, NIC_INTC_RAISE(s5)
  lw t1, NIC_INTC_PENDING(s5)
  CHECK_EQ(3, t1, 0x10)
  nop
  nop
  CSR_CHECK(4, mip, 0x888)
  li t0, 0x888
  csrw mie, t0
  /* nothing taken while MIE = 0 */
  nop
  nop
  la s2, order
  li s3, 0
  csrsi mstatus, 8
  li t1, 1000
1:addi t1, t1, -1
  li t2, 3
  beq s3, t2, 2f
  bnez t1, 1b
2:csrci mstatus, 8
  CHECK_EQ(5, s3, 3)
  lw t0, 0(s2)
  CHECK_EQ(6, t0, 0x8000000b)
  lw t0, 4(s2)
  CHECK_EQ(7, t0, 0x80000003)
  lw t0, 8(s2)
  CHECK_EQ(8, t0, 0x80000007)
  CSR_CHECK(9, mip, 0)
  /* periodic timer interrupts during a loop with loads, stores, mul, div */
  li s3, 0
  li s6, 1                        /* periodic mode in handler */
  sw zero, NIC_TIMER_MTIMECMP_HI(s1)
  lw t0, NIC_TIMER_MTIME_LO(s1)
  addi t0, t0, 151
  sw t0, NIC_TIMER_MTIMECMP_LO(s1)
  li t0, 0x80
  csrw mie, t0
  csrsi mstatus, 8
  la a0, arr
  li a1, 0                        /* checksum */
  li a2, 300
3:andi t0, a2, 15
  slli t0, t0, 2
  add t0, t0, a0
  lw t1, 0(t0)
  add t1, t1, a2
  sw t1, 0(t0)
  mul t2, t1, a2
  add a1, a1, t2
  li t3, 7
  divu t4, a2, t3
  add a1, a1, t4
  addi a2, a2, -1
  bnez a2, 3b
  csrci mstatus, 8
  csrw mie, zero
  li gp, 10
  li t0, 5
  bltu s3, t0, test_fail          /* interrupts did happen */
  /* recompute without interrupts and compare */
  la a0, arr
  li t0, 16
4:sw zero, 0(a0)
  addi a0, a0, 4
  addi t0, t0, -1
  bnez t0, 4b
  mv s7, a1
  la a0, arr
  li a1, 0
  li a2, 300
5:andi t0, a2, 15
  slli t0, t0, 2
  add t0, t0, a0
  lw t1, 0(t0)
  add t1, t1, a2
  sw t1, 0(t0)
  mul t2, t1, a2
  add a1, a1, t2
  li t3, 7
  divu t4, a2, t3
  add a1, a1, t4
  addi a2, a2, -1
  bnez a2, 5b
  CHECK_REG(11, a1, s7)
  la t0, unexpected_trap
  csrw mtvec, t0
  j test_pass

  .align 2
handler:
  csrr t5, mcause
  bgez t5, test_fail
  beqz s6, 1f
  /* periodic: re-arm 151 cycles later (longer than the handler at 3 wait states) */
  lw t6, NIC_TIMER_MTIME_LO(s1)
  addi t6, t6, 151
  sw t6, NIC_TIMER_MTIMECMP_LO(s1)
  addi s3, s3, 1
  mret
1:slli t6, s3, 2
  add t6, t6, s2
  sw t5, 0(t6)
  addi s3, s3, 1
  andi t5, t5, 0xff
  li t6, 11
  bne t5, t6, 2f
  li t6, 0x10
  sw t6, NIC_INTC_ACK(s5)
  mret
2:li t6, 3
  bne t5, t6, 3f
  sw zero, NIC_TIMER_MSIP(s1)
  mret
3:li t6, -1
  sw t6, NIC_TIMER_MTIMECMP_HI(s1)
  sw t6, NIC_TIMER_MTIMECMP_LO(s1)
  mret
