/*
 * node.c - one NIC and its host: the per-cycle bridge between nic_top's ports and the models.
 *
 * Role map (each piece is a small state machine advanced once per cycle by node_cycle):
 *   mmio_*   host MMIO requests popped from the PCIe model and offered on the host port; read
 *            data returned with pcie_mmio_read_reply (the NIC answers reads in order)
 *   dmar_*   a DMA read request held while the PCIe queue is full; read beats from the PCIe
 *            model cut into 8-byte link beats on dma_rsp
 *   dmaw_*   DMA write requests collecting their data beats, then handed to the PCIe model;
 *            write-done statuses presented on dma_wack one per cycle
 *   tx_/rx_  frames assembled from tx beats into the switch, and fed from the switch into rx
 * The models are polled only when their next event is due, and an idle NIC with nothing
 * arriving is not evaluated at all (doze, below), so an idle node costs a few dozen instructions
 * per cycle.
 */
#define _POSIX_C_SOURCE 200809L
#include "node.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nic_crc32.h"
#include "nic_model.h"

#define DMAW_SLOTS 8  /* write requests between request and last data beat */
#define DMAW_MAX 8192 /* dma_req_len is 13 bits */
#define WACK_SLOTS 16
#define MMIO_READS PCIE_MMIO_TAGS
#define LINE_MAX 256
/* nic_pins: the inputs up to the skip hook, the last of them (compared to decide whether an idle
 * NIC needs an evaluation), and the outputs (from host_req_ready to the end; pin_hash) */
#define PINS_KEY offsetof(struct nic_pins, skip_valid)
#define PINS_OUT offsetof(struct nic_pins, host_req_ready)

struct dmaw_slot {
    uint64_t addr;
    uint32_t len, filled;
    uint8_t tag;
    uint8_t data[DMAW_MAX];
};

struct node {
    struct node_config cfg;
    nic_model_t *nic;
    struct nic_pins pins;
    hostmem_t *mem;
    os_t *os;
    pcie_t *pcie;
    switch_t *sw;
    struct node_status st;
    bool in_reset;
    bool irq_level;

    /* host MMIO */
    bool mmio_valid;
    struct pcie_mmio mmio;
    struct {
        unsigned tag, shift;
    } rd[MMIO_READS]; /* reads accepted by the NIC, oldest first */
    unsigned rd_head, rd_count;

    /* DMA reads */
    bool dmar_hold;
    uint64_t dmar_addr;
    uint32_t dmar_len;
    uint8_t dmar_tag;
    bool beat_valid;
    struct pcie_rd_beat beat;
    uint32_t beat_pos;

    /* DMA writes */
    struct dmaw_slot *dmaw;
    unsigned dmaw_head, dmaw_count;
    struct pcie_wr_done wack[WACK_SLOTS];
    unsigned wack_head, wack_count;

    /* link */
    uint8_t *tx_buf;
    size_t tx_len;
    uint8_t *rx_buf;
    size_t rx_len, rx_pos;
    bool rx_active;
    int64_t rx_credit; /* PHY pacing of received beats, bits (cfg.phy_bits_per_cycle) */
    /* the MAC's pause request (pins.rx_xoff) as last seen, since when, and as the switch has it */
    bool xoff, xoff_told;
    sim_cycle_t xoff_at;

    /* console line buffer */
    char line[LINE_MAX];
    size_t line_len;
    char tail[NODE_CONSOLE_TAIL][NODE_CONSOLE_LINE]; /* ring of the last complete lines */
    unsigned tail_next, tail_count;
    sim_cycle_t now;
    node_probe_fn probe; /* debugging (nodedbg.c) */
    void *probe_ctx;

    /* idle cycles not evaluated since the last evaluation (doze) and that evaluation's inputs */
    uint64_t doze;
    unsigned char last_in[PINS_KEY];
};

void node_config_default(struct node_config *cfg, unsigned id)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->id = id;
    pcie_config_default(&cfg->pcie);
    hostmem_config_default(&cfg->mem);
    cfg->mem.seed = 0x5EED0000u + id;
    os_config_default(&cfg->os);
    cfg->os.seed = 0x05000000u + id;
    cfg->console = stdout;
    cfg->phy_gap_bytes = SWITCH_GAP_BYTES;
}

static void power_on_reset(node_t *n);
node_t *node_create(const struct node_config *cfg, switch_t *sw, const costs_t *costs)
{
    node_t *n = calloc(1, sizeof *n);

    if (!n)
        return NULL;
    n->cfg = *cfg;
    n->sw = sw;
    n->dmaw = calloc(DMAW_SLOTS, sizeof *n->dmaw);
    n->tx_buf = malloc(SWITCH_MAX_FRAME);
    n->rx_buf = malloc(SWITCH_MAX_FRAME);
    n->mem = hostmem_create(&cfg->mem);
    n->os = n->mem ? os_create(&cfg->os, n->mem, costs) : NULL;
    n->pcie = n->mem ? pcie_create(&cfg->pcie, n->mem) : NULL;
    n->nic = nic_model_open();
    if (!n->dmaw || !n->tx_buf || !n->rx_buf || !n->mem || !n->os || !n->pcie || !n->nic ||
        (sw && cfg->id >= switch_nports(sw))) {
        node_destroy(n);
        return NULL;
    }
    node_set_reset(n, true);
    power_on_reset(n);
    return n;
}

/*
 * Power-on reset, before cycle 0: two clock edges with rst held, so every register takes its reset
 * value (hostif.ctrl.core_reset = 1: the core stays in reset until the host has loaded firmware and
 * releases it, as on a board). Without it the model's registers started at Verilator's initial
 * values and the core ran from an empty instruction memory, trapping at pc 0, until the host first
 * held it in reset. Not simulated time: the node's cycle counters do not move.
 */
static void power_on_reset(node_t *n)
{
    struct nic_pins *p = &n->pins;

    p->rst = 1;
    for (int i = 0; i < 2; i++) {
        nic_model_eval(n->nic, p);
        nic_model_clock(n->nic, p);
    }
}

void node_destroy(node_t *n)
{
    if (!n)
        return;
    nic_model_close(n->nic);
    pcie_destroy(n->pcie);
    os_destroy(n->os);
    hostmem_destroy(n->mem);
    free(n->dmaw);
    free(n->tx_buf);
    free(n->rx_buf);
    free(n);
}

void node_set_reset(node_t *n, bool on)
{
    n->in_reset = on;
}

/* ---- console ----------------------------------------------------------------------------- */

/* The runtime's fatal path (firmware/rt/trap.c) prints these two lines before it halts. */
static void console_watch(node_t *n, const char *l)
{
    static const char trap[] = "ncp: unhandled trap mcause=", fatal[] = "ncp: fatal: ";
    unsigned c, e, v;

    if (!strncmp(l, trap, sizeof trap - 1) && !n->st.halted &&
        sscanf(l + sizeof trap - 1, "%x mepc=%x mtval=%x", &c, &e, &v) == 3) {
        n->st.trapped = true;
        n->st.mcause = c;
        n->st.mepc = e;
        n->st.mtval = v;
    } else if (!strncmp(l, fatal, sizeof fatal - 1) && !n->st.halted) {
        n->st.halted = true;
        n->st.halted_at = n->now;
        snprintf(n->st.why, sizeof n->st.why, "%s", l + sizeof fatal - 1);
    }
}

static void console_flush(node_t *n)
{
    if (!n->line_len)
        return;
    if (n->cfg.console)
        fprintf(n->cfg.console, "[node %u] %.*s\n", n->cfg.id, (int)n->line_len, n->line);
    snprintf(n->tail[n->tail_next], NODE_CONSOLE_LINE, "%.*s", (int)n->line_len, n->line);
    console_watch(n, n->tail[n->tail_next]);
    n->tail_next = (n->tail_next + 1) % NODE_CONSOLE_TAIL;
    if (n->tail_count < NODE_CONSOLE_TAIL)
        n->tail_count++;
    n->line_len = 0;
}

unsigned node_console_tail(const node_t *n, char lines[][NODE_CONSOLE_LINE], unsigned max)
{
    unsigned k = n->tail_count < max ? n->tail_count : max;
    unsigned first = (n->tail_next + NODE_CONSOLE_TAIL - k) % NODE_CONSOLE_TAIL;
    for (unsigned i = 0; i < k; i++)
        memcpy(lines[i], n->tail[(first + i) % NODE_CONSOLE_TAIL], NODE_CONSOLE_LINE);
    return k;
}

static void console_put(node_t *n, char c)
{
    n->st.console_bytes++;
    if (c == '\n') {
        console_flush(n);
        return;
    }
    if (n->line_len == LINE_MAX)
        console_flush(n);
    n->line[n->line_len++] = c;
}

/* ---- inputs for this cycle --------------------------------------------------------------- */

static void drive_mmio(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;

    if (!n->mmio_valid && pcie_mmio_pop(n->pcie, now, &n->mmio) == SIM_OK)
        n->mmio_valid = true;
    p->host_req_valid = n->mmio_valid;
    if (n->mmio_valid) {
        unsigned shift = (unsigned)(n->mmio.addr & 3u) * 8u;
        p->host_req_we = n->mmio.kind == PCIE_MMIO_WRITE;
        p->host_req_bar = (uint8_t)(n->mmio.addr >> NODE_BAR_SHIFT);
        p->host_req_addr = (uint32_t)(n->mmio.addr & ((1u << NODE_BAR_SHIFT) - 1u) & ~3u);
        p->host_req_wdata = (uint32_t)(n->mmio.data << shift);
        p->host_req_be = (uint8_t)((n->mmio.size >= 4 ? 0xFu : (1u << n->mmio.size) - 1u) << (shift / 8));
    }
}

static void drive_dma_rsp(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;

    if (!n->beat_valid && pcie_dma_read_data(n->pcie, now, &n->beat) == SIM_OK) {
        n->beat_valid = true;
        n->beat_pos = 0;
    }
    p->dma_rsp_valid = n->beat_valid;
    if (!n->beat_valid)
        return;
    p->dma_rsp_tag = (uint8_t)n->beat.tag;
    if (n->beat.status != SIM_OK) {
        p->dma_rsp_err = 1;
        p->dma_rsp_last = 1;
        p->dma_rsp_data = 0;
        return;
    }
    uint32_t left = n->beat.len - n->beat_pos;
    uint64_t w = 0;
    memcpy(&w, n->beat.data + n->beat_pos, left < 8 ? left : 8); /* little-endian host */
    p->dma_rsp_err = 0;
    p->dma_rsp_data = w;
    p->dma_rsp_last = n->beat.last && left <= 8;
}

static void drive_wack(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;
    struct pcie_wr_done d;

    while (n->wack_count < WACK_SLOTS && pcie_dma_write_done(n->pcie, now, &d) == SIM_OK) {
        n->wack[(n->wack_head + n->wack_count) % WACK_SLOTS] = d;
        n->wack_count++;
    }
    p->dma_wack_valid = n->wack_count > 0;
    if (n->wack_count) {
        const struct pcie_wr_done *h = &n->wack[n->wack_head];
        p->dma_wack_tag = (uint8_t)h->tag;
        p->dma_wack_err = h->status != SIM_OK;
    }
}

/* Line bits of the beat at rx_pos: it enters the MAC when they have arrived */
static int64_t rx_beat_bits(const node_t *n)
{
    size_t left = n->rx_len - n->rx_pos;
    return left < 8 ? (int64_t)left * 8 : 64;
}

static void drive_rx(node_t *n, sim_cycle_t now, bool paced)
{
    struct nic_pins *p = &n->pins;

    if (!n->rx_active && n->sw && switch_port_next_event(n->sw, n->cfg.id) <= now &&
        switch_egress(n->sw, now, n->cfg.id, n->rx_buf, SWITCH_MAX_FRAME, &n->rx_len) == SIM_OK && n->rx_len > 0) {
        n->rx_active = true;
        n->rx_pos = 0;
        /* handed out as its first bit arrives: its bits are still to come (a gap still owed by
         * the previous frame stays owed) */
        if (n->rx_credit > 0)
            n->rx_credit = 0;
        /* The harness's own view of the frame's FCS, to account for the MAC's CRC drops. */
        if (n->rx_len < 4 || nic_crc32(n->rx_buf, n->rx_len - 4) !=
                                 ((uint32_t)n->rx_buf[n->rx_len - 4] | (uint32_t)n->rx_buf[n->rx_len - 3] << 8 |
                                  (uint32_t)n->rx_buf[n->rx_len - 2] << 16 | (uint32_t)n->rx_buf[n->rx_len - 1] << 24))
            n->st.frames_received_bad_fcs++;
    }
    p->rx_valid = n->rx_active && (!paced || n->rx_credit >= rx_beat_bits(n));
    if (!p->rx_valid)
        return;
    size_t left = n->rx_len - n->rx_pos;
    uint64_t w = 0;
    memcpy(&w, n->rx_buf + n->rx_pos, left < 8 ? left : 8);
    p->rx_data = w;
    p->rx_last = left <= 8;
    p->rx_bytes = (uint8_t)(left < 8 ? left : 8);
}

/* ---- outputs of this cycle (handshakes that fired at the edge) --------------------------- */

static void take_mmio(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;

    if (p->host_rsp_valid) {
        /* The NIC answers reads in order; a response with no read outstanding is a model bug. */
        if (n->rd_count) {
            unsigned tag = n->rd[n->rd_head].tag, shift = n->rd[n->rd_head].shift;
            n->rd_head = (n->rd_head + 1) % MMIO_READS;
            n->rd_count--;
            pcie_mmio_read_reply(n->pcie, now, tag, (uint64_t)(p->host_rsp_rdata >> shift));
        }
    }
    if (n->mmio_valid && p->host_req_ready) {
        if (n->mmio.kind == PCIE_MMIO_READ) {
            unsigned i = (n->rd_head + n->rd_count) % MMIO_READS;
            n->rd[i].tag = n->mmio.tag;
            n->rd[i].shift = (unsigned)(n->mmio.addr & 3u) * 8u;
            n->rd_count++;
        }
        n->mmio_valid = false;
    }
}

static void take_dma(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;

    /* read data beat consumed */
    if (n->beat_valid && p->dma_rsp_ready) {
        if (n->beat.status != SIM_OK || n->beat_pos + 8 >= n->beat.len)
            n->beat_valid = false;
        else
            n->beat_pos += 8;
    }
    if (n->wack_count) { /* presented for exactly one cycle */
        n->wack_head = (n->wack_head + 1) % WACK_SLOTS;
        n->wack_count--;
    }
    /* a new request (before its data: a first beat may come with it) */
    if (p->dma_req_valid && p->dma_req_ready) {
        uint32_t len = p->dma_req_len ? p->dma_req_len : DMAW_MAX;
        if (p->dma_req_write) {
            struct dmaw_slot *s = &n->dmaw[(n->dmaw_head + n->dmaw_count) % DMAW_SLOTS];
            s->addr = p->dma_req_addr;
            s->len = len;
            s->filled = 0;
            s->tag = p->dma_req_tag;
            n->dmaw_count++;
            n->st.dma_write_reqs++;
        } else {
            n->dmar_hold = true;
            n->dmar_addr = p->dma_req_addr;
            n->dmar_len = len;
            n->dmar_tag = p->dma_req_tag;
            n->st.dma_read_reqs++;
        }
    }
    /* write data beat */
    if (p->dma_wdata_valid && n->dmaw_count) {
        struct dmaw_slot *s = &n->dmaw[n->dmaw_head];
        uint32_t take = s->len - s->filled < 8 ? s->len - s->filled : 8;
        memcpy(s->data + s->filled, &p->dma_wdata_data, take);
        s->filled += take;
        if (p->dma_wdata_last || s->filled == s->len) {
            if (pcie_dma_write(n->pcie, now, s->tag, s->addr, s->data, s->len) != SIM_OK)
                n->st.dma_errors++; /* queue sized above the NIC's in-flight limit: not expected */
            n->dmaw_head = (n->dmaw_head + 1) % DMAW_SLOTS;
            n->dmaw_count--;
        }
    }
    if (n->dmar_hold && pcie_dma_read_req(n->pcie, now, n->dmar_tag, n->dmar_addr, n->dmar_len) == SIM_OK)
        n->dmar_hold = false;
}

static void take_link(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;

    if (p->rx_valid) { /* a beat was presented this cycle: the MAC took it (no back-pressure) */
        if (n->cfg.phy_bits_per_cycle) /* a frame's last beat also pays the gap after it */
            n->rx_credit -= rx_beat_bits(n) + (n->rx_pos + 8 >= n->rx_len ? (int64_t)n->cfg.phy_gap_bytes * 8 : 0);
        n->rx_pos += 8;
        if (n->rx_pos >= n->rx_len) {
            n->rx_active = false;
            n->st.frames_received++;
            n->st.bytes_received += n->rx_len;
        }
    }
    if (p->tx_valid && p->tx_ready) {
        unsigned nb = p->tx_last ? p->tx_bytes : 8;
        if (n->tx_len + nb <= SWITCH_MAX_FRAME)
            memcpy(n->tx_buf + n->tx_len, &p->tx_data, nb);
        n->tx_len += nb;
        if (p->tx_last) {
            /* An over-long or headerless frame is the switch's to reject and count (rx_bad). */
            if (n->sw)
                switch_ingress(n->sw, now, n->cfg.id, n->tx_buf,
                               n->tx_len <= SWITCH_MAX_FRAME ? n->tx_len : SWITCH_MAX_FRAME + 1);
            n->st.frames_sent++;
            n->st.bytes_sent += n->tx_len;
            n->tx_len = 0;
        }
    }
}

static void take_misc(node_t *n, sim_cycle_t now)
{
    struct nic_pins *p = &n->pins;

    if (p->console_valid)
        console_put(n, (char)p->console_char);
    if (p->testmb_valid && (p->testmb_status & 1u) && !n->st.test_done) {
        n->st.test_done = true;
        n->st.test_status = p->testmb_status;
        n->st.test_value = p->testmb_value;
        n->st.test_done_at = now;
        console_flush(n);
    }
    /* MSI on the rising edge of the level; if the PCIe queue is full, retried next cycle */
    if (!p->host_irq) {
        n->irq_level = false;
    } else if (!n->irq_level && pcie_irq(n->pcie, now, 0) == SIM_OK) {
        n->irq_level = true;
        n->st.msi_sent++;
    }
}

/* ---- pin hash (node_config.pin_hash) ---------------------------------------------------- */

/* The outputs as seen at the start of cycle `obs` (after the evaluation of obs, or after the edge
 * of obs-1), as one word. The timer's countdown is taken as its absolute cycle (obs + cycles to
 * go; a pending interrupt as all ones), so that an idle cycle looks the same however it was
 * simulated: clocked, skipped by the cluster or not evaluated. */
static uint64_t pins_word(const node_t *n, sim_cycle_t obs)
{
    struct nic_pins q = n->pins; /* padding is zero: the node is calloc'ed, pins set by member */
    const unsigned char *b = (const unsigned char *)&q + PINS_OUT;
    uint64_t h = 0x9E3779B97F4A7C15ull, w;

    q.timer_cycles_to_irq = q.timer_cycles_to_irq ? obs + q.timer_cycles_to_irq : UINT64_MAX;
    for (size_t i = 0; i < sizeof q - PINS_OUT; i += 8) {
        w = 0;
        memcpy(&w, b + i, sizeof q - PINS_OUT - i < 8 ? sizeof q - PINS_OUT - i : 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 33;
    }
    return h;
}

static void pins_fold(node_t *n, uint64_t w, uint64_t times)
{
    uint64_t h = n->st.pin_hash;
    while (times--) {
        h = ((h << 5) | (h >> 59)) ^ w;
        h *= 0x100000001B3ull;
    }
    n->st.pin_hash = h;
}

/* ---- doze: an idle NIC not evaluated ------------------------------------------------------ */

/* Whether this node may leave cycles now..last (last = now + skip) unevaluated, before its
 * inputs are set: nic_top says idle (core quiescent in wfi, DMA, MAC and host port idle, transmit
 * credit full: nothing but mtime, mcycle and the perf cycle counters changes, and those a skip
 * advances exactly), none of its event outputs is active (so the take_* steps would do nothing),
 * the harness holds no transfer, nothing arrives from PCIe or the switch by `last`, and the
 * timer stays short of its compare for one more cycle. The inputs must also be those of the
 * last evaluation (checked by the caller). */
static bool may_doze(const node_t *n, sim_cycle_t due, sim_cycle_t last, uint32_t skip)
{
    const struct nic_pins *p = &n->pins;

    if (n->cfg.eval_all || n->probe || !p->idle || p->rst != n->in_reset)
        return false; /* a probe (debugger, instruction trace) sees every cycle */
    if (p->host_rsp_valid || p->dma_req_valid || p->dma_wdata_valid || p->tx_valid || p->console_valid ||
        p->testmb_valid || (p->host_irq != 0) != n->irq_level)
        return false;
    if (n->mmio_valid || n->rd_count || n->dmar_hold || n->beat_valid || n->dmaw_count || n->wack_count ||
        n->rx_active || n->tx_len)
        return false;
    if (due <= last || (n->sw && switch_port_next_event(n->sw, n->cfg.id) <= last))
        return false;
    return p->timer_cycles_to_irq >= (uint64_t)skip + 2 && n->doze + 1 + skip <= UINT32_MAX;
}

/* Brings the model through the dozed cycles: one clock with their inputs (those of the last
 * evaluation) and a skip of the rest, exactly what evaluating them would have left. The outputs
 * it then shows must be the ones the node presented meanwhile. */
static void doze_catch_up(node_t *n)
{
    struct nic_pins *p = &n->pins, cur = *p;

    memcpy(p, n->last_in, PINS_KEY);
    nic_model_set_cycle(n->nic, n->now - n->doze);
    p->skip_valid = n->doze > 1;
    p->skip_cycles = (uint32_t)(n->doze - 1);
    nic_model_eval(n->nic, p);
    nic_model_clock(n->nic, p);
    if (memcmp((const unsigned char *)p + PINS_OUT, (const unsigned char *)&cur + PINS_OUT, sizeof cur - PINS_OUT)) {
        fprintf(stderr, "node %u: internal error: the NIC's outputs changed in %llu idle cycles before cycle %llu "
                        "that were not evaluated (run with eval_all / --eval-all to compare)\n",
                n->cfg.id, (unsigned long long)n->doze, (unsigned long long)n->now);
        abort();
    }
    memcpy(p, &cur, PINS_OUT); /* this cycle's inputs again */
    n->doze = 0;
}

void node_cycle(node_t *n, sim_cycle_t now, uint32_t skip)
{
    struct nic_pins *p = &n->pins;
    sim_cycle_t due = pcie_next_event(n->pcie), last = now + skip;
    bool doze = may_doze(n, due, last, skip);

    n->now = now;
    p->rst = n->in_reset;
    p->skip_valid = skip != 0;
    p->skip_cycles = skip;
    p->dma_wdata_ready = 1;
    /* PHY pacing of received frames: a beat enters the MAC when its bits have arrived (a frame
     * is handed out as its first bit arrives; its last beat pays the gap after it); the MAC paces
     * its own transmit side to the same rate (phy_rate) and gap */
    bool paced = n->cfg.phy_bits_per_cycle != 0;
    p->phy_rate = (uint16_t)(n->cfg.phy_bits_per_cycle > 0xFFFFu ? 0xFFFFu : n->cfg.phy_bits_per_cycle);
    p->tx_ct_off = n->cfg.tx_ct_off;
    p->tx_ready = 1;
    p->dma_req_ready = !n->dmar_hold && n->dmaw_count < DMAW_SLOTS;
    if (due <= now || n->mmio_valid)
        drive_mmio(n, now);
    else
        p->host_req_valid = 0;
    if (due <= now || n->beat_valid)
        drive_dma_rsp(n, now);
    else
        p->dma_rsp_valid = 0;
    if (due <= now || n->wack_count)
        drive_wack(n, now);
    else
        p->dma_wack_valid = 0;
    drive_rx(n, now, paced);

    if (doze && !memcmp(p, n->last_in, PINS_KEY)) {
        /* not evaluated: the outputs stay, the timer counts down */
        if (n->cfg.pin_hash)
            pins_fold(n, pins_word(n, now), 2 * (1 + (uint64_t)skip));
        p->timer_cycles_to_irq -= 1 + (uint64_t)skip;
        n->doze += 1 + (uint64_t)skip;
        n->st.cycles_not_evaluated += 1 + (uint64_t)skip;
    } else {
        if (n->doze)
            doze_catch_up(n);
        memcpy(n->last_in, p, PINS_KEY);
        n->st.cycles_evaluated++;
        nic_model_set_cycle(n->nic, now);
        nic_model_eval(n->nic, p);
        if (n->cfg.pin_hash) /* this cycle, then the skipped ones (both halves): the outputs of this
                                cycle, which is idle if there is a skip */
            pins_fold(n, pins_word(n, now), 1 + 2 * (uint64_t)skip);
        if (n->probe)
            n->probe(n->probe_ctx, n, now);
        take_mmio(n, now);
        take_dma(n, now);
        take_link(n, now);
        take_misc(n, now);
        nic_model_clock(n->nic, p);
        p->dbg_resume = 0; /* a pulse */
        if (p->rx_xoff != n->xoff) { /* the MAC's pause request changed at the edge (node_pause_sync) */
            n->xoff = p->rx_xoff;
            n->xoff_at = now + 1;
        }
        if (n->cfg.pin_hash) /* after the edge (and the skip) */
            pins_fold(n, pins_word(n, now + 1 + skip), 1);
    }

    if (paced) { /* accrue line time, at most a beat's and a cycle's worth (as the MAC) */
        int64_t add = (int64_t)n->cfg.phy_bits_per_cycle * (1 + (int64_t)skip),
                cap = 64 + (int64_t)n->cfg.phy_bits_per_cycle;
        n->rx_credit = n->rx_credit + add > cap ? cap : n->rx_credit + add;
    }
    n->st.cycles_run++;
    n->st.cycles_skipped += skip;
}

bool node_quiescent(const node_t *n)
{
    return n->pins.idle && !n->mmio_valid && !n->rd_count && !n->dmar_hold && !n->beat_valid && !n->dmaw_count &&
           !n->wack_count && !n->rx_active && !n->tx_len;
}

/* When the switch should have the MAC's pause request as it is now: the link's latency after it
 * changed (a PAUSE frame's flight); SIM_CYCLE_NEVER when the switch has it or ignores pauses. */
static sim_cycle_t pause_due(const node_t *n)
{
    if (!n->sw || n->xoff == n->xoff_told || !switch_pause_enabled(n->sw))
        return SIM_CYCLE_NEVER;
    return sim_cycle_add(n->xoff_at, switch_port_latency(n->sw, n->cfg.id));
}

void node_pause_sync(node_t *n, sim_cycle_t now)
{
    if (pause_due(n) <= now) {
        switch_pause(n->sw, now, n->cfg.id, n->xoff);
        n->xoff_told = n->xoff;
    }
}

sim_cycle_t node_next_event(const node_t *n, sim_cycle_t now)
{
    sim_cycle_t t = pcie_next_event(n->pcie);

    if (n->sw)
        t = sim_cycle_min(sim_cycle_min(t, switch_port_next_event(n->sw, n->cfg.id)), pause_due(n));
    if (!n->in_reset && n->pins.core_sleeping)
        t = sim_cycle_min(t, sim_cycle_add(now, n->pins.timer_cycles_to_irq));
    return t;
}

int node_trace_open(node_t *n, const char *path)
{
    return nic_model_trace_open(n->nic, path);
}

struct nic_model *node_nic(node_t *n)
{
    return n->nic;
}

/* The child of node_mmio_peek: the host's reads in flight first (their responses are not ours),
 * then one read per word through BAR0, as the host does, with nothing else arriving. */
static int peek_child(node_t *n, uint32_t off, uint32_t *val, unsigned words)
{
    struct nic_pins *p = &n->pins;
    unsigned skip = n->rd_count, sent = 0, got = 0;
    bool theirs = n->mmio_valid; /* a host request presented and not yet taken: it goes first */

    nic_model_trace_forget(n->nic);
    if (n->doze)
        doze_catch_up(n);
    for (unsigned c = 0; c < 10000 && got < words; c++) {
        p->skip_valid = 0;
        p->dma_req_ready = 0;
        p->dma_rsp_valid = 0;
        p->dma_wack_valid = 0;
        p->rx_valid = 0;
        p->dbg_halt_req = 1;
        p->dbg_resume = 0;
        p->host_req_valid = theirs || sent < words;
        if (!theirs && sent < words) {
            p->host_req_we = 0;
            p->host_req_bar = 0;
            p->host_req_be = 0xF;
            p->host_req_addr = off + 4u * sent;
        }
        nic_model_eval(n->nic, p);
        if (p->host_rsp_valid) {
            if (skip)
                skip--;
            else
                val[got++] = p->host_rsp_rdata;
        }
        if (p->host_req_valid && p->host_req_ready) {
            if (theirs) {
                skip += n->mmio.kind == PCIE_MMIO_READ;
                theirs = false;
            } else {
                sent++;
            }
        }
        nic_model_clock(n->nic, p);
    }
    return got == words ? 0 : -1;
}

int node_mmio_peek(node_t *n, uint32_t off, uint32_t *val, unsigned words)
{
    int fd[2];
    if (!words)
        return 0;
    if (pipe(fd))
        return -1;
    fflush(NULL); /* nothing buffered twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        int ok = peek_child(n, off, val, words) == 0;
        size_t len = ok ? words * sizeof *val : 0;
        _exit(ok && write(fd[1], val, len) == (ssize_t)len ? 0 : 1);
    }
    close(fd[1]);
    size_t len = words * sizeof *val, have = 0;
    while (have < len) {
        ssize_t r = read(fd[0], (char *)val + have, len - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return have == len ? 0 : -1;
}

struct nic_pins *node_pins(node_t *n)
{
    return &n->pins;
}

void node_set_probe(node_t *n, node_probe_fn fn, void *ctx)
{
    n->probe = fn;
    n->probe_ctx = ctx;
}

unsigned node_id(const node_t *n)
{
    return n->cfg.id;
}

pcie_t *node_pcie(node_t *n)
{
    return n->pcie;
}

hostmem_t *node_hostmem(node_t *n)
{
    return n->mem;
}

os_t *node_os(node_t *n)
{
    return n->os;
}

const struct node_status *node_status(const node_t *n)
{
    return &n->st;
}
