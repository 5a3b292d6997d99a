/*
 * RTL testbench cases for the link MAC: CRC appended on TX (checked against hal's nic_crc32),
 * TX pacing to the link rate and refused frames; RX of good frames into the descriptor ring
 * (data, descriptor words, phase, head), drops with their counters (bad CRC, runt, oversize,
 * no buffer), ring wrap, a randomized TX -> RX loopback, and the TX rate the PHY sets (phy_rate,
 * mac.link_rate) with the 20-byte gap per frame.
 */
#include "tb_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_crc32.h"
#include "nic_memmap.h"
#include "nic_regs.h"

#define RING 0x8000u
#define BUFS 0x10000u
#define BUFSZ 2048u

static uint32_t rd32(struct tb_env *e, uint32_t off)
{
    uint32_t v;
    tb_sram_read(e, off, &v, 4);
    return v;
}

static void wr32(struct tb_env *e, uint32_t off, uint32_t v)
{
    tb_sram_write(e, off, &v, 4);
}

/* a wire frame: payload + CRC little-endian */
static uint32_t make_frame(struct tb_env *e, uint8_t *f, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) f[i] = (uint8_t)tb_rand(e);
    uint32_t c = nic_crc32(f, len);
    for (int i = 0; i < 4; i++) f[len + i] = (uint8_t)(c >> (8 * i));
    return len + 4;
}

static void rx_setup(struct tb_env *e, unsigned log2n, uint32_t bufsz)
{
    for (unsigned i = 0; i < (1u << log2n); i++) {
        uint32_t d[NIC_RXDESC_WORDS] = {0};
        d[NIC_RXDESC_BUF_IDX] = BUFS + i * BUFSZ;
        tb_sram_write(e, RING + i * NIC_RXDESC_SIZE, d, sizeof(d));
    }
    tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_RING, RING);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_CFG, (log2n << NIC_MAC_RX_CFG_ENTRIES_LOG2_SHIFT) |
                                          (bufsz << NIC_MAC_RX_CFG_BUF_SIZE_SHIFT));
    tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_TAIL, 0);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_RX_ENABLE_MASK | NIC_MAC_CTRL_TX_ENABLE_MASK);
}

static int rx_idle_cond(struct tb_env *e)
{
    return !tb_rx_busy(e);
}

/* all injected frames have entered the NIC; give the last one time to reach SRAM */
static void rx_drain(struct tb_env *e)
{
    TB_CHECK(e, tb_wait(e, rx_idle_cond, 200000));
    tb_cycles(e, 600);
}

static void check_desc(struct tb_env *e, unsigned slot, uint32_t seq, const uint8_t *f, uint32_t wire, unsigned log2n)
{
    uint32_t d[NIC_RXDESC_WORDS];
    tb_sram_read(e, RING + slot * NIC_RXDESC_SIZE, d, sizeof(d));
    TB_EQ(e, d[NIC_RXDESC_BUF_IDX], BUFS + slot * BUFSZ);
    TB_EQ(e, (d[NIC_RXDESC_STATUS_IDX] & NIC_RXDESC_STATUS_LEN_MASK) >> NIC_RXDESC_STATUS_LEN_SHIFT, wire - 4);
    TB_EQ(e, (d[NIC_RXDESC_STATUS_IDX] & NIC_RXDESC_STATUS_PHASE_MASK) >> NIC_RXDESC_STATUS_PHASE_SHIFT,
          ((seq >> log2n) & 1) ^ 1);
    TB_EQ(e, d[NIC_RXDESC_SEQ_IDX], seq);
    uint32_t crc = (uint32_t)f[wire - 4] | (uint32_t)f[wire - 3] << 8 | (uint32_t)f[wire - 2] << 16 |
                   (uint32_t)f[wire - 1] << 24;
    TB_EQ(e, d[NIC_RXDESC_CRC_IDX], crc);
    static uint8_t got[TB_MAX_FRAME];
    tb_sram_read(e, d[NIC_RXDESC_BUF_IDX], got, wire - 4);
    TB_EQ(e, memcmp(got, f, wire - 4), 0);
}

int tb_mac_tx(struct tb_env *e)
{
    static uint8_t f[TB_MAX_FRAME];
    /* lengths that leave 0..7 bytes in the last beat, so the CRC lands at every offset */
    static const uint32_t lens[] = {12, 13, 14, 15, 16, 17, 18, 19, 60, 1500};
    uint32_t off = 0x20003;
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK);
    for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        uint32_t wire = make_frame(e, f, lens[i]);
        tb_sram_write(e, off, f, lens[i]);
        tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, off);
        uint64_t t0 = e->cycle;
        tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, lens[i]);
        for (int k = 0; k < 10000 && e->tx_count == i; k++) tb_cycle(e);
        TB_EQ(e, e->tx_count, i + 1);
        TB_EQ(e, e->tx[i].len, wire);
        TB_EQ(e, memcmp(e->tx[i].data, f, wire), 0);
        if (lens[i] == 1500) {
            uint64_t cyc = e->cycle - t0;
            /* paced at 50 bits per cycle: 1504 bytes need >= 240 cycles */
            TB_CHECK(e, cyc >= 1504 * 8 / 50 && cyc < 1504 * 8 / 50 + 60);
            printf("mac.tx: 1504-byte frame on the wire in %llu cycles (%.2f bits/cycle incl. start-up)\n",
                   (unsigned long long)cyc, 1504.0 * 8 / (double)cyc);
        }
    }
    tb_cycles(e, 2);   /* the counter updates the cycle after the last beat */
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), 10);
    TB_EQ(e, (tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_STATUS) & NIC_MAC_TX_STATUS_DONE_MASK) >> NIC_MAC_TX_STATUS_DONE_SHIFT, 10);
    /* refused: too short, too long, beyond SRAM; done counts them, nothing is sent */
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, off);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, 5);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, 9300);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, NIC_SRAM_SIZE - 16);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, 64);
    tb_cycles(e, 50);
    TB_EQ(e, e->tx_count, 10);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), 3);
    TB_EQ(e, (tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_STATUS) & NIC_MAC_TX_STATUS_DONE_MASK) >> NIC_MAC_TX_STATUS_DONE_SHIFT, 13);
    /* queue overflow: disabled, 8 fit, the 9th is dropped and counted */
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, 0);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, off);
    for (int i = 0; i < 9; i++) tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, 60);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OVERFLOW), 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_STATUS) & NIC_MAC_TX_STATUS_FREE_MASK, 0);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING) & NIC_INTC_PENDING_MAC_TX_MASK, NIC_INTC_PENDING_MAC_TX_MASK);
    return 0;
}

int tb_mac_rx(struct tb_env *e)
{
    static uint8_t f[8][TB_MAX_FRAME];
    static uint32_t wire[8];
    rx_setup(e, 3, BUFSZ);
    static const uint32_t lens[] = {12, 13, 17, 64, 100, 1000, 1500, 2048};
    for (unsigned i = 0; i < 8; i++) {
        wire[i] = make_frame(e, f[i], lens[i]);
        tb_rx_inject(e, f[i], wire[i]);
    }
    rx_drain(e);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_HEAD), 8);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OK), 8);
    for (unsigned i = 0; i < 8; i++) check_desc(e, i, i, f[i], wire[i], 3);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING) & NIC_INTC_PENDING_MAC_RX_MASK, NIC_INTC_PENDING_MAC_RX_MASK);
    return 0;
}

int tb_mac_rx_drops(struct tb_env *e)
{
    static uint8_t f[TB_MAX_FRAME];
    rx_setup(e, 2, 256);
    uint32_t w;
    /* bad CRC */
    w = make_frame(e, f, 100);
    f[50] ^= 0x10;
    tb_rx_inject(e, f, w);
    /* runt: 11 wire bytes < 16 */
    w = make_frame(e, f, 7);
    tb_rx_inject(e, f, w);
    /* oversize: 300 bytes into 256-byte buffers */
    w = make_frame(e, f, 300);
    tb_rx_inject(e, f, w);
    /* exactly buf_size is fine */
    w = make_frame(e, f, 256);
    tb_rx_inject(e, f, w);
    rx_drain(e);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_BAD_CRC), 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_RUNT), 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OVERSIZE), 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OK), 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_HEAD), 1);
    check_desc(e, 0, 0, f, w, 2);
    /* the oversize frame did not write past its buffer (slot 0's buffer is BUFS, next BUFS+BUFSZ) */
    TB_EQ(e, rd32(e, BUFS + 256), 0);
    /* no buffer: 4 entries, 1 used; 3 more fill the ring, 2 more are dropped */
    for (int i = 0; i < 5; i++) {
        w = make_frame(e, f, 64);
        tb_rx_inject(e, f, w);
    }
    rx_drain(e);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_HEAD), 4);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_NOBUF), 2);
    /* disabled: dropped as no buffer too */
    tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_TAIL, 4);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, 0);
    tb_rx_inject(e, f, w);
    rx_drain(e);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_NOBUF), 3);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OVERFLOW), 0);
    (void)wr32;
    return 0;
}

int tb_mac_ring_wrap(struct tb_env *e)
{
    static uint8_t f[TB_MAX_FRAME];
    rx_setup(e, 2, BUFSZ);
    for (uint32_t n = 0; n < 11; n++) {
        uint32_t w = make_frame(e, f, 20 + 37 * n);
        tb_rx_inject(e, f, w);
        rx_drain(e);
        TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_HEAD), n + 1);
        check_desc(e, n & 3, n, f, w, 2);
        tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_TAIL, n + 1);   /* hand the entry back */
    }
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_NOBUF), 0);
    return 0;
}

/* The pause request (nic_mac_rx xoff, the rx_xoff pin): set when at most 4 of the 16 ring entries
 * are free, withdrawn only when at least 8 are (hysteresis), and off while receive is disabled. */
int tb_mac_pause(struct tb_env *e)
{
    static uint8_t f[TB_MAX_FRAME];
    rx_setup(e, 4, BUFSZ);
    TB_EQ(e, e->p->rx_xoff, 0);
    for (uint32_t n = 1; n <= 13; n++) {
        uint32_t w = make_frame(e, f, 64);
        tb_rx_inject(e, f, w);
        rx_drain(e);
        TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_HEAD), n);
        TB_EQ(e, e->p->rx_xoff, n >= 12); /* free = 16 - n <= 4 */
    }
    static const struct { uint32_t tail; int xoff; } steps[] = {{2, 1}, {4, 1}, {5, 0}, {6, 0}};
    for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) { /* used 11, 9 (free 7): on; 8: off */
        tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_TAIL, steps[i].tail);
        tb_cycles(e, 3);
        TB_EQ(e, e->p->rx_xoff, steps[i].xoff);
    }
    for (uint32_t n = 14; n <= 18; n++) { /* used 8 -> 12: on again at free 4 */
        uint32_t w = make_frame(e, f, 64);
        tb_rx_inject(e, f, w);
        rx_drain(e);
        TB_EQ(e, e->p->rx_xoff, n >= 18);
    }
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, 0); /* receive disabled: no request */
    tb_cycles(e, 3);
    TB_EQ(e, e->p->rx_xoff, 0);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_NOBUF), 0);
    return 0;
}

int tb_mac_loopback(struct tb_env *e)
{
    /* random frames sent back to back through TX, stalled randomly by the link, then fed to RX
     * at the link rate (50 bits/cycle): every byte must arrive */
    static uint8_t f[32][TB_MAX_FRAME];
    static uint32_t len[32];
    rx_setup(e, 5, BUFSZ);
    e->tx_random_stall = 1;
    e->rx_rate_bits = 50;
    for (unsigned i = 0; i < 32; i++) {
        len[i] = 12 + tb_rand(e) % 1800;
        for (uint32_t k = 0; k < len[i]; k++) f[i][k] = (uint8_t)tb_rand(e);
        uint32_t off = 0x30000 + i * 2048 + (tb_rand(e) & 15);
        tb_sram_write(e, off, f[i], len[i]);
        while ((tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_STATUS) & NIC_MAC_TX_STATUS_FREE_MASK) == 0) tb_cycles(e, 50);
        tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, off);
        tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, len[i]);
    }
    for (int k = 0; k < 200000 && e->tx_count < 32; k++) tb_cycle(e);
    TB_EQ(e, e->tx_count, 32);
    for (unsigned i = 0; i < 32; i++) tb_rx_inject(e, e->tx[i].data, e->tx[i].len);
    rx_drain(e);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OK), 32);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OVERFLOW), 0);
    static uint8_t got[TB_MAX_FRAME];
    for (unsigned i = 0; i < 32; i++) {
        uint32_t st = rd32(e, RING + i * NIC_RXDESC_SIZE + NIC_RXDESC_STATUS);
        TB_EQ(e, st & NIC_RXDESC_STATUS_LEN_MASK, len[i]);
        tb_sram_read(e, BUFS + i * BUFSZ, got, len[i]);
        TB_EQ(e, memcmp(got, f[i], len[i]), 0);
        if (e->failures) break;
    }
    return 0;
}

/* Cycles to send n frames of len bytes (+ CRC) queued back to back at the PHY's rate `bpc`
 * (phy_rate pin), from the submit of the first to the last beat of the last. */
static uint64_t tx_burst_cycles(struct tb_env *e, uint16_t bpc, unsigned n, uint32_t len)
{
    static uint8_t f[TB_MAX_FRAME];
    unsigned before = e->tx_count;
    e->p->phy_rate = bpc;
    tb_cycles(e, 400); /* idle: the pacing credit refills to its cap (one beat) */
    make_frame(e, f, len);
    tb_sram_write(e, 0x20000, f, len);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, 0x20000);
    uint64_t t0 = e->cycle;
    for (unsigned i = 0; i < n; i++) tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, len);
    for (int k = 0; k < 100000 && e->tx_count < before + n; k++) tb_cycle(e);
    TB_EQ(e, e->tx_count, before + n);
    return e->cycle - t0;
}

int tb_mac_rate(struct tb_env *e)
{
    /* mac.link_rate: the PHY's rate (phy_rate pin; 0 = the LINK_RATE parameter, 50) and the
     * 20 bytes of preamble, start delimiter and inter-frame gap charged per frame */
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_LINK_RATE), NIC_MAC_LINK_RATE_RESET);
    TB_EQ(e, (tb_reg_rd(e, NIC_MAC, NIC_MAC_LINK_RATE) & NIC_MAC_LINK_RATE_BITS_MASK) >> NIC_MAC_LINK_RATE_BITS_SHIFT, 50);
    TB_EQ(e, (tb_reg_rd(e, NIC_MAC, NIC_MAC_LINK_RATE) & NIC_MAC_LINK_RATE_GAP_MASK) >> NIC_MAC_LINK_RATE_GAP_SHIFT, 20);
    e->p->phy_rate = 125;
    tb_cycle(e);
    TB_EQ(e, (tb_reg_rd(e, NIC_MAC, NIC_MAC_LINK_RATE) & NIC_MAC_LINK_RATE_BITS_MASK) >> NIC_MAC_LINK_RATE_BITS_SHIFT, 125);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK);
    /* 4 frames of 996 + 4 bytes: the last beat of the 4th leaves when 3 x (1000 + 20) + 1000
     * bytes of line time (32480 bits) have passed since the line was free, the first beat and a
     * cycle of it already banked while idle (the first beat goes at once) */
    static const uint16_t rates[] = {25, 50, 125, 200};
    for (unsigned i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        uint64_t cyc = tx_burst_cycles(e, rates[i], 4, 996);
        double line = (32480.0 - 64.0 - rates[i]) / rates[i], beats = 4 * 125.0; /* one 64-bit beat per cycle at most */
        double expect = line > beats ? line : beats;
        printf("mac.rate: %u bits/cycle: 4 x 1000-byte frames in %llu cycles (line time %.1f, beats %.0f)\n",
               rates[i], (unsigned long long)cyc, line, beats);
        TB_CHECK(e, (double)cyc >= expect && (double)cyc <= expect + 20);
    }
    tb_cycles(e, 2); /* the counter updates the cycle after the last beat */
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), 16);
    e->p->phy_rate = 0;
    return 0;
}

/* ---- gated frames (tx_submit.gate: the frame waits for its payload's DMA; voided if it failed) ---- */

static void g_dma_submit(struct tb_env *e, uint32_t sram, uint64_t host, uint32_t len, uint8_t tag)
{
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_SRAM, sram);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_HOST_LO, (uint32_t)host);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_HOST_HI, (uint32_t)(host >> 32));
    tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_SUBMIT, (len << NIC_DMA_REQ_SUBMIT_LEN_SHIFT) | ((uint32_t)tag << NIC_DMA_REQ_SUBMIT_TAG_SHIFT));
}

static void g_submit(struct tb_env *e, uint32_t off, uint32_t len, int gate, uint8_t tag)
{
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, off);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, (len << NIC_MAC_TX_SUBMIT_LEN_SHIFT) |
                                                  (gate ? NIC_MAC_TX_SUBMIT_GATE_MASK : 0u) |
                                                  ((uint32_t)tag << NIC_MAC_TX_SUBMIT_TAG_SHIFT));
}

static uint32_t g_done(struct tb_env *e)
{
    return (tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_STATUS) & NIC_MAC_TX_STATUS_DONE_MASK) >> NIC_MAC_TX_STATUS_DONE_SHIFT;
}

int tb_mac_gated(struct tb_env *e)
{
    enum { HDR = 48, PAY = 1000, LEN = HDR + PAY };
    static uint8_t f[LEN + 4], old[LEN];
    const uint32_t a = 0x20000, b = 0x21000, c = 0x22000;
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK);
    /* frame a: header in SRAM, stale bytes where its payload goes; its payload in host memory */
    for (uint32_t i = 0; i < LEN; i++) old[i] = (uint8_t)(i * 5 + 1);
    tb_sram_write(e, a, old, LEN);
    for (uint32_t i = 0; i < PAY; i++) e->hmem[0x1000 + i] = (uint8_t)(i * 13 + 7);
    /* the DMA engine disabled: the request waits in its queue, so must the gated frame and the
     * ungated one behind it */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, 0);
    g_dma_submit(e, a + HDR, TB_HOST_BASE + 0x1000, PAY, 0x21);
    g_submit(e, a, LEN, 1, 0x21);
    tb_sram_write(e, b, old, 100);
    g_submit(e, b, 100, 0, 0);
    tb_cycles(e, 2000);
    TB_EQ(e, e->tx_count, 0);
    TB_EQ(e, g_done(e), 0);
    /* the DMA completes: a goes with its payload, b after it */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    for (int k = 0; k < 20000 && e->tx_count < 2; k++) tb_cycle(e);
    TB_EQ(e, e->tx_count, 2);
    memcpy(f, old, HDR);
    memcpy(f + HDR, e->hmem + 0x1000, PAY);
    uint32_t crc = nic_crc32(f, LEN);
    for (int i = 0; i < 4; i++) f[LEN + i] = (uint8_t)(crc >> (8 * i));
    TB_EQ(e, e->tx[0].len, LEN + 4);
    TB_EQ(e, memcmp(e->tx[0].data, f, LEN + 4), 0);
    TB_EQ(e, e->tx[1].len, 104);
    /* the tag used again: the new request's submit clears its done bit, so the gate waits for the
     * new completion, not the old one */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, 0);
    g_dma_submit(e, c + HDR, TB_HOST_BASE + 0x2000, 64, 0x21);
    g_submit(e, c, HDR + 64, 1, 0x21);
    tb_cycles(e, 1000);
    TB_EQ(e, e->tx_count, 2);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    for (int k = 0; k < 20000 && e->tx_count < 3; k++) tb_cycle(e);
    TB_EQ(e, e->tx_count, 3);
    /* a failed DMA voids its frame: nothing sent, tx_errors and done count it; the next goes */
    uint32_t errs = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), done = g_done(e);
    e->err_lo = TB_HOST_BASE + 0x3000;
    e->err_hi = TB_HOST_BASE + 0x3100;
    g_dma_submit(e, a + HDR, TB_HOST_BASE + 0x3000, PAY, 0x22);
    g_submit(e, a, LEN, 1, 0x22);
    g_submit(e, b, 100, 0, 0);
    for (int k = 0; k < 20000 && e->tx_count < 4; k++) tb_cycle(e);
    tb_cycles(e, 50);
    TB_EQ(e, e->tx_count, 4);
    TB_EQ(e, e->tx[3].len, 104); /* b: the voided frame never reached the link */
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), errs + 1);
    TB_EQ(e, g_done(e), done + 2);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), 4);
    return 0;
}

/* ---- cut-through (mac.tx_ct: a gated frame starts before its DMA completes) ---- */

/* The frame a gated send of `len` bytes at SRAM `off` (header `hdr` bytes already there) with its
 * payload from host offset `hoff` should put on the wire, CRC appended. */
static void ct_expect(struct tb_env *e, uint8_t *f, uint32_t off, uint32_t hdr, uint32_t hoff, uint32_t len)
{
    tb_sram_read(e, off, f, hdr);
    memcpy(f + hdr, e->hmem + hoff, len - hdr);
    uint32_t crc = nic_crc32(f, len);
    for (int i = 0; i < 4; i++) f[len + i] = (uint8_t)(crc >> (8 * i));
}

/* Sends one gated frame (DMA tag `tag`) and runs until it left; returns the host read beats
 * delivered when its first beat went out (the frame's payload is (len - hdr) / 8 beats). */
static uint64_t ct_send(struct tb_env *e, uint32_t off, uint32_t hdr, uint32_t hoff, uint32_t len, uint8_t tag)
{
    unsigned before = e->tx_count;
    uint64_t beats0 = e->dma_rd_beats, at_start = UINT64_MAX;
    g_dma_submit(e, off + hdr, TB_HOST_BASE + hoff, len - hdr, tag);
    g_submit(e, off, len, 1, tag);
    for (int k = 0; k < 100000 && e->tx_count == before; k++) {
        tb_cycle(e);
        if (at_start == UINT64_MAX && (e->tx_cur || e->tx_count != before))
            at_start = e->dma_rd_beats - beats0;
    }
    TB_EQ(e, e->tx_count, before + 1);
    if (e->tx_count == before)
        exit(1); /* (the checks below would index a frame that never came) */
    tb_cycles(e, 4); /* the counters update after the last beat */
    return at_start;
}

static uint32_t ct_thresh(struct tb_env *e)
{
    return (tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_CT) & NIC_MAC_TX_CT_THRESH_MASK) >> NIC_MAC_TX_CT_THRESH_SHIFT;
}

int tb_mac_cut_through(struct tb_env *e)
{
    enum { HDR = 64, PAY = 3000, LEN = HDR + PAY, BEATS = PAY / 8 };
    static uint8_t f[LEN + 4], hdr[HDR];
    const uint32_t a = 0x20000;
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    for (uint32_t i = 0; i < HDR; i++) hdr[i] = (uint8_t)(0xA0 + i);
    tb_sram_write(e, a, hdr, HDR);
    for (uint32_t i = 0; i < 3 * PAY; i++) e->hmem[0x10000 + i] = (uint8_t)(i * 29 + 3);

    /* off (reset: thresh 0): the frame starts only once every payload beat arrived */
    TB_EQ(e, ct_thresh(e), 0);
    uint64_t s = ct_send(e, a, HDR, 0x10000, LEN, 0x31);
    printf("mac.cut_through: store-and-forward: first beat out after %llu of %u payload beats\n",
           (unsigned long long)s, BEATS);
    TB_CHECK(e, s >= BEATS);
    ct_expect(e, f, a, HDR, 0x10000, LEN);
    TB_EQ(e, e->tx[e->tx_count - 1].len, LEN + 4);
    TB_EQ(e, memcmp(e->tx[e->tx_count - 1].data, f, LEN + 4), 0);

    /* on, 10 Gb/s (50 bits a cycle), a quick host: the frame starts after the threshold's bytes,
     * long before its DMA ends, and goes out whole with its good CRC; no underrun */
    e->p->phy_rate = 50;
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_CT, HDR + 512);
    TB_EQ(e, ct_thresh(e), HDR + 512);
    uint32_t ok = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), errs = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS);
    s = ct_send(e, a, HDR, 0x10000 + PAY, LEN, 0x32);
    printf("mac.cut_through: threshold %u: first beat out after %llu of %u payload beats\n", HDR + 512,
           (unsigned long long)s, BEATS);
    TB_CHECK(e, s >= 512 / 8 && s < BEATS / 2);
    ct_expect(e, f, a, HDR, 0x10000 + PAY, LEN);
    TB_EQ(e, e->tx[e->tx_count - 1].len, LEN + 4);
    TB_EQ(e, memcmp(e->tx[e->tx_count - 1].data, f, LEN + 4), 0);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), ok + 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), errs);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_UNDERRUNS), 0);
    TB_EQ(e, ct_thresh(e), HDR + 512);

    /* the tag's earlier use does not count: a new request with tag 0x32 held back (engine off)
     * keeps its frame waiting, though the last write the MAC saw was tag 0x32's and far enough */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, 0);
    unsigned n0 = e->tx_count;
    g_dma_submit(e, a + HDR, TB_HOST_BASE + 0x10000, PAY, 0x32);
    g_submit(e, a, LEN, 1, 0x32);
    tb_cycles(e, 1500);
    TB_EQ(e, e->tx_count, n0);
    TB_EQ(e, e->tx_cur, 0);
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    for (int k = 0; k < 100000 && e->tx_count == n0; k++) tb_cycle(e);
    tb_cycles(e, 4);
    ct_expect(e, f, a, HDR, 0x10000, LEN);
    TB_EQ(e, memcmp(e->tx[e->tx_count - 1].data, f, LEN + 4), 0);

    /* a host slower than the line (64 bits a cycle, reads 600 cycles away: ~3.4 bytes a cycle):
     * the line catches up with the DMA inside the frame, an underrun: the frame goes out with its
     * FCS inverted, counts in tx_errors and tx_underruns, not tx_ok, and the threshold doubles;
     * frames keep failing until it is high enough (or off), and the next frame is good */
    e->p->phy_rate = 64;
    e->dma_latency = 600;
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_CT, HDR + 64);
    uint32_t th = HDR + 64, und = 0;
    for (int round = 0; round < 8; round++) {
        ok = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK);
        errs = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS);
        uint32_t u0 = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_UNDERRUNS);
        s = ct_send(e, a, HDR, 0x10000 + 2 * PAY, LEN, (uint8_t)(0x40 + round));
        ct_expect(e, f, a, HDR, 0x10000 + 2 * PAY, LEN);
        const struct tb_frame *t = &e->tx[e->tx_count - 1];
        TB_EQ(e, t->len, LEN + 4);
        uint32_t u = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_UNDERRUNS) - u0;
        printf("mac.cut_through: slow host, threshold %u: first beat after %llu of %u beats, %s\n", th,
               (unsigned long long)s, BEATS, u ? "underrun (poisoned)" : "sent whole");
        if (u) {
            und++;
            TB_EQ(e, u, 1);
            /* the bytes up to the FCS are the frame's, the FCS is the complement of the good one */
            TB_EQ(e, memcmp(t->data, f, LEN), 0);
            uint32_t got = (uint32_t)t->data[LEN] | (uint32_t)t->data[LEN + 1] << 8 |
                           (uint32_t)t->data[LEN + 2] << 16 | (uint32_t)t->data[LEN + 3] << 24;
            uint32_t want = (uint32_t)f[LEN] | (uint32_t)f[LEN + 1] << 8 | (uint32_t)f[LEN + 2] << 16 |
                            (uint32_t)f[LEN + 3] << 24;
            TB_EQ(e, got, ~want);
            TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), ok);
            TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), errs + 1);
            th = th >= 9216 / 2 ? 0 : th * 2; /* (from half the largest frame on: off) */
            TB_EQ(e, ct_thresh(e), th);
        } else {
            TB_EQ(e, memcmp(t->data, f, LEN + 4), 0);
            TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), ok + 1);
            TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), errs);
            break;
        }
    }
    printf("mac.cut_through: %u underruns, then the threshold %u sent it whole\n", und, th);
    TB_CHECK(e, und >= 1 && und <= 4);

    /* a DMA that fails after the frame started: its first burst arrives (the frame starts), a later
     * one gets a bus error; the FCS waits for the completion, which reports the error: the frame
     * is poisoned (FCS inverted), counted in tx_errors, and the frame behind it goes */
    e->dma_latency = 20;
    e->p->phy_rate = 50;
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_CT, HDR + 256);
    e->err_lo = TB_HOST_BASE + 0x30000 + 1024;
    e->err_hi = TB_HOST_BASE + 0x30000 + 1280;
    for (uint32_t i = 0; i < PAY; i++) e->hmem[0x30000 + i] = (uint8_t)(i * 7 + 1);
    ok = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK);
    errs = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS);
    n0 = e->tx_count;
    uint64_t beats0 = e->dma_rd_beats, at = UINT64_MAX;
    g_dma_submit(e, a + HDR, TB_HOST_BASE + 0x30000, PAY, 0x50);
    g_submit(e, a, LEN, 1, 0x50);
    tb_sram_write(e, 0x24000, hdr, HDR);
    g_submit(e, 0x24000, HDR, 0, 0);
    for (int k = 0; k < 100000 && e->tx_count < n0 + 2; k++) {
        tb_cycle(e);
        if (at == UINT64_MAX && e->tx_cur)
            at = e->dma_rd_beats - beats0;
    }
    tb_cycles(e, 4);
    TB_EQ(e, e->tx_count, n0 + 2);
    printf("mac.cut_through: failing DMA: first beat out after %llu payload beats\n", (unsigned long long)at);
    TB_CHECK(e, at < 1024 / 8); /* it started before the failing burst */
    ct_expect(e, f, a, HDR, 0x30000, LEN);
    const struct tb_frame *t = &e->tx[n0];
    TB_EQ(e, t->len, LEN + 4);
    uint32_t got = (uint32_t)t->data[LEN] | (uint32_t)t->data[LEN + 1] << 8 | (uint32_t)t->data[LEN + 2] << 16 |
                   (uint32_t)t->data[LEN + 3] << 24;
    TB_CHECK(e, got != nic_crc32(t->data, LEN)); /* whatever its bytes, its FCS is not theirs */
    TB_EQ(e, e->tx[n0 + 1].len, HDR + 4);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), errs + 1);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OK), ok + 1);
    e->err_lo = e->err_hi = 0;
    e->p->phy_rate = 0;
    return 0;
}

/* ---- the control queue (tx_submit.ctl: never gated, leaves before the data queue's frames) ---- */

static void c_submit(struct tb_env *e, uint32_t off, uint32_t len)
{
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, off);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, (len << NIC_MAC_TX_SUBMIT_LEN_SHIFT) | NIC_MAC_TX_SUBMIT_CTL_MASK |
                                                  NIC_MAC_TX_SUBMIT_GATE_MASK | (0x31u << NIC_MAC_TX_SUBMIT_TAG_SHIFT));
}

static uint32_t c_status(struct tb_env *e, uint32_t mask, uint32_t shift)
{
    return (tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_CTL_STATUS) & mask) >> shift;
}

int tb_mac_ctl_queue(struct tb_env *e)
{
    enum { LEN = 300, CTL = 60 };
    static uint8_t d[LEN], c1[CTL], c2[CTL];
    const uint32_t a = 0x20000, b = 0x21000, k1 = 0x22000, k2 = 0x22100;
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_FREE_MASK, NIC_MAC_TX_CTL_STATUS_FREE_SHIFT), 16);
    for (uint32_t i = 0; i < LEN; i++) d[i] = (uint8_t)(i * 3 + 1);
    for (uint32_t i = 0; i < CTL; i++) {
        c1[i] = (uint8_t)(0xC0 + i);
        c2[i] = (uint8_t)(0x40 + i);
    }
    tb_sram_write(e, a, d, LEN);
    tb_sram_write(e, b, d, LEN);
    tb_sram_write(e, k1, c1, CTL);
    tb_sram_write(e, k2, c2, CTL);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK);
    /* a data frame gated on a DMA request that waits (the engine stopped), one behind it; then two
     * control frames (gate bit set: ignored in the control queue): they go, the data waits */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, 0);
    g_dma_submit(e, a + 48, TB_HOST_BASE + 0x1000, LEN - 48, 0x31);
    g_submit(e, a, LEN, 1, 0x31);
    g_submit(e, b, LEN, 0, 0);
    c_submit(e, k1, CTL);
    c_submit(e, k2, CTL);
    for (int k = 0; k < 5000 && e->tx_count < 2; k++) tb_cycle(e);
    tb_cycles(e, 500);
    TB_EQ(e, e->tx_count, 2);
    TB_EQ(e, e->tx[0].len, CTL + 4);
    TB_EQ(e, memcmp(e->tx[0].data, c1, CTL), 0); /* in their order */
    TB_EQ(e, memcmp(e->tx[1].data, c2, CTL), 0);
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_DONE_MASK, NIC_MAC_TX_CTL_STATUS_DONE_SHIFT), 2);
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_FREE_MASK, NIC_MAC_TX_CTL_STATUS_FREE_SHIFT), 16);
    TB_EQ(e, g_done(e), 0); /* the data queue counts its own */
    /* the DMA completes: the data frames go, in their order, counted in tx_status.done */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    for (int k = 0; k < 20000 && e->tx_count < 4; k++) tb_cycle(e);
    tb_cycles(e, 50);
    TB_EQ(e, e->tx_count, 4);
    TB_EQ(e, memcmp(e->tx[2].data, d, 48), 0);
    TB_EQ(e, memcmp(e->tx[2].data + 48, e->hmem + 0x1000, LEN - 48), 0);
    TB_EQ(e, memcmp(e->tx[3].data, d, LEN), 0);
    TB_EQ(e, g_done(e), 2);
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_DONE_MASK, NIC_MAC_TX_CTL_STATUS_DONE_SHIFT), 2);
    /* a control frame that is sent while a data frame is on the link waits for it (one frame at a
     * time), then goes before the data frames queued after it */
    g_submit(e, a, LEN, 0, 0); /* starts at once */
    g_submit(e, b, LEN, 0, 0);
    c_submit(e, k2, CTL);
    for (int k = 0; k < 20000 && e->tx_count < 7; k++) tb_cycle(e);
    TB_EQ(e, e->tx_count, 7);
    TB_EQ(e, e->tx[4].len, LEN + 4);
    TB_EQ(e, memcmp(e->tx[5].data, c2, CTL), 0);
    TB_EQ(e, e->tx[6].len, LEN + 4);
    /* a refused control frame (too short) counts in its queue's done and in tx_errors */
    uint32_t errs = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS);
    c_submit(e, k1, 4);
    tb_cycles(e, 50);
    TB_EQ(e, e->tx_count, 7);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_ERRORS), errs + 1);
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_DONE_MASK, NIC_MAC_TX_CTL_STATUS_DONE_SHIFT), 4);
    TB_EQ(e, g_done(e), 4);
    /* the control queue full: the write is dropped and counted in tx_overflow */
    uint32_t ovf = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OVERFLOW);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, 0);
    for (int i = 0; i < 17; i++) c_submit(e, k1, CTL);
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_FREE_MASK, NIC_MAC_TX_CTL_STATUS_FREE_SHIFT), 0);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_OVERFLOW), ovf + 1);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK);
    for (int k = 0; k < 40000 && e->tx_count < 23; k++) tb_cycle(e);
    tb_cycles(e, 50);
    TB_EQ(e, e->tx_count, 23);
    TB_EQ(e, c_status(e, NIC_MAC_TX_CTL_STATUS_DONE_MASK, NIC_MAC_TX_CTL_STATUS_DONE_SHIFT), 20);
    return 0;
}
