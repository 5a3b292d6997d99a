/*
 * switch.c - output-queued store-and-forward switch with seeded fault injection (see switch.h).
 *
 * Role map:
 *   ports          link state (bit-time of free), fault set, generator stream, slots, heap
 *   faults         draw_set: per-set drop/duplicate; per-copy corrupt/delay
 *   enqueue        drop-tail on unserialized bytes, slot bound, delivery time, heap insert
 *   egress         pop the heap top when due
 */
#include "switch.h"

#include <stdlib.h>
#include <string.h>

#include "nic_crc32.h"
#include "sim_rng.h"

struct slot {
    uint8_t *buf; /* SWITCH_MAX_FRAME bytes, allocated on first use */
    uint32_t len;
    sim_cycle_t deliver;
    uint64_t seq;
    sim_cycle_t extra;    /* injected delay (kept for a frame a pause takes back) */
    uint64_t start_bt;    /* committed: the bit-time its serialization starts */
    uint64_t prev_end_bt; /* committed: when the link was free before it (free_bt at its commit) */
};

struct port {
    struct switch_port_config pc;
    struct switch_faults faults;
    sim_rng_t rng;
    uint64_t free_bt; /* bit-time (cycle * bits_per_cycle) when the output link is next free */
    struct slot *slots;
    uint32_t *free_slots, nfree;
    uint32_t *heap, nheap; /* slot indices, min (deliver, seq) on top */
    /* pause (cfg.pause, switch_pause): frames accepted but held, in acceptance order */
    bool paused;
    sim_cycle_t paused_at;
    uint32_t *wait, nwait;
    uint64_t wait_bits; /* their line bits (frames and gaps): part of the queue's backlog */
    struct switch_port_counters ctr;
};

struct sim_switch {
    struct switch_config cfg;
    struct port *ports;
    uint8_t *local; /* per port: this process owns it (enqueues and delivers); all by default */
    uint64_t seq;
    /* deferred ingress (switch_set_deferred): records of frames handed in, applied later */
    int deferred;
    uint8_t *pend;
    size_t npend, cap_pend, pend_frames;
    uint8_t work[SWITCH_MAX_FRAME]; /* a corrupted copy being enqueued */
    switch_tap_fn tap;
    void *tap_ctx;
};

void switch_set_tap(switch_t *sw, switch_tap_fn fn, void *ctx)
{
    sw->tap = fn;
    sw->tap_ctx = ctx;
}

void switch_set_check_src(switch_t *sw, bool on)
{
    sw->cfg.check_src = on;
}

static void inc(uint64_t *c, uint64_t v)
{
    *c = (*c > UINT64_MAX - v) ? UINT64_MAX : *c + v;
}

void switch_config_default(struct switch_config *cfg, uint32_t nports)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->nports = nports;
    cfg->port.bits_per_cycle = 50;
    cfg->port.latency = 100;
    cfg->gap_bytes = SWITCH_GAP_BYTES;
    cfg->queue_bytes = 65536;
    cfg->ecn_offset = 5;
    cfg->ecn_mask = 0x10;
    cfg->slots_per_port = 64;
    cfg->seed = 1;
    cfg->faults.delay_max = 2000;
}

static bool faults_ok(const struct switch_faults *f)
{
    const double r[4] = { f->drop, f->duplicate, f->corrupt, f->delay };

    for (int i = 0; i < 4; i++)
        if (!(r[i] >= 0.0 && r[i] <= 1.0))
            return false;
    return !(f->delay > 0.0 && f->delay_max == 0);
}

switch_t *switch_create(const struct switch_config *cfg)
{
    switch_t *sw;

    if (!cfg || cfg->nports < 2 || cfg->nports > SWITCH_MAX_PORTS || cfg->port.bits_per_cycle == 0 ||
        cfg->slots_per_port == 0 || cfg->slots_per_port > 65536 || cfg->queue_bytes == 0 || cfg->gap_bytes > 1024 ||
        !faults_ok(&cfg->faults))
        return NULL;
    sw = calloc(1, sizeof *sw);
    if (!sw)
        return NULL;
    sw->cfg = *cfg;
    sw->ports = calloc(cfg->nports, sizeof *sw->ports);
    sw->local = malloc(cfg->nports);
    if (!sw->ports || !sw->local)
        goto fail;
    memset(sw->local, 1, cfg->nports);
    for (uint32_t i = 0; i < cfg->nports; i++) {
        struct port *p = &sw->ports[i];
        p->pc = cfg->port;
        p->faults.delay_max = cfg->faults.delay_max;
        sim_rng_seed(&p->rng, cfg->seed, i + 1);
        p->slots = calloc(cfg->slots_per_port, sizeof *p->slots);
        p->free_slots = calloc(cfg->slots_per_port, sizeof *p->free_slots);
        p->heap = calloc(cfg->slots_per_port, sizeof *p->heap);
        p->wait = calloc(cfg->slots_per_port, sizeof *p->wait);
        if (!p->slots || !p->free_slots || !p->heap || !p->wait)
            goto fail;
        for (uint32_t k = 0; k < cfg->slots_per_port; k++)
            p->free_slots[k] = cfg->slots_per_port - 1 - k;
        p->nfree = cfg->slots_per_port;
    }
    return sw;

fail:
    switch_destroy(sw);
    return NULL;
}

void switch_destroy(switch_t *sw)
{
    if (!sw)
        return;
    for (uint32_t i = 0; sw->ports && i < sw->cfg.nports; i++) {
        struct port *p = &sw->ports[i];
        for (uint32_t k = 0; p->slots && k < sw->cfg.slots_per_port; k++)
            free(p->slots[k].buf);
        free(p->slots);
        free(p->free_slots);
        free(p->heap);
        free(p->wait);
    }
    free(sw->ports);
    free(sw->local);
    free(sw->pend);
    free(sw);
}

uint32_t switch_nports(const switch_t *sw)
{
    return sw->cfg.nports;
}

int switch_set_port(switch_t *sw, uint32_t port, const struct switch_port_config *pc)
{
    if (port >= sw->cfg.nports || !pc || pc->bits_per_cycle == 0)
        return SIM_EINVAL;
    /* Keep the link's free time in cycles across a bandwidth change. */
    sw->ports[port].free_bt = sw->ports[port].free_bt / sw->ports[port].pc.bits_per_cycle * pc->bits_per_cycle;
    sw->ports[port].pc = *pc;
    return SIM_OK;
}

int switch_set_link_faults(switch_t *sw, uint32_t port, const struct switch_faults *f)
{
    if (port >= sw->cfg.nports || !f || !faults_ok(f))
        return SIM_EINVAL;
    sw->ports[port].faults = *f;
    return SIM_OK;
}

int switch_set_global_faults(switch_t *sw, const struct switch_faults *f)
{
    if (!f || !faults_ok(f))
        return SIM_EINVAL;
    sw->cfg.faults = *f;
    return SIM_OK;
}

/* ---- delivery heap ---- */

static bool earlier(const struct port *p, uint32_t a, uint32_t b)
{
    const struct slot *x = &p->slots[a], *y = &p->slots[b];

    return x->deliver < y->deliver || (x->deliver == y->deliver && x->seq < y->seq);
}

static void heap_push(struct port *p, uint32_t s)
{
    uint32_t i = p->nheap++;

    while (i > 0 && earlier(p, s, p->heap[(i - 1) / 2])) {
        p->heap[i] = p->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    p->heap[i] = s;
}

static uint32_t heap_pop(struct port *p)
{
    uint32_t top = p->heap[0], last = p->heap[--p->nheap], i = 0;

    for (;;) {
        uint32_t l = 2 * i + 1, m;
        if (l >= p->nheap)
            break;
        m = (l + 1 < p->nheap && earlier(p, p->heap[l + 1], p->heap[l])) ? l + 1 : l;
        if (!earlier(p, p->heap[m], last))
            break;
        p->heap[i] = p->heap[m];
        i = m;
    }
    if (p->nheap)
        p->heap[i] = last;
    return top;
}

/* ---- faults ---- */

/* The fault sets for a frame from port in to port out, with the generator each draws from. */
struct fault_plan {
    const struct switch_faults *set[3];
    sim_rng_t *rng[3];
};

static void corrupt_frame(sim_rng_t *r, uint8_t *f, uint32_t len)
{
    uint64_t bits = (uint64_t)len * 8, start = sim_rng_below(r, bits);
    uint32_t mask = (uint32_t)sim_rng_next(r) | 1u; /* burst begins at start, spans <= 32 bits */

    for (unsigned k = 0; k < 32; k++) {
        uint64_t b = start + k;
        if (!(mask >> k & 1u) || b >= bits)
            continue;
        f[b / 8] ^= (uint8_t)(1u << (b % 8));
    }
}

/* ---- enqueue ---- */

/* Sets the marking bits and updates the FCS (little-endian CRC-32 of the bytes before it) by the
 * change of the CRC, so a frame with a bad FCS keeps exactly its error (CRC is linear). */
static void ecn_mark(switch_t *sw, struct port *o, uint8_t *f, uint32_t len)
{
    uint32_t at = sw->cfg.ecn_offset, delta;

    if (len < at + 1u + 4u || (f[at] & sw->cfg.ecn_mask) == sw->cfg.ecn_mask)
        return;
    delta = nic_crc32(f, len - 4);
    f[at] |= sw->cfg.ecn_mask;
    delta ^= nic_crc32(f, len - 4);
    for (unsigned i = 0; i < 4; i++)
        f[len - 4 + i] ^= (uint8_t)(delta >> (8 * i));
    inc(&o->ctr.ecn_marked, 1);
}

static uint64_t line_bits(const switch_t *sw, uint32_t len)
{
    return ((uint64_t)len + sw->cfg.gap_bytes) * 8;
}

/* The output link takes frame k from bit-time now_bt on: it starts when the link is free, and is
 * handed out when its first bit arrives (the receiving PHY clocks it in over its serialization). */
static void commit(switch_t *sw, struct port *o, uint32_t k, uint64_t now_bt)
{
    struct slot *s = &o->slots[k];
    uint64_t start = now_bt > o->free_bt ? now_bt : o->free_bt;

    s->prev_end_bt = o->free_bt;
    s->start_bt = start;
    o->free_bt = start + line_bits(sw, s->len);
    s->deliver = start / o->pc.bits_per_cycle + (start % o->pc.bits_per_cycle != 0);
    s->deliver = sim_cycle_add(sim_cycle_add(s->deliver, o->pc.latency), s->extra);
    heap_push(o, k);
}

static void enqueue(switch_t *sw, sim_cycle_t now, struct port *o, const uint8_t *frame, uint32_t len,
                    sim_cycle_t extra)
{
    uint64_t now_bt = now * o->pc.bits_per_cycle, backlog, bits = line_bits(sw, len);
    struct slot *s;
    uint32_t k;

    backlog = (o->free_bt > now_bt ? o->free_bt - now_bt : 0) + o->wait_bits;
    if (backlog + bits > (uint64_t)sw->cfg.queue_bytes * 8) {
        inc(&o->ctr.queue_drops, 1);
        return;
    }
    if (o->nfree == 0) {
        inc(&o->ctr.slot_drops, 1);
        return;
    }
    k = o->free_slots[o->nfree - 1];
    s = &o->slots[k];
    if (!s->buf && !(s->buf = malloc(SWITCH_MAX_FRAME))) {
        inc(&o->ctr.slot_drops, 1);
        return;
    }
    o->nfree--;
    memcpy(s->buf, frame, len);
    s->len = len;
    if (sw->cfg.ecn_bytes && backlog > (uint64_t)sw->cfg.ecn_bytes * 8)
        ecn_mark(sw, o, s->buf, len);
    s->seq = sw->seq++;
    s->extra = extra;
    if (o->paused) { /* held until the receiver resumes (switch_pause) */
        o->wait[o->nwait++] = k;
        o->wait_bits += bits;
        return;
    }
    commit(sw, o, k, now_bt);
}

static void forward(switch_t *sw, sim_cycle_t now, uint32_t in, uint32_t out, const uint8_t *frame, uint32_t len)
{
    struct port *o = &sw->ports[out];
    struct fault_plan fp = { { &sw->cfg.faults, &sw->ports[in].faults, &o->faults },
                             { &sw->ports[in].rng, &sw->ports[in].rng, &o->rng } };
    unsigned copies = 1;
    uint8_t *work = sw->work;

    for (int i = 0; i < 3; i++) {
        if (sim_rng_chance(fp.rng[i], fp.set[i]->drop)) {
            inc(&o->ctr.fault_drop, 1);
            return;
        }
    }
    for (int i = 0; i < 3; i++)
        if (sim_rng_chance(fp.rng[i], fp.set[i]->duplicate))
            copies = 2;
    if (copies == 2)
        inc(&o->ctr.fault_duplicate, 1);
    for (unsigned c = 0; c < copies; c++) {
        const uint8_t *src = frame;
        sim_cycle_t extra = 0;

        for (int i = 0; i < 3; i++) {
            if (sim_rng_chance(fp.rng[i], fp.set[i]->corrupt)) {
                if (src == frame) {
                    memcpy(work, frame, len);
                    src = work;
                }
                corrupt_frame(fp.rng[i], work, len);
            }
            if (sim_rng_chance(fp.rng[i], fp.set[i]->delay))
                extra = sim_cycle_add(extra, sim_rng_range(fp.rng[i], 1, fp.set[i]->delay_max));
        }
        if (src != frame)
            inc(&o->ctr.fault_corrupt, 1);
        if (extra)
            inc(&o->ctr.fault_delay, 1);
        if (sw->local[out]) /* else the process that owns the port enqueues it (switch_set_local) */
            enqueue(sw, now, o, src, len, extra);
    }
}

/* A deferred record: cycle (8), port (4), length (4), the frame padded to 8 bytes. */
#define PEND_HDR 16u
static size_t pend_size(size_t len)
{
    return PEND_HDR + ((len + 7u) & ~(size_t)7u);
}

static int defer(switch_t *sw, sim_cycle_t now, uint32_t port, const uint8_t *f, size_t len)
{
    size_t need = pend_size(len);
    uint64_t t = now;
    uint32_t l = (uint32_t)len;

    if (sw->npend + need > sw->cap_pend) {
        size_t cap = sw->cap_pend ? sw->cap_pend * 2 : 65536;
        uint8_t *b;
        while (cap < sw->npend + need)
            cap *= 2;
        if (!(b = realloc(sw->pend, cap)))
            return SIM_ENOMEM;
        sw->pend = b;
        sw->cap_pend = cap;
    }
    memcpy(sw->pend + sw->npend, &t, 8);
    memcpy(sw->pend + sw->npend + 8, &port, 4);
    memcpy(sw->pend + sw->npend + 12, &l, 4);
    memcpy(sw->pend + sw->npend + PEND_HDR, f, len);
    memset(sw->pend + sw->npend + PEND_HDR + len, 0, need - PEND_HDR - len);
    sw->npend += need;
    sw->pend_frames++;
    return SIM_OK;
}

static int ingress_now(switch_t *sw, sim_cycle_t now, uint32_t port, const uint8_t *f, size_t len);

int switch_ingress(switch_t *sw, sim_cycle_t now, uint32_t port, const void *frame, size_t len)
{
    if (port >= sw->cfg.nports)
        return SIM_EINVAL;
    if (!frame || len < SWITCH_MIN_FRAME || len > SWITCH_MAX_FRAME) {
        inc(&sw->ports[port].ctr.rx_bad, 1);
        return SIM_EINVAL;
    }
    if (sw->deferred)
        return defer(sw, now, port, frame, len);
    return ingress_now(sw, now, port, frame, len);
}

void switch_set_deferred(switch_t *sw, bool on)
{
    sw->deferred = on;
}

int switch_set_local(switch_t *sw, uint32_t port, bool local)
{
    if (port >= sw->cfg.nports)
        return SIM_EINVAL;
    sw->local[port] = local;
    return SIM_OK;
}

bool switch_port_local(const switch_t *sw, uint32_t port)
{
    return port < sw->cfg.nports && sw->local[port];
}

const uint8_t *switch_pending(const switch_t *sw, size_t *bytes, size_t *frames)
{
    *bytes = sw->npend;
    if (frames)
        *frames = sw->pend_frames;
    return sw->pend;
}

void switch_pending_clear(switch_t *sw)
{
    sw->npend = 0;
    sw->pend_frames = 0;
}

struct rec {
    sim_cycle_t t;
    uint32_t port, len;
    const uint8_t *f;
    size_t idx;
};

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->port != y->port)
        return x->port < y->port ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int switch_apply(switch_t *sw, const uint8_t *const *blocks, const size_t *lens, unsigned nblocks)
{
    size_t n = 0, k = 0;
    struct rec *r;

    for (unsigned b = 0; b < nblocks; b++)
        for (size_t off = 0; off + PEND_HDR <= lens[b];) {
            uint32_t l;
            memcpy(&l, blocks[b] + off + 12, 4);
            off += pend_size(l);
            n++;
        }
    if (!n)
        return SIM_OK;
    r = malloc(n * sizeof *r);
    if (!r)
        return SIM_ENOMEM;
    for (unsigned b = 0; b < nblocks; b++)
        for (size_t off = 0; off + PEND_HDR <= lens[b];) {
            uint64_t t;
            memcpy(&t, blocks[b] + off, 8);
            memcpy(&r[k].port, blocks[b] + off + 8, 4);
            memcpy(&r[k].len, blocks[b] + off + 12, 4);
            r[k].t = t;
            r[k].f = blocks[b] + off + PEND_HDR;
            r[k].idx = k;
            if (off + pend_size(r[k].len) > lens[b] || r[k].port >= sw->cfg.nports || r[k].len < SWITCH_MIN_FRAME ||
                r[k].len > SWITCH_MAX_FRAME) {
                free(r);
                return SIM_EINVAL;
            }
            off += pend_size(r[k].len);
            k++;
        }
    /* the order one process would have handed them in: by cycle, then port (node order within
     * a cycle), then as handed in */
    qsort(r, n, sizeof *r, cmp_rec);
    for (size_t i = 0; i < n; i++)
        ingress_now(sw, r[i].t, r[i].port, r[i].f, r[i].len);
    free(r);
    return SIM_OK;
}

sim_cycle_t switch_min_latency(const switch_t *sw)
{
    sim_cycle_t m = SIM_CYCLE_NEVER;
    for (uint32_t i = 0; i < sw->cfg.nports; i++)
        m = sim_cycle_min(m, sw->ports[i].pc.latency);
    return m;
}

static int ingress_now(switch_t *sw, sim_cycle_t now, uint32_t port, const uint8_t *frame, size_t len)
{
    const uint8_t *f = frame;
    struct port *p = &sw->ports[port];
    uint32_t dst;

    inc(&p->ctr.rx_frames, 1);
    inc(&p->ctr.rx_bytes, len);
    if (sw->tap)
        sw->tap(sw->tap_ctx, now, port, f, len);
    dst = (uint32_t)f[0] << 8 | f[1];
    if (sw->cfg.check_src && ((uint32_t)f[2] << 8 | f[3]) != port) {
        inc(&p->ctr.src_spoofed, 1); /* another node's name: the fabric knows better */
        return SIM_OK;
    }
    if (dst == SWITCH_BROADCAST) {
        for (uint32_t o = 0; o < sw->cfg.nports; o++)
            if (o != port)
                forward(sw, now, port, o, f, (uint32_t)len);
        return SIM_OK;
    }
    if (dst >= sw->cfg.nports) {
        inc(&p->ctr.bad_dest, 1);
        return SIM_OK;
    }
    forward(sw, now, port, dst, f, (uint32_t)len);
    return SIM_OK;
}

int switch_egress(switch_t *sw, sim_cycle_t now, uint32_t port, void *buf, size_t cap, size_t *len)
{
    struct port *p;
    struct slot *s;
    uint32_t k;

    if (port >= sw->cfg.nports)
        return SIM_EINVAL;
    p = &sw->ports[port];
    if (!p->nheap || p->slots[p->heap[0]].deliver > now)
        return SIM_EAGAIN;
    s = &p->slots[p->heap[0]];
    if (!buf || cap < s->len)
        return SIM_EINVAL;
    k = heap_pop(p);
    memcpy(buf, s->buf, s->len);
    if (len)
        *len = s->len;
    inc(&p->ctr.tx_frames, 1);
    inc(&p->ctr.tx_bytes, s->len);
    p->free_slots[p->nfree++] = k;
    return SIM_OK;
}

int switch_pause(switch_t *sw, sim_cycle_t now, uint32_t port, bool on)
{
    struct port *o;

    if (port >= sw->cfg.nports)
        return SIM_EINVAL;
    o = &sw->ports[port];
    if (!sw->cfg.pause || !sw->local[port] || on == o->paused)
        return SIM_OK;
    uint64_t now_bt = now * o->pc.bits_per_cycle;
    if (on) {
        /* Frames committed to start at or after now go back to the head of the wait queue, in
         * acceptance order (the link's order: a suffix of its schedule); the link is then free
         * from where the first of them found it. */
        uint32_t kept = 0, n = 0, *held = o->wait;
        for (uint32_t i = 0; i < o->nheap; i++) {
            uint32_t k = o->heap[i];
            if (o->slots[k].start_bt >= now_bt)
                held[n++] = k;
            else
                o->heap[kept++] = k;
        }
        if (n) {
            o->nheap = 0; /* the kept ones, at the front, pushed back one by one */
            for (uint32_t i = 0; i < kept; i++)
                heap_push(o, o->heap[i]);
            for (uint32_t i = 1; i < n; i++) /* (at most slots_per_port, and pauses are rare) */
                for (uint32_t j = i; j > 0 && o->slots[held[j]].seq < o->slots[held[j - 1]].seq; j--) {
                    uint32_t t = held[j];
                    held[j] = held[j - 1];
                    held[j - 1] = t;
                }
            o->free_bt = o->slots[held[0]].prev_end_bt;
            for (uint32_t i = 0; i < n; i++)
                o->wait_bits += line_bits(sw, o->slots[held[i]].len);
        }
        o->nwait = n;
        o->paused = true;
        o->paused_at = now;
        inc(&o->ctr.pauses, 1);
        return SIM_OK;
    }
    o->paused = false;
    inc(&o->ctr.paused_cycles, now - o->paused_at);
    for (uint32_t i = 0; i < o->nwait; i++)
        commit(sw, o, o->wait[i], now_bt);
    o->nwait = 0;
    o->wait_bits = 0;
    return SIM_OK;
}

bool switch_pause_enabled(const switch_t *sw)
{
    return sw->cfg.pause;
}

sim_cycle_t switch_port_latency(const switch_t *sw, uint32_t port)
{
    return port < sw->cfg.nports ? sw->ports[port].pc.latency : SIM_CYCLE_NEVER;
}

bool switch_paused(const switch_t *sw, uint32_t port)
{
    return port < sw->cfg.nports && sw->ports[port].paused;
}

sim_cycle_t switch_port_next_event(const switch_t *sw, uint32_t port)
{
    const struct port *p;

    if (port >= sw->cfg.nports)
        return SIM_CYCLE_NEVER;
    p = &sw->ports[port];
    return p->nheap ? p->slots[p->heap[0]].deliver : SIM_CYCLE_NEVER;
}

sim_cycle_t switch_next_event(const switch_t *sw)
{
    sim_cycle_t t = SIM_CYCLE_NEVER;

    for (uint32_t i = 0; i < sw->cfg.nports; i++)
        t = sim_cycle_min(t, switch_port_next_event(sw, i));
    return t;
}

const struct switch_port_counters *switch_port_counters(const switch_t *sw, uint32_t port)
{
    return port < sw->cfg.nports ? &sw->ports[port].ctr : NULL;
}

void switch_totals(const switch_t *sw, struct switch_port_counters *sum)
{
    memset(sum, 0, sizeof *sum);
    for (uint32_t i = 0; i < sw->cfg.nports; i++) {
        const uint64_t *src = (const uint64_t *)&sw->ports[i].ctr;
        uint64_t *dst = (uint64_t *)sum;
        for (size_t k = 0; k < sizeof *sum / sizeof(uint64_t); k++)
            inc(&dst[k], src[k]);
    }
}
