/*
 * RTL testbench cases for the small blocks, driven through nic_top's host port with the core
 * held in reset: hostif (reset control, SRAM/IMEM window, IMEM writes refused while the core
 * runs, host interrupt cause/mask/raise), intc, timer (+ skip hook), perf, doorbells.
 */
#include "tb_cases.h"

#include "nic_memmap.h"
#include "nic_regs.h"

int tb_hostif_reset(struct tb_env *e)
{
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_ID), NIC_HOSTIF_ID_VALUE);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_VERSION), NIC_HOSTIF_VERSION_VALUE);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_CTRL), NIC_HOSTIF_CTRL_RESET);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_STATUS) & NIC_HOSTIF_STATUS_CORE_IN_RESET_MASK,
          NIC_HOSTIF_STATUS_CORE_IN_RESET_MASK);
    /* every block answers with its ID and version */
    static const struct { uint32_t off, id, ver; } blk[] = {
        {NIC_HOSTIF_OFFSET, NIC_HOSTIF_ID_VALUE, NIC_HOSTIF_VERSION_VALUE},
        {NIC_INTC_OFFSET, NIC_INTC_ID_VALUE, NIC_INTC_VERSION_VALUE},
        {NIC_TIMER_OFFSET, NIC_TIMER_ID_VALUE, NIC_TIMER_VERSION_VALUE},
        {NIC_DMA_OFFSET, NIC_DMA_ID_VALUE, NIC_DMA_VERSION_VALUE},
        {NIC_MAC_OFFSET, NIC_MAC_ID_VALUE, NIC_MAC_VERSION_VALUE},
        {NIC_PERF_OFFSET, NIC_PERF_ID_VALUE, NIC_PERF_VERSION_VALUE},
        {NIC_CONSOLE_OFFSET, NIC_CONSOLE_ID_VALUE, NIC_CONSOLE_VERSION_VALUE},
        {NIC_TESTMB_OFFSET, NIC_TESTMB_ID_VALUE, NIC_TESTMB_VERSION_VALUE},
        {NIC_DOORBELL_OFFSET, NIC_DOORBELL_ID_VALUE, NIC_DOORBELL_VERSION_VALUE},
    };
    for (unsigned i = 0; i < sizeof(blk) / sizeof(blk[0]); i++) {
        TB_EQ(e, tb_host_rd(e, NIC_BAR_REGS_CODE, blk[i].off + NIC_BLOCK_ID), blk[i].id);
        TB_EQ(e, tb_host_rd(e, NIC_BAR_REGS_CODE, blk[i].off + NIC_BLOCK_VERSION), blk[i].ver);
    }
    /* scratch with byte enables */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_SCRATCH, 0x11223344u);
    tb_host_wr_be(e, NIC_BAR_REGS_CODE, NIC_HOSTIF_OFFSET + NIC_HOSTIF_SCRATCH, 0xAABBCCDDu, 0x5);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_SCRATCH), 0x11BB33DDu);
    /* holes: an unmapped block, BAR1, beyond the doorbell pages -> all-ones, counted */
    TB_EQ(e, tb_host_rd(e, NIC_BAR_REGS_CODE, 0xF000), 0xFFFFFFFFu);
    TB_EQ(e, tb_host_rd(e, 1, 0x0), 0xFFFFFFFFu); /* code 1: no BAR */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 0xFFF000, 1);
    tb_cycles(e, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_HOST_BAD), 3);
    /* release the core: status follows, and a power-on reset holds it again */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL, 0);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_STATUS) & NIC_HOSTIF_STATUS_CORE_IN_RESET_MASK, 0);
    tb_reset(e);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_CTRL) & NIC_HOSTIF_CTRL_CORE_RESET_MASK,
          NIC_HOSTIF_CTRL_CORE_RESET_MASK);
    return 0;
}

int tb_hostif_window_sram(struct tb_env *e)
{
    uint8_t out[300], in[300];
    for (unsigned i = 0; i < sizeof(out); i++) out[i] = (uint8_t)tb_rand(e);
    /* unaligned start, crosses 16-byte words and both banks */
    tb_sram_write(e, 0x2345, out, sizeof(out));
    tb_sram_read(e, 0x2345, in, sizeof(in));
    for (unsigned i = 0; i < sizeof(out); i++) TB_EQ(e, in[i], out[i]);
    /* the last SRAM word through a window near the top; beyond SRAM is a hole */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, NIC_SRAM_SIZE - 0x1000);
    tb_host_wr(e, NIC_BAR_WINDOW_CODE, 0xFFC, 0xCAFEF00Du);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0xFFC), 0xCAFEF00Du);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0x1000), 0xFFFFFFFFu);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_HOST_BAD), 1);
    return 0;
}

int tb_hostif_window_imem(struct tb_env *e)
{
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL,
              NIC_HOSTIF_CTRL_CORE_RESET_MASK | NIC_HOSTIF_CTRL_WIN_IMEM_MASK);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, 0);
    /* an image of `j .` loops, so the released core stays put */
    for (uint32_t a = 0; a < 64; a += 4) tb_host_wr(e, NIC_BAR_WINDOW_CODE, a, 0x0000006Fu);
    tb_host_wr(e, NIC_BAR_WINDOW_CODE, 0x100, 0x12345678u);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0x100), 0x12345678u);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0x0), 0x0000006Fu);
    /* beyond IMEM is a hole */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, NIC_IMEM_SIZE - 0x1000);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0x1000), 0xFFFFFFFFu);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, 0);
    /* core running: IMEM writes are refused and counted, reads still work */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL, NIC_HOSTIF_CTRL_WIN_IMEM_MASK);
    tb_cycles(e, 20);
    tb_host_wr(e, NIC_BAR_WINDOW_CODE, 0x100, 0xBAD0BAD0u);
    tb_host_wr(e, NIC_BAR_WINDOW_CODE, 0x104, 0xBAD0BAD0u);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0x100), 0x12345678u);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_IMEM_WR_DROPPED), 2);
    /* held in reset again: writable */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL,
              NIC_HOSTIF_CTRL_CORE_RESET_MASK | NIC_HOSTIF_CTRL_WIN_IMEM_MASK);
    tb_host_wr(e, NIC_BAR_WINDOW_CODE, 0x100, 0x0BADF00Du);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_WINDOW_CODE, 0x100), 0x0BADF00Du);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_IMEM_WR_DROPPED), 2);
    return 0;
}

int tb_hostif_irq(struct tb_env *e)
{
    TB_EQ(e, e->p->host_irq, 0);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_RAISE, NIC_HOSTIF_IRQ_RAISE_CMPL_MASK);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_CAUSE), NIC_HOSTIF_IRQ_CAUSE_CMPL_MASK);
    TB_EQ(e, e->p->host_irq, 0);                       /* masked */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_MASK, NIC_HOSTIF_IRQ_MASK_CMPL_MASK | NIC_HOSTIF_IRQ_MASK_MISS_MASK);
    tb_cycle(e);
    TB_EQ(e, e->p->host_irq, 1);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_RAISE, NIC_HOSTIF_IRQ_RAISE_ERROR_MASK);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_CAUSE, NIC_HOSTIF_IRQ_CAUSE_CMPL_MASK);   /* ack */
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_CAUSE), NIC_HOSTIF_IRQ_CAUSE_ERROR_MASK);
    TB_EQ(e, e->p->host_irq, 0);                       /* error is not enabled */
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_RAISE, NIC_HOSTIF_IRQ_RAISE_MISS_MASK);
    tb_cycle(e);
    TB_EQ(e, e->p->host_irq, 1);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_CAUSE, 0xFFFFFFFFu);
    tb_cycle(e);
    TB_EQ(e, e->p->host_irq, 0);
    TB_EQ(e, tb_reg_rd(e, NIC_HOSTIF, NIC_HOSTIF_IRQ_CAUSE), 0);
    return 0;
}

int tb_intc_basic(struct tb_env *e)
{
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING), 0);
    tb_reg_wr(e, NIC_INTC, NIC_INTC_RAISE, NIC_INTC_RAISE_HOST_MASK | NIC_INTC_RAISE_DMA_MASK | 0x80000000u);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING), NIC_INTC_PENDING_HOST_MASK | NIC_INTC_PENDING_DMA_MASK);
    tb_reg_wr(e, NIC_INTC, NIC_INTC_ENABLE, 0xFFFFFFFFu);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_ENABLE), 0x1Fu);
    tb_reg_wr(e, NIC_INTC, NIC_INTC_ACK, NIC_INTC_ACK_DMA_MASK);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING), NIC_INTC_PENDING_HOST_MASK);
    /* a block event latches: a doorbell write sets `doorbell` */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 0x2000 + NIC_SENDQ_STRIDE, 7);
    tb_cycles(e, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING), NIC_INTC_PENDING_HOST_MASK | NIC_INTC_PENDING_DOORBELL_MASK);
    tb_reg_wr(e, NIC_INTC, NIC_INTC_ACK, 0xFFFFFFFFu);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING), 0);
    return 0;
}

int tb_timer_basic(struct tb_env *e)
{
    uint32_t t0 = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    tb_cycles(e, 100);
    uint32_t t1 = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    TB_CHECK(e, t1 - t0 >= 100 && t1 - t0 < 120);
    TB_EQ(e, e->p->timer_cycles_to_irq, 0xFFFFFFFFu);   /* mtimecmp = all ones */
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIME_HI, 0);
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIME_LO, 1000);
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIMECMP_HI, 0);
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIMECMP_LO, 5000);
    tb_cycle(e);
    uint32_t now = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    nic_model_eval(e->nic, e->p);
    uint32_t left = e->p->timer_cycles_to_irq;
    TB_CHECK(e, left > 3900 && left < 4000);
    TB_CHECK(e, now > 1000 && now < 1100);
    /* skip hook: one clock advances mtime by 1 + skip (compare with the same sequence without) */
    uint32_t p0 = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    tb_cycle(e);
    uint32_t p1 = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    e->p->skip_valid = 1;
    e->p->skip_cycles = 1000;
    tb_cycle(e);
    e->p->skip_valid = 0;
    uint32_t p2 = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    TB_EQ(e, (p2 - p1) - (p1 - p0), 1000);
    tb_cycles(e, 4000);
    nic_model_eval(e->nic, e->p);
    TB_EQ(e, e->p->timer_cycles_to_irq, 0);
    /* msip */
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MSIP, 1);
    TB_EQ(e, tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MSIP), 1);
    return 0;
}

int tb_perf_basic(struct tb_env *e)
{
    uint32_t c0 = tb_reg_rd(e, NIC_PERF, NIC_PERF_CYCLES);
    uint32_t c1 = tb_reg_rd(e, NIC_PERF, NIC_PERF_CYCLES);
    uint32_t rd = c1 - c0;   /* cycles one read takes */
    e->p->skip_valid = 1;
    e->p->skip_cycles = 12345;
    tb_cycle(e);
    e->p->skip_valid = 0;
    uint32_t c2 = tb_reg_rd(e, NIC_PERF, NIC_PERF_CYCLES);
    TB_EQ(e, c2 - c1, rd + 1 + 12345);
    TB_EQ(e, tb_reg_rd(e, NIC_PERF, NIC_PERF_INSTRET), 0);     /* core in reset */
    TB_EQ(e, tb_reg_rd(e, NIC_PERF, NIC_PERF_SLEEP_CYCLES), 0);
    return 0;
}

int tb_doorbell_order(struct tb_env *e)
{
    /* three processes ring (above their send queue window); entries come out in order with their page */
    static const uint32_t pg[] = {5, 0, 200, 5, 17};
    for (unsigned i = 0; i < 5; i++)
        tb_host_wr(e, NIC_BAR_DOORBELL_CODE, pg[i] * 0x1000 + NIC_SENDQ_STRIDE + 4 * i, 0x1000 + i);
    tb_cycles(e, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 5);
    for (unsigned i = 0; i < 5; i++) {
        uint32_t src = tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_SRC);
        TB_EQ(e, (src & NIC_DOORBELL_HEAD_SRC_PAGE_MASK) >> NIC_DOORBELL_HEAD_SRC_PAGE_SHIFT, pg[i]);
        TB_EQ(e, (src & NIC_DOORBELL_HEAD_SRC_OFFSET_MASK) >> NIC_DOORBELL_HEAD_SRC_OFFSET_SHIFT,
              NIC_SENDQ_STRIDE + 4 * i);
        TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_DATA), 0x1000 + i);
        tb_reg_wr(e, NIC_DOORBELL, NIC_DOORBELL_POP, 0);
    }
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS), 0);
    return 0;
}

int tb_doorbell_overflow(struct tb_env *e)
{
    const unsigned depth = 64, extra = 10;
    for (unsigned i = 0; i < depth + extra; i++)
        tb_host_wr(e, NIC_BAR_DOORBELL_CODE, (i % 7) * 0x1000 + NIC_SENDQ_STRIDE, i);
    tb_cycles(e, 2);
    uint32_t st = tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS);
    TB_EQ(e, (st & NIC_DOORBELL_STATUS_COUNT_MASK) >> NIC_DOORBELL_STATUS_COUNT_SHIFT, depth);
    TB_EQ(e, (st & NIC_DOORBELL_STATUS_OVERFLOW_MASK) >> NIC_DOORBELL_STATUS_OVERFLOW_SHIFT, extra);
    /* the kept ones are the first `depth`, in order */
    for (unsigned i = 0; i < depth; i++) {
        TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_DATA), i);
        tb_reg_wr(e, NIC_DOORBELL, NIC_DOORBELL_POP, 0);
    }
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 0);
    return 0;
}

int tb_doorbell_sendq(struct tb_env *e)
{
    /* below the stride, page p is endpoint p's send queue in SRAM, not a doorbell */
    const uint32_t p = 3, off = 0x40, at = NIC_SRAM_SENDQ_OFFSET + p * NIC_SENDQ_STRIDE + off;
    uint32_t w[2];

    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * 0x1000 + off, 0x11223344u);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * 0x1000 + off + 4, 0xAABBCCDDu);
    tb_host_wr_be(e, NIC_BAR_DOORBELL_CODE, p * 0x1000 + off + 4, 0x00EE0000u, 0x4); /* one byte */
    tb_cycles(e, 2);
    tb_sram_read(e, at, w, sizeof w);
    TB_EQ(e, w[0], 0x11223344u);
    TB_EQ(e, w[1], 0xAAEECCDDu);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_DOORBELL_CODE, p * 0x1000 + off + 4), 0xAAEECCDDu);
    /* the last word of the window still maps; the next one rings */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * 0x1000 + NIC_SENDQ_STRIDE - 4, 0x5A5A5A5Au);
    tb_cycles(e, 2);
    tb_sram_read(e, NIC_SRAM_SENDQ_OFFSET + (p + 1) * NIC_SENDQ_STRIDE - 4, w, 4);
    TB_EQ(e, w[0], 0x5A5A5A5Au);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 0);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * 0x1000 + NIC_SENDQ_STRIDE, 7);
    /* a page with no send queue behind it rings for every offset */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, NIC_SENDQ_SLOTS * 0x1000 + off, 8);
    tb_cycles(e, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_DATA), 7);
    tb_reg_wr(e, NIC_DOORBELL, NIC_DOORBELL_POP, 0);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_SRC),
          (NIC_SENDQ_SLOTS << NIC_DOORBELL_HEAD_SRC_PAGE_SHIFT) | (off << NIC_DOORBELL_HEAD_SRC_OFFSET_SHIFT));
    /* neighbouring queues untouched */
    tb_sram_read(e, NIC_SRAM_SENDQ_OFFSET + (p - 1) * NIC_SENDQ_STRIDE + off, w, 4);
    TB_EQ(e, w[0], 0);
    return 0;
}
