/*
 * RTL testbench cases for the host DMA engine: both directions with data checked byte for byte,
 * unaligned addresses and lengths, burst splitting at MAX_BURST host boundaries, several bursts
 * in flight, in-order completions, and every error path (host bus error on read and on write,
 * SRAM range error, bad length, submit overflow) with its code and counter.
 */
#include "tb_cases.h"

#include <string.h>

#include "nic_memmap.h"
#include "nic_regs.h"

static void dma_enable(struct tb_env *e)
{
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
}

static void dma_submit(struct tb_env *e, uint32_t sram, uint64_t host, uint32_t len_field, int to_host, uint8_t tag)
{
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_SRAM, sram);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_HOST_LO, (uint32_t)host);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_HOST_HI, (uint32_t)(host >> 32));
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_SUBMIT,
              (len_field << NIC_DMA_REQ_SUBMIT_LEN_SHIFT) |
              (to_host ? NIC_DMA_REQ_SUBMIT_TO_HOST_MASK : 0) | ((uint32_t)tag << NIC_DMA_REQ_SUBMIT_TAG_SHIFT));
}

/* wait for a completion (bounded), pop it, return err; tag through *tag */
static int dma_cpl(struct tb_env *e, uint8_t *tag)
{
    for (int i = 0; i < 20000; i++) {
        uint32_t st = tb_reg_rd(e, NIC_DMA, NIC_DMA_STATUS);
        if (st & NIC_DMA_STATUS_CPL_COUNT_MASK) {
            uint32_t c = tb_reg_rd(e, NIC_DMA, NIC_DMA_CPL_HEAD);
            tb_reg_wr(e, NIC_DMA, NIC_DMA_CPL_POP, 0);
            *tag = (uint8_t)((c & NIC_DMA_CPL_HEAD_TAG_MASK) >> NIC_DMA_CPL_HEAD_TAG_SHIFT);
            return (int)((c & NIC_DMA_CPL_HEAD_ERR_MASK) >> NIC_DMA_CPL_HEAD_ERR_SHIFT);
        }
        tb_cycles(e, 10);
    }
    TB_CHECK(e, !"DMA completion within budget");
    *tag = 0xFF;
    return -1;
}

static int dma_idle_cond(struct tb_env *e)
{
    return (tb_reg_rd(e, NIC_DMA, NIC_DMA_STATUS) & NIC_DMA_STATUS_CPL_COUNT_MASK) != 0;
}

int tb_dma_roundtrip(struct tb_env *e)
{
    /* host -> SRAM (read) then SRAM -> host (write) at other, unaligned addresses */
    const uint32_t len = 1000;
    uint64_t src = TB_HOST_BASE + 0x1003, dst = TB_HOST_BASE + 0x8005;
    for (uint32_t i = 0; i < len; i++) e->hmem[0x1003 + i] = (uint8_t)(i * 7 + 3);
    dma_enable(e);
    dma_submit(e, 0x4009, src, len, 0, 0x11);
    uint8_t tag;
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);
    TB_EQ(e, tag, 0x11);
    uint8_t buf[1000];
    tb_sram_read(e, 0x4009, buf, len);
    TB_EQ(e, memcmp(buf, e->hmem + 0x1003, len), 0);
    /* the bytes around the target are untouched */
    uint8_t edge[2];
    tb_sram_read(e, 0x4008, edge, 1);
    tb_sram_read(e, 0x4009 + len, edge + 1, 1);
    TB_EQ(e, edge[0], 0);
    TB_EQ(e, edge[1], 0);
    dma_submit(e, 0x4009, dst, len, 1, 0x22);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);
    TB_EQ(e, tag, 0x22);
    TB_EQ(e, memcmp(e->hmem + 0x8005, e->hmem + 0x1003, len), 0);
    TB_EQ(e, e->hmem[0x8004], 0);
    TB_EQ(e, e->hmem[0x8005 + len], 0);
    /* 1000 bytes split at 256-byte host boundaries: 4 bursts each way */
    TB_EQ(e, e->dma_req_count, 8);
    TB_EQ(e, tb_reg_rd(e, NIC_DMA, NIC_DMA_ERR_COUNT), 0);
    return 0;
}

int tb_dma_errors(struct tb_env *e)
{
    uint8_t tag;
    dma_enable(e);
    /* host bus error on read: a region of host memory answers with errors */
    e->err_lo = TB_HOST_BASE + 0x3000;
    e->err_hi = TB_HOST_BASE + 0x3100;
    dma_submit(e, 0x100, TB_HOST_BASE + 0x2F00, 0x300, 0, 1);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_BUS);
    TB_EQ(e, tag, 1);
    /* host bus error on write (reported by the acknowledgement) */
    dma_submit(e, 0x100, TB_HOST_BASE + 0x3080, 16, 1, 2);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_BUS);
    TB_EQ(e, tag, 2);
    /* SRAM range error: sram + len beyond SRAM; nothing reaches the host */
    uint64_t before = e->dma_req_count;
    dma_submit(e, NIC_SRAM_SIZE - 8, TB_HOST_BASE, 16, 1, 3);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_RANGE);
    TB_EQ(e, tag, 3);
    /* bad length: len field above 65536 */
    dma_submit(e, 0, TB_HOST_BASE, 0x10001, 0, 4);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_LEN);
    TB_EQ(e, tag, 4);
    TB_EQ(e, e->dma_req_count, before);
    /* a good one still works after the errors */
    dma_submit(e, 0x100, TB_HOST_BASE + 0x100, 64, 0, 5);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);
    TB_EQ(e, tag, 5);
    TB_EQ(e, tb_reg_rd(e, NIC_DMA, NIC_DMA_ERR_COUNT), 4);
    /* submit overflow: engine disabled, queue of 8 fills, the 9th is dropped and counted */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, 0);
    for (unsigned i = 0; i < 9; i++) dma_submit(e, 0, TB_HOST_BASE, 8, 0, (uint8_t)(0x40 + i));
    TB_EQ(e, tb_reg_rd(e, NIC_DMA, NIC_DMA_OVERFLOW), 1);
    TB_EQ(e, tb_reg_rd(e, NIC_DMA, NIC_DMA_STATUS) & NIC_DMA_STATUS_REQ_FREE_MASK, 0);
    dma_enable(e);
    for (unsigned i = 0; i < 8; i++) {
        TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);
        TB_EQ(e, tag, 0x40 + i);
    }
    (void)dma_idle_cond;
    return 0;
}

int tb_dma_inflight(struct tb_env *e)
{
    /* long host latency: the engine must keep several bursts outstanding; mixed directions and
     * errors complete in submission order */
    e->dma_latency = 200;
    dma_enable(e);
    for (uint32_t i = 0; i < 4096; i++) e->hmem[i] = (uint8_t)(i ^ 0x5A);
    uint64_t t0 = e->cycle;
    dma_submit(e, 0x10000, TB_HOST_BASE, 4096, 0, 0x80);          /* 16 bursts */
    dma_submit(e, NIC_SRAM_SIZE, TB_HOST_BASE, 4, 0, 0x81);        /* range error */
    dma_submit(e, 0x10000, TB_HOST_BASE + 0x10000, 512, 1, 0x82);  /* write back 512 */
    dma_submit(e, 0x0, TB_HOST_BASE, 0x1FFFF, 0, 0x83);            /* bad length */
    uint8_t tag;
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);  TB_EQ(e, tag, 0x80);
    uint64_t t1 = e->cycle;
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_RANGE);  TB_EQ(e, tag, 0x81);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);  TB_EQ(e, tag, 0x82);
    TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_LEN);  TB_EQ(e, tag, 0x83);
    TB_EQ(e, memcmp(e->hmem + 0x10000, e->hmem, 512), 0);
    TB_CHECK(e, e->dma_max_inflight >= 4);
    /* 16 bursts at 200 cycles each would take 3200+ cycles one at a time */
    TB_CHECK(e, t1 - t0 < 2000);
    printf("dma.inflight: max bursts in flight %u, 4 KiB read with latency 200 in %llu cycles\n",
           e->dma_max_inflight, (unsigned long long)(t1 - t0));
    return 0;
}

int tb_dma_random(struct tb_env *e)
{
    /* random lengths, alignments, directions and host stalls; every byte checked */
    e->dma_random_stall = 1;
    e->dma_latency = 30;
    dma_enable(e);
    for (uint32_t i = 0; i < TB_HOST_SIZE / 2; i++) e->hmem[i] = (uint8_t)tb_rand(e);
    static uint8_t img[0x8000];   /* what SRAM [0x20000, 0x28000) should hold */
    memset(img, 0, sizeof(img));
    for (unsigned n = 0; n < 40; n++) {
        uint32_t len = 1 + tb_rand(e) % 3000;
        uint32_t so = tb_rand(e) % (sizeof(img) - len);
        uint32_t ho = tb_rand(e) % (TB_HOST_SIZE / 2 - len);
        int to_host = (n % 3) == 2;
        uint8_t tag;
        if (!to_host) {
            dma_submit(e, 0x20000 + so, TB_HOST_BASE + ho, len, 0, (uint8_t)n);
            memcpy(img + so, e->hmem + ho, len);
        } else {
            ho += TB_HOST_SIZE / 2 - len;   /* upper half: a scratch area */
            ho = TB_HOST_SIZE / 2 + (tb_rand(e) % (TB_HOST_SIZE / 2 - len));
            dma_submit(e, 0x20000 + so, TB_HOST_BASE + ho, len, 1, (uint8_t)n);
        }
        TB_EQ(e, dma_cpl(e, &tag), NIC_DMA_CPL_HEAD_ERR_OK);
        TB_EQ(e, tag, n);
        if (to_host) TB_EQ(e, memcmp(e->hmem + ho, img + so, len), 0);
        if (e->failures) break;
    }
    static uint8_t got[0x8000];
    tb_sram_read(e, 0x20000, got, sizeof(got));
    TB_EQ(e, memcmp(got, img, sizeof(img)), 0);
    return 0;
}
