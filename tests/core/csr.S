/* csr.S - CSR read/write/set/clear semantics, immediate forms, read-only and
 * unimplemented CSRs raise illegal instruction, counters count. */
#include "core_test.h"

  .text
  .globl test_main
test_main:
  /* mscratch: rw / rs / rc, register and immediate forms */
  li t0, 0x12345678
  csrrw a1, mscratch, t0
  csrrs a2, mscratch, zero        /* read, no write */
  CHECK_EQ(1, a2, 0x12345678)
  li t0, 0x0000ff00
  csrrs a2, mscratch, t0
  CHECK_EQ(2, a2, 0x12345678)
  CSR_CHECK(3, mscratch, 0x1234ff78)
  li t0, 0x00000f0f
  csrrc a2, mscratch, t0
  CSR_CHECK(4, mscratch, 0x1234f070)
  csrrwi a2, mscratch, 0x1f
  CHECK_EQ(5, a2, 0x1234f070)
  CSR_CHECK(6, mscratch, 0x1f)
  csrrsi a2, mscratch, 0x0
  csrrci a2, mscratch, 0x3
  CSR_CHECK(7, mscratch, 0x1c)
  csrrsi a2, mscratch, 0x10
  CSR_CHECK(8, mscratch, 0x1c)
  /* constant / id CSRs */
  CSR_CHECK(10, misa, 0x40001100)
  CSR_CHECK(11, mvendorid, 0)
  CSR_CHECK(12, marchid, 0)
  CSR_CHECK(13, mimpid, 0)
  CSR_CHECK(14, mhartid, 0)
  /* mstatus: MPP reads 11, MIE/MPIE writable, others zero */
  csrw mstatus, zero
  CSR_CHECK(15, mstatus, 0x1800)
  li t0, 0xffffffff
  csrw mstatus, t0
  CSR_CHECK(16, mstatus, 0x1888)
  csrw mstatus, zero
  /* mie: only MEIE/MTIE/MSIE */
  li t0, 0xffffffff
  csrw mie, t0
  CSR_CHECK(17, mie, 0x888)
  csrw mie, zero
  /* mip: no interrupt pending, writes ignored */
  csrw mip, t0
  CSR_CHECK(18, mip, 0)
  /* misa writes ignored */
  csrw misa, zero
  CSR_CHECK(19, misa, 0x40001100)
  /* mtvec: direct and vectored, bit 1 reads zero */
  li t0, 0x80001001
  csrrw t1, mtvec, t0
  CSR_CHECK(20, mtvec, 0x80001001)
  li t0, 0x80001002
  csrw mtvec, t0
  CSR_CHECK(21, mtvec, 0x80001000)
  csrw mtvec, t1
  /* mepc: bits 1:0 read zero */
  li t0, 0x80000123
  csrw mepc, t0
  CSR_CHECK(22, mepc, 0x80000120)
  li t0, 0x8000000b
  csrw mcause, t0
  CSR_CHECK(23, mcause, 0x8000000b)
  li t0, 0xcafef00d
  csrw mtval, t0
  CSR_CHECK(24, mtval, 0xcafef00d)
  /* counters: mcycle and minstret count; user aliases read the same */
  csrr a1, mcycle
  csrr a2, minstret
  nop
  nop
  csrr a3, mcycle
  csrr a4, minstret
  sub a5, a3, a1
  sub a6, a4, a2
  li gp, 30
  li t0, 4
  bltu a5, t0, test_fail            /* at least 4 cycles */
  CHECK_EQ(31, a6, 4)               /* a2, 2 nops, a3 retired before a4 reads */
  csrr a1, cycle
  csrr a2, mcycle
  sub a3, a2, a1
  li gp, 32
  li t0, 10
  bgeu a3, t0, test_fail
  csrr a1, instret
  csrr a2, minstret
  sub a3, a2, a1
  CHECK_EQ(33, a3, 1)
  /* counters are writable; high halves too */
  li t0, 0xfffffff0
  csrw minstret, t0
  csrw minstreth, zero
  csrr a1, minstret
  CHECK_EQ(34, a1, 0xfffffff0)      /* neither write counted itself (tests/core/counters.S) */
  nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop
  csrr a1, minstreth
  CHECK_EQ(35, a1, 1)               /* carried into the high half */
  csrr a1, instreth
  CHECK_EQ(36, a1, 1)
  li t0, 5
  csrw mcycleh, t0
  csrr a1, mcycleh
  CHECK_EQ(37, a1, 5)
  csrr a1, cycleh
  CHECK_EQ(38, a1, 5)
  csrw mcycle, zero
  csrr a1, mcycle
  li gp, 39
  li t0, 8
  bgeu a1, t0, test_fail
  /* read-only CSRs: a write is illegal, a pure read is fine */
  EXPECT_ILLEGAL(40, csrw mhartid, zero)
  EXPECT_ILLEGAL(41, csrrs t3, mvendorid, t0)
  EXPECT_ILLEGAL(42, csrrwi t3, cycle, 0)
  EXPECT_ILLEGAL(43, csrrci t3, instret, 1)
  EXPECT_ILLEGAL(44, csrw cycleh, zero)
  /* unimplemented CSRs */
  EXPECT_ILLEGAL(45, csrr t3, time)
  EXPECT_ILLEGAL(46, csrr t3, timeh)
  EXPECT_ILLEGAL(47, csrr t3, 0x7b0)      /* dcsr */
  EXPECT_ILLEGAL(48, csrr t3, 0x320)      /* mcountinhibit */
  EXPECT_ILLEGAL(49, csrw 0x3a0, zero)    /* pmpcfg0 */
  EXPECT_ILLEGAL(50, csrr t3, 0x001)      /* fflags: no F */
  /* an illegal CSR write has no effect */
  li t0, 0x77
  csrw mscratch, t0
  EXPECT_ILLEGAL(51, csrrw t3, mhartid, zero)
  CSR_CHECK(52, mscratch, 0x77)
  CSR_CHECK(53, mhartid, 0)
  /* rd of a trapping CSR instruction is not written */
  li t3, 0x99
  EXPECT_ILLEGAL(54, csrr t3, 0x7c0)
  CHECK_EQ(55, t3, 0x99)
  j test_pass
