/*
 * tb_env: host, host memory, DMA target and link models around the Verilated nic_top.
 * One call of tb_cycle() = drive the model-side inputs, settle, act on the handshakes, clock.
 */
#include "tb_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_regs.h"
#include "nic_memmap.h"

uint32_t tb_rand(struct tb_env *e)
{
    uint32_t x = e->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    e->rng = x;
    return x;
}

void tb_check(struct tb_env *e, int ok, const char *what, const char *file, int line)
{
    if (!ok) {
        e->failures++;
        fprintf(stderr, "%s:%d: check failed at cycle %llu: %s\n", file, line,
                (unsigned long long)e->cycle, what);
    }
}

void tb_check_eq(struct tb_env *e, uint64_t got, uint64_t want, const char *what, const char *file, int line)
{
    if (got != want) {
        e->failures++;
        fprintf(stderr, "%s:%d: check failed at cycle %llu: %s: got 0x%llx, want 0x%llx\n", file, line,
                (unsigned long long)e->cycle, what, (unsigned long long)got, (unsigned long long)want);
    }
}

struct tb_env *tb_env_new(uint32_t seed)
{
    struct tb_env *e = calloc(1, sizeof(*e));
    if (!e) abort();
    e->nic = nic_model_open();
    e->p = &e->pins;
    e->rng = seed ? seed : 1;
    e->hmem = calloc(1, TB_HOST_SIZE);
    e->tx = calloc(TB_MAX_FRAMES, sizeof(struct tb_frame));
    e->rx = calloc(TB_MAX_FRAMES, sizeof(struct tb_frame));
    if (!e->nic || !e->hmem || !e->tx || !e->rx) abort();
    e->dma_latency = 20;
    e->err_lo = e->err_hi = 0;
    tb_reset(e);
    return e;
}

void tb_env_free(struct tb_env *e)
{
    nic_model_close(e->nic);
    free(e->hmem);
    free(e->tx);
    free(e->rx);
    free(e);
}

void tb_reset(struct tb_env *e)
{
    e->p->rst = 1;
    tb_cycles(e, 4);
    e->p->rst = 0;
}

static int range_err(const struct tb_env *e, uint64_t a, uint32_t len)
{
    if (a < TB_HOST_BASE || a + len > TB_HOST_BASE + TB_HOST_SIZE) return 1;
    return a < e->err_hi && a + len > e->err_lo;
}

static void drive(struct tb_env *e)
{
    struct nic_pins *p = e->p;
    int stall = e->dma_random_stall;
    p->dma_req_ready = !(stall && (tb_rand(e) & 3) == 0) && (e->rq_tail - e->rq_head < TB_Q) &&
                       (e->wq_tail - e->wq_head < TB_Q);
    p->dma_wdata_ready = !(stall && (tb_rand(e) & 3) == 0);
    /* read data for the oldest read */
    p->dma_rsp_valid = 0;
    if (e->rq_head != e->rq_tail) {
        struct tb_dreq *r = &e->rq[e->rq_head % TB_Q];
        if (e->cycle >= r->ready_at && !(stall && (tb_rand(e) & 3) == 0)) {
            uint32_t left = r->len - r->done, n = left < 8 ? left : 8;
            uint64_t d = 0;
            if (!r->err)
                for (uint32_t i = 0; i < n; i++)
                    d |= (uint64_t)e->hmem[r->addr - TB_HOST_BASE + r->done + i] << (8 * i);
            p->dma_rsp_valid = 1;
            p->dma_rsp_tag = r->tag;
            p->dma_rsp_data = d;
            p->dma_rsp_last = (left <= 8);
            p->dma_rsp_err = r->err;
        }
    }
    p->dma_wack_valid = 0;
    if (e->aq_head != e->aq_tail) {
        struct tb_dreq *a = &e->aq[e->aq_head % TB_Q];
        if (e->cycle >= a->ready_at) {
            p->dma_wack_valid = 1;
            p->dma_wack_tag = a->tag;
            p->dma_wack_err = a->err;
        }
    }
    p->tx_ready = !(e->tx_random_stall && (tb_rand(e) & 3) == 0);
    /* RX injection: one beat per cycle, rx_gap idle cycles between frames */
    p->rx_valid = 0;
    p->rx_last = 0;
    if (e->rx_rate_bits && e->rx_credit < 64) e->rx_credit += e->rx_rate_bits;
    if (e->rx_gap_left) {
        e->rx_gap_left--;
    } else if (e->rx_head != e->rx_tail && (!e->rx_rate_bits || e->rx_credit >= 64)) {
        if (e->rx_rate_bits) e->rx_credit -= 64;
        struct tb_frame *f = &e->rx[e->rx_head % TB_MAX_FRAMES];
        uint32_t left = f->len - e->rx_pos, n = left < 8 ? left : 8;
        uint64_t d = 0;
        for (uint32_t i = 0; i < n; i++) d |= (uint64_t)f->data[e->rx_pos + i] << (8 * i);
        p->rx_valid = 1;
        p->rx_data = d;
        p->rx_bytes = (uint8_t)n;
        p->rx_last = (left <= 8);
        e->rx_pos += n;
        if (p->rx_last) {
            e->rx_head++;
            e->rx_pos = 0;
            e->rx_gap_left = e->rx_gap;
        }
    }
}

static void observe(struct tb_env *e)
{
    struct nic_pins *p = e->p;
    if (p->dma_req_valid && p->dma_req_ready) {
        struct tb_dreq r = {0};
        r.addr = p->dma_req_addr;
        r.len = p->dma_req_len;
        r.tag = p->dma_req_tag;
        r.ready_at = e->cycle + e->dma_latency;
        r.err = (uint8_t)range_err(e, r.addr, r.len);
        e->dma_req_count++;
        if (p->dma_req_write) e->wq[e->wq_tail++ % TB_Q] = r;
        else e->rq[e->rq_tail++ % TB_Q] = r;
        e->dma_inflight++;
        if (e->dma_inflight > e->dma_max_inflight) e->dma_max_inflight = e->dma_inflight;
    }
    if (p->dma_rsp_valid && p->dma_rsp_ready) {
        struct tb_dreq *r = &e->rq[e->rq_head % TB_Q];
        uint32_t left = r->len - r->done;
        r->done += left < 8 ? left : 8;
        e->dma_rd_beats++;
        if (r->done >= r->len) {
            e->rq_head++;
            e->dma_inflight--;
        }
    }
    if (p->dma_wdata_valid && p->dma_wdata_ready) {
        TB_CHECK(e, e->wq_head != e->wq_tail);
        if (e->wq_head != e->wq_tail) {
            struct tb_dreq *w = &e->wq[e->wq_head % TB_Q];
            uint32_t left = w->len - w->done, n = left < 8 ? left : 8;
            if (!w->err)
                for (uint32_t i = 0; i < n; i++)
                    e->hmem[w->addr - TB_HOST_BASE + w->done + i] = (uint8_t)(p->dma_wdata_data >> (8 * i));
            w->done += n;
            e->dma_wr_beats++;
            TB_EQ(e, p->dma_wdata_last, w->done >= w->len);
            if (p->dma_wdata_last) {
                struct tb_dreq a = *w;
                a.ready_at = e->cycle + e->dma_latency / 2;
                e->aq[e->aq_tail++ % TB_Q] = a;
                e->wq_head++;
            }
        }
    }
    if (p->dma_wack_valid) {
        e->aq_head++;
        e->dma_inflight--;
    }
    if (p->tx_valid && p->tx_ready) {
        struct tb_frame *f = &e->tx[e->tx_count % TB_MAX_FRAMES];
        for (unsigned i = 0; i < p->tx_bytes && e->tx_cur < TB_MAX_FRAME; i++)
            f->data[e->tx_cur++] = (uint8_t)(p->tx_data >> (8 * i));
        e->tx_bytes_total += p->tx_bytes;
        if (p->tx_last) {
            f->len = e->tx_cur;
            e->tx_cur = 0;
            e->tx_count++;
        }
    }
    if (p->host_rsp_valid) {
        e->last_rsp = p->host_rsp_rdata;
        e->rsp_seen = 1;
    }
    if (p->console_valid && e->console_len + 1 < sizeof(e->console))
        e->console[e->console_len++] = (char)p->console_char;
}

void tb_cycle(struct tb_env *e)
{
    drive(e);
    nic_model_eval(e->nic, e->p);
    observe(e);
    nic_model_clock(e->nic, e->p);
    e->cycle++;
}

void tb_cycles(struct tb_env *e, unsigned n)
{
    while (n--) tb_cycle(e);
}

int tb_wait(struct tb_env *e, int (*cond)(struct tb_env *), unsigned budget)
{
    while (budget--) {
        if (cond(e)) return 1;
        tb_cycle(e);
    }
    return cond(e);
}

/* One host access: hold valid until accepted (bounded). */
static int host_issue(struct tb_env *e, unsigned bar, uint32_t addr, uint32_t data, unsigned be, int we)
{
    struct nic_pins *p = e->p;
    p->host_req_valid = 1;
    p->host_req_we = (uint8_t)we;
    p->host_req_bar = (uint8_t)bar;
    p->host_req_addr = addr;
    p->host_req_wdata = data;
    p->host_req_be = (uint8_t)be;
    e->rsp_seen = 0;
    for (int i = 0; i < 1000; i++) {
        drive(e);
        nic_model_eval(e->nic, e->p);
        int acc = p->host_req_ready;
        observe(e);
        nic_model_clock(e->nic, e->p);
        e->cycle++;
        if (acc) {
            p->host_req_valid = 0;
            e->rsp_seen = 0;
            return 1;
        }
    }
    p->host_req_valid = 0;
    tb_check(e, 0, "host request accepted within 1000 cycles", __FILE__, __LINE__);
    return 0;
}

void tb_host_wr_be(struct tb_env *e, unsigned bar, uint32_t addr, uint32_t data, unsigned be)
{
    host_issue(e, bar, addr, data, be, 1);
}

void tb_host_wr(struct tb_env *e, unsigned bar, uint32_t addr, uint32_t data)
{
    host_issue(e, bar, addr, data, 0xF, 1);
}

uint32_t tb_host_rd(struct tb_env *e, unsigned bar, uint32_t addr)
{
    if (!host_issue(e, bar, addr, 0, 0xF, 0)) return 0xDEADDEAD;
    for (int i = 0; i < 4; i++) {
        drive(e);
        nic_model_eval(e->nic, e->p);
        observe(e);
        if (e->rsp_seen) {
            nic_model_clock(e->nic, e->p);
            e->cycle++;
            return e->last_rsp;
        }
        nic_model_clock(e->nic, e->p);
        e->cycle++;
    }
    tb_check(e, 0, "host read answered", __FILE__, __LINE__);
    return 0xDEADDEAD;
}

void tb_sram_write(struct tb_env *e, uint32_t off, const void *buf, uint32_t len)
{
    const uint8_t *b = buf;
    uint32_t base = off & ~0xFFFu;
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, base);
    for (uint32_t i = 0; i < len;) {
        uint32_t a = off + i, w = a & ~3u, v = 0;
        unsigned be = 0;
        for (unsigned k = a & 3; k < 4 && i < len; k++, i++) {
            v |= (uint32_t)b[i] << (8 * k);
            be |= 1u << k;
        }
        if (w - base >= 0x10000) {
            base = w & ~0xFFFu;
            tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, base);
        }
        tb_host_wr_be(e, NIC_BAR_WINDOW_CODE, w - base, v, be);
    }
}

void tb_sram_read(struct tb_env *e, uint32_t off, void *buf, uint32_t len)
{
    uint8_t *b = buf;
    uint32_t base = off & ~0xFFFu;
    tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, base);
    for (uint32_t i = 0; i < len;) {
        uint32_t a = off + i, w = a & ~3u;
        if (w - base >= 0x10000) {
            base = w & ~0xFFFu;
            tb_reg_wr(e, NIC_HOSTIF, NIC_HOSTIF_WIN_BASE, base);
        }
        uint32_t v = tb_host_rd(e, NIC_BAR_WINDOW_CODE, w - base);
        for (unsigned k = a & 3; k < 4 && i < len; k++, i++) b[i] = (uint8_t)(v >> (8 * k));
    }
}

void tb_rx_inject(struct tb_env *e, const uint8_t *data, uint32_t len)
{
    struct tb_frame *f = &e->rx[e->rx_tail++ % TB_MAX_FRAMES];
    if (len > TB_MAX_FRAME) len = TB_MAX_FRAME;
    memcpy(f->data, data, len);
    f->len = len;
}

int tb_rx_busy(const struct tb_env *e)
{
    return e->rx_head != e->rx_tail;
}
