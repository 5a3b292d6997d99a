/*
 * pcie.c - PCIe link model (see pcie.h).
 *
 * Role map:
 *   link          exact serialization in byte-time units (cycle * bytes_per_cycle)
 *   up ring       NIC -> host transactions in issue order (DMA writes carry their data)
 *   pcie_advance  applies up-ring entries whose arrival time has come: hostmem accesses through
 *                 the oracle, read data scheduling, MMIO completions, MSIs
 *   rd ring       DMA reads in issue order, reserved at request time, filled at the host
 *   mmio ring     host -> NIC MMIO requests
 *   small rings   write-done statuses (NIC side), MSIs (host side)
 */
#include "pcie.h"

#include <stdlib.h>
#include <string.h>

enum up_kind { UP_DMA_WR = 1, UP_DMA_RD, UP_MMIO_CPL, UP_IRQ };
enum tag_state { TAG_FREE = 0, TAG_ISSUED, TAG_REPLIED, TAG_DONE };

struct link {
    uint64_t free_bt; /* byte-time at which the link is next free */
    uint32_t bpc;
    uint64_t *wire_ctr;
};

struct up_ent {
    enum up_kind kind;
    sim_cycle_t at; /* arrival at the host */
    uint32_t tag, len;
    uint64_t paddr, value;
    uint8_t *data; /* DMA write payload (slot buffer) */
};

struct rd_ent {
    uint32_t tag, len, sent;
    int status;
    bool ready;        /* host memory has been read and the beats are scheduled */
    sim_cycle_t t0;    /* error: the single beat's arrival */
    uint64_t start_bt; /* link byte-time at which the first beat starts */
    uint8_t *data;
};

struct timed_done {
    struct pcie_wr_done d;
    sim_cycle_t at;
};

struct timed_irq {
    uint32_t vector;
    sim_cycle_t at;
};

struct timed_mmio {
    struct pcie_mmio m;
    sim_cycle_t at;
};

/* A ring of n entries of any type: head index and count; the caller indexes (head + i) % n. */
struct ring {
    uint32_t head, count, n;
};

static uint32_t ring_tail(struct ring *r)
{
    return (r->head + r->count++) % r->n;
}

static uint32_t ring_pop(struct ring *r)
{
    uint32_t i = r->head;

    r->head = (r->head + 1) % r->n;
    r->count--;
    return i;
}

struct mmio_tag {
    enum tag_state state;
    uint64_t value;
    sim_cycle_t at;
};

struct pcie {
    struct pcie_config cfg;
    hostmem_t *mem;
    struct link link_up, link_down;
    struct ring upr, rdr, mmior, doner, irqr;
    struct up_ent *up;
    struct rd_ent *rd;
    struct timed_mmio *mmio;
    struct timed_done *done;
    struct timed_irq *irq;
    uint8_t *up_data, *rd_data;
    uint32_t writes_pending, irqs_pending; /* reserve done/irq slots at issue */
    sim_cycle_t up_last, mmio_last, now;
    struct mmio_tag tags[PCIE_MMIO_TAGS];
    pcie_host_notify_fn notify;
    void *notify_ctx;
    struct pcie_counters ctr;
};

static void add(uint64_t *c, uint64_t v)
{
    *c = (*c > UINT64_MAX - v) ? UINT64_MAX : *c + v;
}

void pcie_config_default(struct pcie_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bytes_per_cycle = 39;
    cfg->max_payload = 256;
    cfg->tlp_overhead = 0;
    cfg->mmio_write_latency = 60;
    cfg->mmio_read_latency = 160;
    cfg->dma_write_latency = 60;
    cfg->dma_read_latency = 120;
    cfg->queue_depth = 64;
    cfg->dev = 0;
}

void pcie_config_for_clock(struct pcie_config *cfg, uint64_t clock_hz)
{
    cfg->bytes_per_cycle = sim_rate_to_bytes_per_cycle(clock_hz, 7900000000ull);
    cfg->mmio_write_latency = sim_ns_to_cycles(clock_hz, 300);
    cfg->mmio_read_latency = sim_ns_to_cycles(clock_hz, 800);
    cfg->dma_write_latency = sim_ns_to_cycles(clock_hz, 300);
    cfg->dma_read_latency = sim_ns_to_cycles(clock_hz, 600);
}

pcie_t *pcie_create(const struct pcie_config *cfg, hostmem_t *mem)
{
    struct pcie_config def;
    pcie_t *p;
    uint32_t n;

    if (!cfg) {
        pcie_config_default(&def);
        cfg = &def;
    }
    if (!mem || cfg->bytes_per_cycle == 0 || cfg->max_payload < 64 || cfg->max_payload > PCIE_MAX_PAYLOAD ||
        (cfg->max_payload & (cfg->max_payload - 1)) || cfg->queue_depth == 0 || cfg->queue_depth > 4096 ||
        cfg->dev >= HOSTMEM_MAX_DEVS)
        return NULL;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->cfg = *cfg;
    if (p->cfg.dma_read_latency < p->cfg.dma_write_latency)
        p->cfg.dma_read_latency = p->cfg.dma_write_latency;
    p->mem = mem;
    n = cfg->queue_depth;
    p->upr.n = p->rdr.n = p->mmior.n = p->doner.n = p->irqr.n = n;
    p->up = calloc(n, sizeof *p->up);
    p->rd = calloc(n, sizeof *p->rd);
    p->mmio = calloc(n, sizeof *p->mmio);
    p->done = calloc(n, sizeof *p->done);
    p->irq = calloc(n, sizeof *p->irq);
    p->up_data = malloc((size_t)n * PCIE_MAX_XFER);
    p->rd_data = malloc((size_t)n * PCIE_MAX_XFER);
    if (!p->up || !p->rd || !p->mmio || !p->done || !p->irq || !p->up_data || !p->rd_data) {
        pcie_destroy(p);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        p->up[i].data = p->up_data + (size_t)i * PCIE_MAX_XFER;
        p->rd[i].data = p->rd_data + (size_t)i * PCIE_MAX_XFER;
    }
    p->link_up.bpc = p->link_down.bpc = cfg->bytes_per_cycle;
    p->link_up.wire_ctr = &p->ctr.up_wire_bytes;
    p->link_down.wire_ctr = &p->ctr.down_wire_bytes;
    return p;
}

void pcie_destroy(pcie_t *p)
{
    if (!p)
        return;
    free(p->up);
    free(p->rd);
    free(p->mmio);
    free(p->done);
    free(p->irq);
    free(p->up_data);
    free(p->rd_data);
    free(p);
}

void pcie_set_host_notify(pcie_t *p, pcie_host_notify_fn fn, void *ctx)
{
    p->notify = fn;
    p->notify_ctx = ctx;
}

const struct pcie_counters *pcie_counters(const pcie_t *p)
{
    return &p->ctr;
}

const struct pcie_config *pcie_config(const pcie_t *p)
{
    return &p->cfg;
}

/* ---- link arithmetic ---- */

static uint64_t wire_bytes(const pcie_t *p, uint32_t payload)
{
    uint64_t tlps = payload ? (payload + p->cfg.max_payload - 1) / p->cfg.max_payload : 1;

    return payload + tlps * p->cfg.tlp_overhead;
}

static uint64_t bt_to_cycle(const struct link *l, uint64_t bt)
{
    return bt / l->bpc + (bt % l->bpc != 0);
}

/* Reserve wire bytes on l no earlier than cycle t; returns the first byte-time used. */
static uint64_t link_reserve(struct link *l, sim_cycle_t t, uint64_t wire)
{
    uint64_t start = t * l->bpc;

    if (start < l->free_bt)
        start = l->free_bt;
    l->free_bt = start + wire;
    add(l->wire_ctr, wire);
    return start;
}

/* End-of-serialization cycle for a transaction of wire bytes issued at t. */
static sim_cycle_t link_send(struct link *l, sim_cycle_t t, uint64_t wire)
{
    return bt_to_cycle(l, link_reserve(l, t, wire) + wire);
}

/* ---- host-side processing ---- */

static sim_cycle_t cpl_leg(const pcie_t *p)
{
    return p->cfg.dma_read_latency - p->cfg.dma_write_latency;
}

static void process_up(pcie_t *p, struct up_ent *e)
{
    hostmem_set_now(p->mem, e->at);
    switch (e->kind) {
    case UP_DMA_WR: {
        struct timed_done *d = &p->done[ring_tail(&p->doner)];
        d->d.tag = e->tag;
        d->d.len = e->len;
        d->d.status = hostmem_dma_write(p->mem, p->cfg.dev, e->paddr, e->data, e->len);
        d->at = e->at;
        if (d->d.status)
            add(&p->ctr.dma_errors, 1);
        break;
    }
    case UP_DMA_RD: {
        /* Reads complete in issue order, so the oldest not-ready rd entry is this one. */
        struct rd_ent *r = NULL;
        for (uint32_t i = 0; i < p->rdr.count; i++) {
            struct rd_ent *c = &p->rd[(p->rdr.head + i) % p->rdr.n];
            if (!c->ready) {
                r = c;
                break;
            }
        }
        if (!r)
            break; /* cannot happen: an rd entry is reserved with every request */
        r->status = hostmem_dma_read(p->mem, p->cfg.dev, e->paddr, r->data, r->len);
        r->ready = true;
        if (r->status) {
            add(&p->ctr.dma_errors, 1);
            r->t0 = link_send(&p->link_down, e->at + cpl_leg(p), wire_bytes(p, 0));
        } else {
            r->start_bt = link_reserve(&p->link_down, e->at + cpl_leg(p), wire_bytes(p, r->len));
        }
        break;
    }
    case UP_MMIO_CPL:
        if (e->tag < PCIE_MMIO_TAGS && p->tags[e->tag].state == TAG_REPLIED) {
            p->tags[e->tag].state = TAG_DONE;
            p->tags[e->tag].value = e->value;
            p->tags[e->tag].at = e->at;
        }
        if (p->notify)
            p->notify(p->notify_ctx, e->at);
        break;
    case UP_IRQ: {
        struct timed_irq *q = &p->irq[ring_tail(&p->irqr)];
        q->vector = (uint32_t)e->value;
        q->at = e->at;
        if (p->notify)
            p->notify(p->notify_ctx, e->at);
        break;
    }
    }
}

void pcie_advance(pcie_t *p, sim_cycle_t now)
{
    if (now > p->now)
        p->now = now;
    while (p->upr.count && p->up[p->upr.head].at <= now)
        process_up(p, &p->up[ring_pop(&p->upr)]);
}

/* Arrival of beat covering bytes [0, upto) of r. */
static sim_cycle_t beat_arrival(const pcie_t *p, const struct rd_ent *r, uint32_t upto)
{
    return bt_to_cycle(&p->link_down, r->start_bt + wire_bytes(p, upto));
}

static uint32_t beat_len(const pcie_t *p, const struct rd_ent *r)
{
    uint32_t n = r->len - r->sent;

    return n > p->cfg.max_payload ? p->cfg.max_payload : n;
}

sim_cycle_t pcie_next_event(const pcie_t *p)
{
    sim_cycle_t t = SIM_CYCLE_NEVER;

    if (p->upr.count)
        t = sim_cycle_min(t, p->up[p->upr.head].at);
    if (p->mmior.count)
        t = sim_cycle_min(t, p->mmio[p->mmior.head].at);
    if (p->doner.count)
        t = sim_cycle_min(t, p->done[p->doner.head].at);
    if (p->irqr.count)
        t = sim_cycle_min(t, p->irq[p->irqr.head].at);
    if (p->rdr.count) {
        const struct rd_ent *r = &p->rd[p->rdr.head];
        if (r->ready)
            t = sim_cycle_min(t, r->status ? r->t0 : beat_arrival(p, r, r->sent + beat_len(p, r)));
    }
    /* MMIO read results waiting for the host are not events: their arrival was (an up-ring
     * entry), and the host notify hook tells the waiting host process. */
    return t;
}

bool pcie_idle(const pcie_t *p)
{
    return pcie_next_event(p) == SIM_CYCLE_NEVER && p->writes_pending == 0;
}

/* Queue an upstream transaction: FIFO, arrival times non-decreasing. */
static struct up_ent *up_push(pcie_t *p, sim_cycle_t now, enum up_kind kind, uint32_t payload, sim_cycle_t lat)
{
    struct up_ent *e = &p->up[ring_tail(&p->upr)];
    sim_cycle_t at = link_send(&p->link_up, now, wire_bytes(p, payload)) + lat;

    if (at < p->up_last)
        at = p->up_last;
    p->up_last = at;
    e->kind = kind;
    e->at = at;
    return e;
}

static int full(pcie_t *p)
{
    add(&p->ctr.full_rejects, 1);
    return SIM_EFULL;
}

/* ---- host side ---- */

static int mmio_push(pcie_t *p, sim_cycle_t now, const struct pcie_mmio *m, sim_cycle_t lat)
{
    struct timed_mmio *e;
    sim_cycle_t at;

    if (p->mmior.count == p->mmior.n)
        return full(p);
    e = &p->mmio[ring_tail(&p->mmior)];
    at = link_send(&p->link_down, now, wire_bytes(p, m->kind == PCIE_MMIO_WRITE ? m->size : 0)) + lat;
    if (at < p->mmio_last)
        at = p->mmio_last;
    p->mmio_last = at;
    e->m = *m;
    e->at = at;
    return SIM_OK;
}

static bool size_ok(unsigned size)
{
    return size == 1 || size == 2 || size == 4 || size == 8;
}

int pcie_mmio_write(pcie_t *p, sim_cycle_t now, uint64_t addr, uint64_t data, unsigned size)
{
    struct pcie_mmio m = { PCIE_MMIO_WRITE, addr, data, size, 0 };
    int err;

    pcie_advance(p, now);
    if (!size_ok(size))
        return SIM_EINVAL;
    err = mmio_push(p, now, &m, p->cfg.mmio_write_latency);
    if (!err)
        add(&p->ctr.mmio_writes, 1);
    return err;
}

int pcie_mmio_read(pcie_t *p, sim_cycle_t now, uint64_t addr, unsigned size, unsigned *tag)
{
    struct pcie_mmio m = { PCIE_MMIO_READ, addr, 0, size, 0 };
    unsigned t;
    int err;

    pcie_advance(p, now);
    if (!size_ok(size) || !tag)
        return SIM_EINVAL;
    for (t = 0; t < PCIE_MMIO_TAGS && p->tags[t].state != TAG_FREE; t++)
        ;
    if (t == PCIE_MMIO_TAGS)
        return full(p);
    m.tag = t;
    err = mmio_push(p, now, &m, p->cfg.mmio_read_latency / 2);
    if (err)
        return err;
    p->tags[t].state = TAG_ISSUED;
    *tag = t;
    add(&p->ctr.mmio_reads, 1);
    return SIM_OK;
}

int pcie_mmio_read_result(pcie_t *p, sim_cycle_t now, unsigned tag, uint64_t *data)
{
    pcie_advance(p, now);
    if (tag >= PCIE_MMIO_TAGS || p->tags[tag].state == TAG_FREE)
        return SIM_ENOENT;
    if (p->tags[tag].state != TAG_DONE || p->tags[tag].at > now)
        return SIM_EAGAIN;
    if (data)
        *data = p->tags[tag].value;
    p->tags[tag].state = TAG_FREE;
    return SIM_OK;
}

int pcie_irq_pop(pcie_t *p, sim_cycle_t now, uint32_t *vector)
{
    pcie_advance(p, now);
    if (!p->irqr.count || p->irq[p->irqr.head].at > now)
        return SIM_EAGAIN;
    if (vector)
        *vector = p->irq[p->irqr.head].vector;
    ring_pop(&p->irqr);
    p->irqs_pending--;
    return SIM_OK;
}

/* ---- NIC side ---- */

int pcie_mmio_pop(pcie_t *p, sim_cycle_t now, struct pcie_mmio *req)
{
    pcie_advance(p, now);
    if (!p->mmior.count || p->mmio[p->mmior.head].at > now)
        return SIM_EAGAIN;
    if (req)
        *req = p->mmio[p->mmior.head].m;
    ring_pop(&p->mmior);
    return SIM_OK;
}

int pcie_mmio_read_reply(pcie_t *p, sim_cycle_t now, unsigned tag, uint64_t data)
{
    struct up_ent *e;

    pcie_advance(p, now);
    if (tag >= PCIE_MMIO_TAGS || p->tags[tag].state != TAG_ISSUED)
        return SIM_ENOENT;
    if (p->upr.count == p->upr.n)
        return full(p);
    e = up_push(p, now, UP_MMIO_CPL, 8, p->cfg.mmio_read_latency - p->cfg.mmio_read_latency / 2);
    e->tag = tag;
    e->value = data;
    p->tags[tag].state = TAG_REPLIED;
    return SIM_OK;
}

int pcie_dma_read_req(pcie_t *p, sim_cycle_t now, uint32_t tag, uint64_t paddr, uint32_t len)
{
    struct up_ent *e;
    struct rd_ent *r;

    pcie_advance(p, now);
    if (len == 0 || len > PCIE_MAX_XFER)
        return SIM_EINVAL;
    if (p->upr.count == p->upr.n || p->rdr.count == p->rdr.n)
        return full(p);
    r = &p->rd[ring_tail(&p->rdr)];
    r->tag = tag;
    r->len = len;
    r->sent = 0;
    r->status = SIM_OK;
    r->ready = false;
    e = up_push(p, now, UP_DMA_RD, 0, p->cfg.dma_write_latency);
    e->tag = tag;
    e->paddr = paddr;
    e->len = len;
    add(&p->ctr.dma_reads, 1);
    add(&p->ctr.dma_read_bytes, len);
    return SIM_OK;
}

int pcie_dma_read_data(pcie_t *p, sim_cycle_t now, struct pcie_rd_beat *beat)
{
    struct rd_ent *r;
    uint32_t n;

    pcie_advance(p, now);
    if (!p->rdr.count)
        return SIM_EAGAIN;
    r = &p->rd[p->rdr.head];
    if (!r->ready)
        return SIM_EAGAIN;
    if (r->status) {
        if (r->t0 > now)
            return SIM_EAGAIN;
        beat->tag = r->tag;
        beat->offset = 0;
        beat->len = 0;
        beat->status = r->status;
        beat->last = true;
        ring_pop(&p->rdr);
        return SIM_OK;
    }
    n = beat_len(p, r);
    if (beat_arrival(p, r, r->sent + n) > now)
        return SIM_EAGAIN;
    beat->tag = r->tag;
    beat->offset = r->sent;
    beat->len = n;
    beat->status = SIM_OK;
    memcpy(beat->data, r->data + r->sent, n);
    r->sent += n;
    beat->last = r->sent == r->len;
    if (beat->last)
        ring_pop(&p->rdr);
    return SIM_OK;
}

int pcie_dma_write(pcie_t *p, sim_cycle_t now, uint32_t tag, uint64_t paddr, const void *data, uint32_t len)
{
    struct up_ent *e;

    pcie_advance(p, now);
    if (len == 0 || len > PCIE_MAX_XFER || !data)
        return SIM_EINVAL;
    if (p->upr.count == p->upr.n || p->writes_pending == p->doner.n)
        return full(p);
    e = up_push(p, now, UP_DMA_WR, len, p->cfg.dma_write_latency);
    e->tag = tag;
    e->paddr = paddr;
    e->len = len;
    memcpy(e->data, data, len);
    p->writes_pending++;
    add(&p->ctr.dma_writes, 1);
    add(&p->ctr.dma_write_bytes, len);
    return SIM_OK;
}

int pcie_dma_write_done(pcie_t *p, sim_cycle_t now, struct pcie_wr_done *done)
{
    pcie_advance(p, now);
    if (!p->doner.count || p->done[p->doner.head].at > now)
        return SIM_EAGAIN;
    if (done)
        *done = p->done[p->doner.head].d;
    ring_pop(&p->doner);
    p->writes_pending--;
    return SIM_OK;
}

int pcie_irq(pcie_t *p, sim_cycle_t now, uint32_t vector)
{
    struct up_ent *e;

    pcie_advance(p, now);
    if (p->upr.count == p->upr.n || p->irqs_pending == p->irqr.n)
        return full(p);
    e = up_push(p, now, UP_IRQ, 4, p->cfg.dma_write_latency);
    e->value = vector;
    p->irqs_pending++;
    add(&p->ctr.irqs, 1);
    return SIM_OK;
}
