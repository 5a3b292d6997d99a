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
    TB_CHECK(e, e->p->timer_cycles_to_irq > 0xFFFFFFFF00000000ull); /* mtimecmp = all ones */
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIME_HI, 0);
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIME_LO, 1000);
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIMECMP_HI, 0);
    tb_reg_wr(e, NIC_TIMER, NIC_TIMER_MTIMECMP_LO, 5000);
    tb_cycle(e);
    uint32_t now = tb_reg_rd(e, NIC_TIMER, NIC_TIMER_MTIME_LO);
    nic_model_eval(e->nic, e->p);
    uint64_t left = e->p->timer_cycles_to_irq;
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

/* Takes the head doorbell as the firmware does (status, head_src, head_data, pop); 0 if none. */
static int db_take(struct tb_env *e, uint32_t *page, uint32_t *off, uint32_t *data)
{
    if (!(tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK))
        return 0;
    uint32_t src = tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_SRC);
    *data = tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_DATA);
    tb_reg_wr(e, NIC_DOORBELL, NIC_DOORBELL_POP, 0);
    *page = (src & NIC_DOORBELL_HEAD_SRC_PAGE_MASK) >> NIC_DOORBELL_HEAD_SRC_PAGE_SHIFT;
    *off = (src & NIC_DOORBELL_HEAD_SRC_OFFSET_MASK) >> NIC_DOORBELL_HEAD_SRC_OFFSET_SHIFT;
    return 1;
}

int tb_doorbell_order(struct tb_env *e)
{
    /* the driver's registers come first, then endpoints' (round-robin), then the FIFO (other offsets) */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 5 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 0x1005);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 200 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 0x1200); /* no endpoint: FIFO */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 3 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 0x1003);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 0 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_EV_CI, 0x2001);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 0 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_CMD_PI, 0x2000);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 5 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_CMD_PI, 0x1555); /* undefined: FIFO */
    tb_cycles(e, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 6);
    static const uint32_t want[][3] = {
        {0, NIC_DBPAGE_CMD_PI, 0x2000}, {0, NIC_DBPAGE_EV_CI, 0x2001}, {3, NIC_DBPAGE_SQ_PI, 0x1003},
        {5, NIC_DBPAGE_SQ_PI, 0x1005},  {200, NIC_DBPAGE_SQ_PI, 0x1200}, {5, NIC_DBPAGE_CMD_PI, 0x1555},
    };
    for (unsigned i = 0; i < 6; i++) {
        uint32_t pg = 0, off = 0, data = 0;
        TB_EQ(e, db_take(e, &pg, &off, &data), 1);
        TB_EQ(e, pg, want[i][0]);
        TB_EQ(e, off, want[i][1]);
        TB_EQ(e, data, want[i][2]);
    }
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS), 0);
    return 0;
}

int tb_doorbell_overflow(struct tb_env *e)
{
    /* a register coalesces (the latest count wins, counted), the FIFO of other writes drops (counted) */
    const unsigned depth = 64, extra = 10;
    for (unsigned i = 0; i < 100; i++)
        tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 7 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, i);
    for (unsigned i = 0; i < depth + extra; i++)
        tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 7 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI + 0x10, i);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 0 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_CMD_PI, 0xC0DE); /* after the FIFO filled */
    tb_cycles(e, 2);
    uint32_t st = tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS);
    TB_EQ(e, (st & NIC_DOORBELL_STATUS_COUNT_MASK) >> NIC_DOORBELL_STATUS_COUNT_SHIFT, depth + 2);
    TB_EQ(e, (st & NIC_DOORBELL_STATUS_OVERFLOW_MASK) >> NIC_DOORBELL_STATUS_OVERFLOW_SHIFT, extra);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_COALESCED), 99);
    uint32_t pg = 0, off = 0, data = 0;
    TB_EQ(e, db_take(e, &pg, &off, &data), 1); /* the driver's doorbell was not dropped */
    TB_EQ(e, pg, 0);
    TB_EQ(e, data, 0xC0DE);
    TB_EQ(e, db_take(e, &pg, &off, &data), 1);
    TB_EQ(e, pg, 7);
    TB_EQ(e, off, NIC_DBPAGE_SQ_PI);
    TB_EQ(e, data, 99);
    for (unsigned i = 0; i < depth; i++) { /* the kept FIFO entries are the first `depth`, in order */
        TB_EQ(e, db_take(e, &pg, &off, &data), 1);
        TB_EQ(e, data, i);
    }
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 0);
    return 0;
}

int tb_doorbell_storm(struct tb_env *e)
{
    /* One endpoint rings in a loop while the firmware drains: the driver's doorbells and another
     * endpoint's are each taken with their latest value, none dropped; a value written between the
     * head_data read and the pop is not lost (the register stays pending). */
    uint32_t pg = 0, off = 0, data = 0, got_cmd = 0, got_ev = 0, got_other = 0, last7 = 0;
    for (unsigned round = 0; round < 200; round++) {
        for (unsigned k = 0; k < 4; k++)
            tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 7 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, round * 4 + k);
        if (round % 20 == 0)
            tb_host_wr(e, NIC_BAR_DOORBELL_CODE, NIC_DBPAGE_CMD_PI, round);
        if (round % 30 == 0)
            tb_host_wr(e, NIC_BAR_DOORBELL_CODE, NIC_DBPAGE_EV_CI, round);
        if (round == 50)
            tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 2 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 0xE2);
        if (db_take(e, &pg, &off, &data)) {
            if (pg == 0 && off == NIC_DBPAGE_CMD_PI && data == round / 20 * 20)
                got_cmd++;
            else if (pg == 0 && off == NIC_DBPAGE_EV_CI && data == round / 30 * 30)
                got_ev++;
            else if (pg == 2 && data == 0xE2)
                got_other++;
            else if (pg == 7)
                last7 = data;
        }
    }
    /* a write after head_data was read and before the pop */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 7 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 5000);
    tb_cycles(e, 2);
    while (db_take(e, &pg, &off, &data))
        if (pg == 7)
            last7 = data;
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 0);
    TB_EQ(e, got_cmd, 10);
    TB_EQ(e, got_ev, 7);
    TB_EQ(e, got_other, 1);
    TB_EQ(e, last7, 5000);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_OVERFLOW_MASK, 0);
    /* the race: take the head's value, then the host writes, then the pop: the new value remains */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 7 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 6000);
    tb_cycles(e, 2);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_HEAD_DATA), 6000);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, 7 * NIC_BAR_DOORBELL_PAGE + NIC_DBPAGE_SQ_PI, 6001);
    tb_cycles(e, 2);
    tb_reg_wr(e, NIC_DOORBELL, NIC_DOORBELL_POP, 0);
    TB_EQ(e, db_take(e, &pg, &off, &data), 1);
    TB_EQ(e, pg, 7);
    TB_EQ(e, data, 6001);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 0);
    return 0;
}

int tb_doorbell_sendq(struct tb_env *e)
{
    /* below the stride, page p is endpoint p's send queue in SRAM, not a doorbell */
    const uint32_t p = 3, off = 0x40, at = NIC_SRAM_SENDQ_OFFSET + p * NIC_SENDQ_STRIDE + off;
    uint32_t w[2];

    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * NIC_BAR_DOORBELL_PAGE + off, 0x11223344u);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * NIC_BAR_DOORBELL_PAGE + off + 4, 0xAABBCCDDu);
    tb_host_wr_be(e, NIC_BAR_DOORBELL_CODE, p * NIC_BAR_DOORBELL_PAGE + off + 4, 0x00EE0000u, 0x4); /* one byte */
    tb_cycles(e, 2);
    tb_sram_read(e, at, w, sizeof w);
    TB_EQ(e, w[0], 0x11223344u);
    TB_EQ(e, w[1], 0xAAEECCDDu);
    TB_EQ(e, tb_host_rd(e, NIC_BAR_DOORBELL_CODE, p * NIC_BAR_DOORBELL_PAGE + off + 4), 0xAAEECCDDu);
    /* the last word of the window still maps; the next one rings */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * NIC_BAR_DOORBELL_PAGE + NIC_SENDQ_STRIDE - 4, 0x5A5A5A5Au);
    tb_cycles(e, 2);
    tb_sram_read(e, NIC_SRAM_SENDQ_OFFSET + (p + 1) * NIC_SENDQ_STRIDE - 4, w, 4);
    TB_EQ(e, w[0], 0x5A5A5A5Au);
    TB_EQ(e, tb_reg_rd(e, NIC_DOORBELL, NIC_DOORBELL_STATUS) & NIC_DOORBELL_STATUS_COUNT_MASK, 0);
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, p * NIC_BAR_DOORBELL_PAGE + NIC_SENDQ_STRIDE, 7);
    /* a page with no send queue behind it rings for every offset */
    tb_host_wr(e, NIC_BAR_DOORBELL_CODE, NIC_SENDQ_SLOTS * NIC_BAR_DOORBELL_PAGE + off, 8);
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
