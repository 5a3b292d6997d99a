/*
 * RTL testbench cases that run the core: the data-port decoder (SRAM, IMEM loads, MMIO, access
 * faults on IMEM stores, unmapped addresses and missing register blocks), interrupts through
 * intc with wfi and the `idle` hook, and the SRAM bandwidth benchmark with the core, the DMA
 * engine and the MAC all streaming (prints bytes/cycle).
 *
 * Programs are assembled here by a few RV32I encoders and loaded through the IMEM window.
 */
#include "tb_cases.h"

#include <string.h>

#include "nic_crc32.h"
#include "nic_memmap.h"
#include "nic_regs.h"

enum { X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15, X16, X17 };
#define CSR_MSTATUS 0x300
#define CSR_MIE 0x304
#define CSR_MTVEC 0x305
#define CSR_MEPC 0x341
#define CSR_MCAUSE 0x342

struct prog {
    uint32_t w[256];
    unsigned n;
};

static void emit(struct prog *p, uint32_t insn) { p->w[p->n++] = insn; }
static uint32_t i_type(int imm, unsigned rs1, unsigned f3, unsigned rd, unsigned op)
{
    return ((uint32_t)(imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op;
}
static void addi(struct prog *p, unsigned rd, unsigned rs1, int imm) { emit(p, i_type(imm, rs1, 0, rd, 0x13)); }
static void lw(struct prog *p, unsigned rd, unsigned rs1, int imm) { emit(p, i_type(imm, rs1, 2, rd, 0x03)); }
static void sw(struct prog *p, unsigned rs2, unsigned rs1, int imm)
{
    emit(p, ((uint32_t)((imm >> 5) & 0x7F) << 25) | (rs2 << 20) | (rs1 << 15) | (2u << 12) |
                ((uint32_t)(imm & 0x1F) << 7) | 0x23);
}
static void li(struct prog *p, unsigned rd, uint32_t v)
{
    uint32_t hi = (v + 0x800) & 0xFFFFF000u;
    emit(p, hi | (rd << 7) | 0x37);
    addi(p, rd, rd, (int)(v - hi));
}
static void csrrw(struct prog *p, unsigned rd, unsigned csr, unsigned rs1) { emit(p, i_type((int)csr, rs1, 1, rd, 0x73)); }
static void csrrs(struct prog *p, unsigned rd, unsigned csr, unsigned rs1) { emit(p, i_type((int)csr, rs1, 2, rd, 0x73)); }
static void csrrsi(struct prog *p, unsigned csr, unsigned uimm) { emit(p, i_type((int)csr, uimm, 6, 0, 0x73)); }
static void slli(struct prog *p, unsigned rd, unsigned rs1, unsigned sh) { emit(p, i_type((int)sh, rs1, 1, rd, 0x13)); }
static void or_(struct prog *p, unsigned rd, unsigned rs1, unsigned rs2) { emit(p, (rs2 << 20) | (rs1 << 15) | (6u << 12) | (rd << 7) | 0x33); }
static void jal(struct prog *p, unsigned rd, int off)
{
    uint32_t o = (uint32_t)off;
    emit(p, (((o >> 20) & 1) << 31) | (((o >> 1) & 0x3FF) << 21) | (((o >> 11) & 1) << 20) |
                (((o >> 12) & 0xFF) << 12) | (rd << 7) | 0x6F);
}
/* bne to an absolute word index (both in this program) */
static void bne_to(struct prog *p, unsigned rs1, unsigned rs2, unsigned target)
{
    int off = (int)(target - p->n) * 4;
    uint32_t o = (uint32_t)off;
    emit(p, (((o >> 12) & 1) << 31) | (((o >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | (1u << 12) |
                (((o >> 1) & 0xF) << 8) | (((o >> 11) & 1) << 7) | 0x63);
}
static void org(struct prog *p, unsigned word) { while (p->n < word) emit(p, 0x00000013); }

static void load_and_run(struct tb_env *e, const struct prog *p)
{
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL, NIC_HOSTIF_CTRL_CORE_RESET_MASK | NIC_HOSTIF_CTRL_WIN_IMEM_MASK);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, 0);
    for (unsigned i = 0; i < p->n; i++) tb_host_wr(e, NIC_BAR_WINDOW_CODE, 4 * i, p->w[i]);
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL, 0);
}

static int testmb_cond(struct tb_env *e) { return e->p->testmb_status != 0; }

#define FAIL_AT 80      /* word index of the failure stub */
#define HANDLER_AT 64   /* word index of the trap handler */
#define DATA_AT 96      /* word index of a data word read with lw */

int tb_core_decoder(struct tb_env *e)
{
    struct prog p = {{0}, 0};
    li(&p, X5, NIC_TESTMB_BASE);
    li(&p, X6, NIC_IMEM_BASE + 4 * HANDLER_AT);
    csrrw(&p, X0, CSR_MTVEC, X6);
    addi(&p, X13, X0, 0);
    li(&p, X1, NIC_SRAM_BASE + 0x1230);
    li(&p, X2, 0x5A5AA5A5u);
    sw(&p, X2, X1, 4);                              /* SRAM store + load, lane 1 */
    lw(&p, X3, X1, 4);
    bne_to(&p, X3, X2, FAIL_AT);
    lw(&p, X4, X0, 4 * DATA_AT);                    /* IMEM load (.rodata) */
    li(&p, X7, 0x12345678u);
    bne_to(&p, X4, X7, FAIL_AT);
    li(&p, X8, NIC_INTC_BASE);                      /* MMIO: a block ID */
    lw(&p, X9, X8, 0);
    li(&p, X10, NIC_INTC_ID_VALUE);
    bne_to(&p, X9, X10, FAIL_AT);
    sw(&p, X2, X0, 4 * DATA_AT);                    /* IMEM store: store access fault (7) */
    li(&p, X11, 0x80000000u);
    lw(&p, X12, X11, 0);                            /* unmapped: load access fault (5) */
    li(&p, X11, NIC_MMIO_BASE + 0xF000);
    lw(&p, X12, X11, 0);                            /* no register block there: fault (5) */
    li(&p, X16, NIC_CONSOLE_BASE);
    addi(&p, X17, X0, 'o');
    sw(&p, X17, X16, NIC_CONSOLE_TXDATA);
    addi(&p, X17, X0, 'k');
    sw(&p, X17, X16, NIC_CONSOLE_TXDATA);
    sw(&p, X13, X5, NIC_TESTMB_VALUE);
    addi(&p, X15, X0, 1);
    sw(&p, X15, X5, NIC_TESTMB_STATUS);
    jal(&p, X0, 0);
    org(&p, HANDLER_AT);                            /* x13 = x13 << 4 | mcause; skip the insn */
    csrrs(&p, X12, CSR_MCAUSE, X0);
    slli(&p, X13, X13, 4);
    or_(&p, X13, X13, X12);
    csrrs(&p, X14, CSR_MEPC, X0);
    addi(&p, X14, X14, 4);
    csrrw(&p, X0, CSR_MEPC, X14);
    emit(&p, 0x30200073);                           /* mret */
    org(&p, FAIL_AT);
    addi(&p, X15, X0, 3);
    sw(&p, X15, X5, NIC_TESTMB_STATUS);
    jal(&p, X0, 0);
    org(&p, DATA_AT);
    emit(&p, 0x12345678u);

    load_and_run(e, &p);
    TB_CHECK(e, tb_wait(e, testmb_cond, 20000));
    TB_EQ(e, e->p->testmb_status, 1);
    TB_EQ(e, e->p->testmb_value, 0x755);
    TB_EQ(e, e->console_len, 2);
    TB_EQ(e, memcmp(e->console, "ok", 2), 0);
    uint32_t v;
    tb_sram_read(e, 0x1234, &v, 4);
    TB_EQ(e, v, 0x5A5AA5A5u);
    TB_CHECK(e, tb_reg_rd(e, NIC_PERF, NIC_PERF_INSTRET) > 30);
    return 0;
}

static int idle_cond(struct tb_env *e) { return e->p->idle; }

int tb_core_irq(struct tb_env *e)
{
    struct prog p = {{0}, 0};
    li(&p, X5, NIC_TESTMB_BASE);
    li(&p, X6, NIC_IMEM_BASE + 4 * HANDLER_AT);
    csrrw(&p, X0, CSR_MTVEC, X6);
    li(&p, X8, NIC_INTC_BASE);
    li(&p, X9, NIC_INTC_ENABLE_HOST_MASK);
    sw(&p, X9, X8, NIC_INTC_ENABLE);
    li(&p, X10, 0x800);                             /* mie.MEIE */
    csrrs(&p, X0, CSR_MIE, X10);
    csrrsi(&p, CSR_MSTATUS, 8);                     /* mstatus.MIE */
    unsigned loop = p.n;
    emit(&p, 0x10500073);                           /* wfi */
    jal(&p, X0, (int)(loop - p.n) * 4);
    org(&p, HANDLER_AT);
    sw(&p, X9, X8, NIC_INTC_ACK);
    addi(&p, X15, X0, 1);
    sw(&p, X15, X5, NIC_TESTMB_STATUS);
    jal(&p, X0, 0);

    load_and_run(e, &p);
    TB_CHECK(e, tb_wait(e, idle_cond, 5000));
    TB_EQ(e, e->p->core_sleeping, 1);
    uint32_t s0 = tb_reg_rd(e, NIC_PERF, NIC_PERF_SLEEP_CYCLES);
    tb_cycles(e, 100);
    uint32_t s1 = tb_reg_rd(e, NIC_PERF, NIC_PERF_SLEEP_CYCLES);
    TB_CHECK(e, s1 - s0 >= 100);
    TB_EQ(e, e->p->testmb_status, 0);
    /* the host posts a command: intc source `host` -> MEIP -> the handler runs */
    tb_reg_wr(e, NIC_INTC, NIC_INTC_RAISE, NIC_INTC_RAISE_HOST_MASK);
    TB_CHECK(e, tb_wait(e, testmb_cond, 2000));
    TB_EQ(e, e->p->testmb_status, 1);
    TB_EQ(e, e->p->idle, 0);
    tb_cycles(e, 10);
    TB_EQ(e, tb_reg_rd(e, NIC_INTC, NIC_INTC_PENDING), 0);
    return 0;
}

int tb_sram_bandwidth(struct tb_env *e)
{
    /* the core loops on SRAM loads and stores; the DMA engine moves 4 KiB requests both ways with
     * its queue kept full; the MAC transmits 1500-byte frames back to back at the link rate and
     * receives frames at the link rate. Bytes per cycle of each requester over a fixed window. */
    static uint8_t frame[1504];
    struct prog p = {{0}, 0};
    li(&p, X1, NIC_SRAM_BASE + 0x70000);
    unsigned loop = p.n;
    lw(&p, X2, X1, 0);
    sw(&p, X2, X1, 4);
    lw(&p, X3, X1, 16);
    sw(&p, X3, X1, 20);
    jal(&p, X0, (int)(loop - p.n) * 4);
    for (uint32_t i = 0; i < 1500; i++) frame[i] = (uint8_t)tb_rand(e);
    tb_sram_write(e, 0x60000, frame, 1500);
    uint32_t v = 0xC0FFEE01u;
    tb_sram_write(e, 0x70000, &v, 4);
    v = 0x0BEEF002u;
    tb_sram_write(e, 0x70010, &v, 4);
    for (uint32_t i = 0; i < 4096; i++) e->hmem[0x40000 + i] = (uint8_t)(i * 13);
    tb_sram_write(e, 0x40000, e->hmem + 0x40000, 4096);   /* the to-host source */
    tb_reg_wr(e, NIC_DMA, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK | NIC_MAC_CTRL_RX_ENABLE_MASK);
    /* RX ring: 32 entries of 2 KiB at 0x10000, handed back continuously */
    for (unsigned i = 0; i < 32; i++) {
        uint32_t d[NIC_RXDESC_WORDS] = {0};
        d[NIC_RXDESC_BUF_IDX] = 0x10000 + i * 2048;
        tb_sram_write(e, 0x8000 + i * NIC_RXDESC_SIZE, d, sizeof(d));
    }
    tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_RING, 0x8000);
    tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_CFG, (5u << NIC_MAC_RX_CFG_ENTRIES_LOG2_SHIFT) | (2048u << NIC_MAC_RX_CFG_BUF_SIZE_SHIFT));
    uint8_t rxf[1504];
    memcpy(rxf, frame, 1500);
    uint32_t c = nic_crc32(rxf, 1500);
    for (int i = 0; i < 4; i++) rxf[1500 + i] = (uint8_t)(c >> (8 * i));
    e->rx_rate_bits = 50;    /* frames arrive at the link rate */
    load_and_run(e, &p);

    const unsigned warm = 3000, window = 30000;
    uint64_t t0 = 0, dma0 = 0, tx0 = 0, rxok0 = 0;
    uint32_t ins0 = 0, conf0 = 0;
    unsigned n_req = 0, n_cpl = 0, bad_cpl = 0;
    while (e->cycle < warm + window + 2000) {
        if (t0 == 0 && e->cycle >= warm) {
            t0 = e->cycle;
            dma0 = e->dma_rd_beats + e->dma_wr_beats;
            tx0 = e->tx_bytes_total;
            ins0 = tb_reg_rd(e, NIC_PERF, NIC_PERF_INSTRET);
            conf0 = tb_reg_rd(e, NIC_PERF, NIC_PERF_SRAM_CONFLICTS);
            rxok0 = tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OK);
        }
        if (t0 && e->cycle >= t0 + window) break;
        uint32_t st = tb_reg_rd(e, NIC_DMA, NIC_DMA_STATUS);
        for (uint32_t k = (st & NIC_DMA_STATUS_CPL_COUNT_MASK) >> NIC_DMA_STATUS_CPL_COUNT_SHIFT; k; k--) {
            if (tb_reg_rd(e, NIC_DMA, NIC_DMA_CPL_HEAD) & NIC_DMA_CPL_HEAD_ERR_MASK) bad_cpl++;
            tb_reg_wr(e, NIC_DMA, NIC_DMA_CPL_POP, 0);
            n_cpl++;
        }
        for (uint32_t k = st & NIC_DMA_STATUS_REQ_FREE_MASK; k; k--) {
            int to_host = n_req & 1;
            tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_SRAM, to_host ? 0x40000 : 0x50000);
            tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_HOST_LO, (uint32_t)(TB_HOST_BASE + (to_host ? 0x80000 : 0x40000)));
            tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_HOST_HI, (uint32_t)((TB_HOST_BASE + 0x40000) >> 32));
            tb_reg_wr(e, NIC_DMA, NIC_DMA_REQ_SUBMIT, 4096u | (to_host ? NIC_DMA_REQ_SUBMIT_TO_HOST_MASK : 0));
            n_req++;
        }
        uint32_t ts = tb_reg_rd(e, NIC_MAC, NIC_MAC_TX_STATUS);
        for (uint32_t k = ts & NIC_MAC_TX_STATUS_FREE_MASK; k; k--) {
            tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_ADDR, 0x60000);
            tb_reg_wr(e, NIC_MAC, NIC_MAC_TX_SUBMIT, 1500);
        }
        if (!tb_rx_busy(e))
            for (int k = 0; k < 4; k++) tb_rx_inject(e, rxf, sizeof(rxf));
        tb_reg_wr(e, NIC_MAC, NIC_MAC_RX_TAIL, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_HEAD));
        tb_cycles(e, 100);
    }
    uint64_t cyc = e->cycle - t0;
    double dma_b = (double)(e->dma_rd_beats + e->dma_wr_beats - dma0) * 8;
    double tx_b = (double)(e->tx_bytes_total - tx0);
    uint32_t ins = tb_reg_rd(e, NIC_PERF, NIC_PERF_INSTRET) - ins0;
    double core_b = (double)ins * 4.0 / 5.0 * 4.0;     /* 4 of 5 loop instructions access SRAM */
    uint32_t conf = tb_reg_rd(e, NIC_PERF, NIC_PERF_SRAM_CONFLICTS) - conf0;
    double rx_b = (double)(tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OK) - rxok0) * 1504;
    printf("sram.bandwidth over %llu cycles: DMA %.2f B/cycle, MAC TX %.2f B/cycle, MAC RX %.2f B/cycle, "
           "core %.2f B/cycle (%.3f loads+stores/cycle), total %.2f B/cycle; conflict cycles %.1f%%\n",
           (unsigned long long)cyc, dma_b / cyc, tx_b / cyc, rx_b / cyc, core_b / cyc, core_b / 4 / cyc,
           (dma_b + tx_b + rx_b + core_b) / cyc, 100.0 * conf / cyc);
    /* every requester made progress; the targets: 6.25 B/cycle each for DMA and TX */
    TB_CHECK(e, dma_b / cyc >= 6.25);
    TB_CHECK(e, tx_b / cyc >= 6.0);
    TB_CHECK(e, rx_b / cyc >= 5.5);
    TB_CHECK(e, core_b > 0);
    TB_EQ(e, bad_cpl, 0);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_OVERFLOW), 0);
    TB_EQ(e, tb_reg_rd(e, NIC_MAC, NIC_MAC_RX_BAD_CRC), 0);
    /* data integrity under the contention: DMA copies, frames, the core's words */
    TB_EQ(e, memcmp(e->hmem + 0x80000, e->hmem + 0x40000, 4096), 0);
    for (unsigned i = 0; i < e->tx_count && i < TB_MAX_FRAMES; i++) {
        TB_EQ(e, e->tx[i].len, 1504);
        TB_EQ(e, nic_crc32_update(NIC_CRC32_INIT, e->tx[i].data, e->tx[i].len), 0xDEBB20E3u);
        TB_EQ(e, memcmp(e->tx[i].data, frame, 1500), 0);
        if (e->failures) break;
    }
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_CTRL, NIC_HOSTIF_CTRL_CORE_RESET_MASK);
    uint32_t w[6];
    tb_sram_read(e, 0x70000, w, sizeof(w));
    TB_EQ(e, w[1], 0xC0FFEE01u);
    TB_EQ(e, w[5], 0x0BEEF002u);
    (void)n_cpl;
    return 0;
}
