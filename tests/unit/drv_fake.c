/*
 * drv_fake.c - the fake NIC and host for the driver/library unit tests (contract: drv_fake.h).
 *
 * Role map: bus (registers, window, doorbells) -> cmd_process / sq_process; the scripted NCP:
 * lookup (hit, miss event, park), exec (one send queue entry, loopback copy through the DMA
 * oracle), post_event / cqe; the host services over sim_os and sim_hostmem; fake_run delivers
 * answers and interrupts and plays the miss thread.
 */
#include "drv_fake.h"

#include <stdlib.h>
#include <string.h>

#include "nic_fwimage.h"
#include "nic_memmap.h"
#include "nic_regs.h"

#define INFO_OFF 0x100u
#define CMD_RING_OFF 0x200u
#define CMD_ENTRIES 8u
#define SQ_ENTRIES 32u
#define MAX_PROCS 16u

enum { HIT = 0, MISS = 1 };

static const uint32_t block_off[] = { NIC_HOSTIF_OFFSET,  NIC_INTC_OFFSET,   NIC_TIMER_OFFSET,
                                      NIC_DMA_OFFSET,     NIC_MAC_OFFSET,    NIC_PERF_OFFSET,
                                      NIC_CONSOLE_OFFSET, NIC_TESTMB_OFFSET, NIC_DOORBELL_OFFSET };
static const uint32_t block_id[] = { NIC_HOSTIF_ID_VALUE,  NIC_INTC_ID_VALUE,   NIC_TIMER_ID_VALUE,
                                     NIC_DMA_ID_VALUE,     NIC_MAC_ID_VALUE,    NIC_PERF_ID_VALUE,
                                     NIC_CONSOLE_ID_VALUE, NIC_TESTMB_ID_VALUE, NIC_DOORBELL_ID_VALUE };
static const uint32_t block_version[] = { NIC_HOSTIF_VERSION_VALUE,  NIC_INTC_VERSION_VALUE,   NIC_TIMER_VERSION_VALUE,
                                          NIC_DMA_VERSION_VALUE,     NIC_MAC_VERSION_VALUE,    NIC_PERF_VERSION_VALUE,
                                          NIC_CONSOLE_VERSION_VALUE, NIC_TESTMB_VERSION_VALUE, NIC_DOORBELL_VERSION_VALUE };

static void raise_irq(struct fake *f, uint32_t bits)
{
    f->irq_cause |= bits;
    if (f->irq_cause & f->irq_mask)
        f->irq_pending = true;
}

static void post_event(struct fake *f, struct nic_event *e)
{
    if (!f->ev_pa || f->ev_pi - f->ev_ci >= f->ev_size)
        return; /* the real NCP holds it; the fake's rings never fill in these tests */
    e->phase = (uint8_t)(((f->ev_pi / f->ev_size) & 1u) ^ 1u);
    uint64_t pa = f->ev_pa + (f->ev_pi % f->ev_size) * sizeof *e;
    uint32_t first = 256u - (uint32_t)(pa % 256u);
    if (first < sizeof *e) {
        /* As the NIC's DMA engine: an entry that crosses a 256-byte boundary goes in two bursts;
         * the second lands only after the driver had its chance to look (run, after the interrupt). */
        hostmem_dma_write(f->mem, 0, pa, e, first);
        memcpy(f->torn_tail, (const uint8_t *)e + first, sizeof *e - first);
        f->torn_pa = pa + first;
        f->torn_len = (uint32_t)sizeof *e - first;
        f->events_torn++;
    } else {
        hostmem_dma_write(f->mem, 0, pa, e, sizeof *e);
    }
    f->ev_pi++;
    raise_irq(f, e->type == NIC_EV_MISS ? NIC_HOSTIF_IRQ_CAUSE_MISS_MASK : NIC_HOSTIF_IRQ_CAUSE_CMPL_MASK);
}

/* ---- the caches ---- */

static uint32_t line_len(unsigned cache)
{
    return cache == NIC_CACHE_VMH ? FAKE_VMH_L : cache == NIC_CACHE_CBH ? FAKE_CBH_L : FAKE_PCH_L;
}

static struct fake_line *find(struct fake *f, unsigned cache, uint16_t pid, uint32_t key)
{
    for (unsigned i = 0; i < FAKE_LINES; i++) {
        struct fake_line *l = &f->lines[cache][i];
        if (l->used && l->pid == pid && l->key == key)
            return l;
    }
    return NULL;
}

static struct fake_line *victim(struct fake *f, unsigned cache, bool evict)
{
    struct fake_line *v = NULL;
    for (unsigned i = 0; i < FAKE_LINES; i++) {
        struct fake_line *l = &f->lines[cache][i];
        if (!l->used)
            return l;
        if (!v || l->stamp < v->stamp)
            v = l;
    }
    return evict ? v : NULL;
}

/* HIT with *entry pointing at the entry, or MISS (miss event posted once per line). */
static int lookup(struct fake *f, unsigned cache, uint16_t pid, uint64_t n, const uint8_t **entry)
{
    uint32_t key = (uint32_t)(n / line_len(cache));
    struct fake_line *l = find(f, cache, pid, key);
    size_t esz = cache == NIC_CACHE_VMH ? 8 : cache == NIC_CACHE_CBH ? 32 : 8;
    unsigned i;

    if (l) {
        l->stamp = ++f->stamp;
        l->uses++;
        *entry = l->data + (n % line_len(cache)) * esz;
        return HIT;
    }
    if (!f->dynamic) {
        static const uint8_t none[32];
        *entry = none; /* static: absent = invalid */
        return HIT;
    }
    for (i = 0; i < 16; i++)
        if (f->miss_out[i].used && f->miss_out[i].cache == cache && f->miss_out[i].pid == pid &&
            f->miss_out[i].key == key)
            return MISS;
    for (i = 0; i < 16 && f->miss_out[i].used; i++)
        ;
    if (i < 16) {
        struct nic_event e = { .type = NIC_EV_MISS, .cache = (uint8_t)cache, .pid = pid, .key = key };
        e.lines = cache == NIC_CACHE_VMH && f->prefetch > 1 ? f->prefetch : 0; /* as the NCP: N lines */
        e.epoch = f->epoch[cache][pid & 0xFF];
        f->miss_out[i].used = true;
        f->miss_out[i].cache = (uint8_t)cache;
        f->miss_out[i].pid = pid;
        f->miss_out[i].key = key;
        f->misses_posted++;
        post_event(f, &e);
    }
    return MISS;
}

int fake_lookup(struct fake *f, unsigned cache, uint16_t pid, uint64_t n, const uint8_t **entry)
{
    return lookup(f, cache, pid, n, entry);
}

bool fake_vmh_cached(const struct fake *f, uint16_t pid, uint64_t va)
{
    uint64_t vpn = va >> 12;
    for (unsigned i = 0; i < FAKE_LINES; i++) {
        const struct fake_line *l = &f->lines[NIC_CACHE_VMH][i];
        const struct nic_vmh_entry *e = (const void *)l->data;
        if (l->used && l->pid == pid && l->key == vpn / FAKE_VMH_L && (e[vpn % FAKE_VMH_L].flags & NIC_ENTRY_VALID))
            return true;
    }
    return false;
}

uint32_t fake_lines_used(const struct fake *f, unsigned cache)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < FAKE_LINES; i++)
        n += f->lines[cache][i].used;
    return n;
}

/* ---- event queues (the NCP's rules: firmware/src/evq.c) ---- */

static void eq_fire(struct fake *f, unsigned id)
{
    struct nic_event e = { .type = NIC_EV_EQ, .pid = f->eq[id].pid, .a = id };
    f->eq[id].armed = false;
    f->eq_fires++;
    post_event(f, &e);
}

static void eq_put_x(struct fake *f, unsigned id, uint8_t type, uint16_t ep, uint32_t a, const uint32_t *bcd)
{
    struct fake_eq *q = &f->eq[id];
    uint32_t size = 1u << q->log2;
    struct nic_eqe e;

    if (q->lost && q->n - q->ci < size && type != NIC_EQE_OVERFLOW) {
        eq_put_x(f, id, NIC_EQE_OVERFLOW, 0, q->lost, NULL);
        q->lost = 0;
    }
    if (type != NIC_EQE_OVERFLOW && q->n - q->ci >= size - 1u) {
        q->lost++;
        f->eq_lost++;
        return;
    }
    memset(&e, 0, sizeof e);
    e.type = type;
    e.phase = (uint8_t)(((q->n >> q->log2) & 1u) ^ 1u);
    e.ep = ep;
    e.a = a;
    if (bcd) {
        e.b = bcd[0];
        e.c = bcd[1];
        e.d = bcd[2];
    }
    e.seq = q->n;
    hostmem_dma_write(f->mem, 0, q->pa + (q->n & (size - 1u)) * sizeof e, &e, sizeof e);
    q->n++;
    if (q->armed)
        eq_fire(f, id);
}

static void eq_put(struct fake *f, unsigned id, uint8_t type, uint16_t ep, uint32_t a)
{
    eq_put_x(f, id, type, ep, a, NULL);
}

/* A write with immediate landed for pid (loopback: every byte copied): its notification. */
static void eq_imm(struct fake *f, const struct nic_sq_entry *s)
{
    const uint32_t bcd[3] = { s->len, s->rbuf, s->roff_lo };
    for (unsigned id = 1; id < 16; id++)
        if (f->eq[id].open && f->eq[id].pid == s->rpid && (f->eq[id].flags & NIC_EQF_NOTIFY)) {
            eq_put_x(f, id, NIC_EQE_IMM, (uint16_t)f->node_id, s->reserved1[0], bcd);
            return;
        }
    f->imm_no_eq++;
}

/* ---- message queues (the NCP's rules: firmware/src/mq.c; every send is a loopback here) ---- */

static int notify_eq(struct fake *f, uint16_t pid)
{
    for (unsigned id = 1; id < 16; id++)
        if (f->eq[id].open && f->eq[id].pid == pid && (f->eq[id].flags & NIC_EQF_NOTIFY))
            return (int)id;
    return 0;
}

/* NIC_OP_POST_RECV, its local range checked: the buffer joins the ring (or a status). */
static int32_t mq_post(struct fake *f, unsigned epi, const struct nic_sq_entry *s, const struct nic_cbh_entry *cb)
{
    struct fake_mq *q = s->rbuf && s->rbuf < NIC_MQ_QUEUES ? &f->mq[s->rbuf] : NULL;
    uint64_t la = (uint64_t)s->laddr_hi << 32 | s->laddr_lo, va = (uint64_t)cb->va_hi << 32 | cb->va_lo;

    if (!q || !notify_eq(f, f->ep[epi].pid))
        return NIC_ST_BAD_HANDLE;
    if (q->open && (q->pid != f->ep[epi].pid || q->key != s->rkey))
        return NIC_ST_KEY;
    if (q->open && q->tail - q->head >= NIC_MQ_DEPTH)
        return NIC_ST_NO_RESOURCES;
    if (!q->open)
        *q = (struct fake_mq){ .open = true, .pid = f->ep[epi].pid, .ep = (uint16_t)epi, .key = s->rkey };
    q->b[q->tail++ % NIC_MQ_DEPTH].buf = s->lbuf;
    q->b[(q->tail - 1u) % NIC_MQ_DEPTH].off = (uint32_t)(la - va);
    q->b[(q->tail - 1u) % NIC_MQ_DEPTH].len = s->len;
    return NIC_ST_OK;
}

static void mq_event(struct fake *f, const struct fake_mq *q, uint32_t qid, uint16_t spid, uint32_t len, uint32_t buf,
                     uint32_t off, int32_t st)
{
    const uint32_t bcd[3] = { len, buf, off };
    int id = notify_eq(f, q->pid);
    if (!id)
        return;
    eq_put_x(f, (unsigned)id, NIC_EQE_RECV, (uint16_t)f->node_id, qid, bcd);
    struct fake_eq *e = &f->eq[id]; /* the source process and the status: the entry just written */
    struct nic_eqe x;
    uint64_t at = e->pa + ((e->n - 1u) & ((1u << e->log2) - 1u)) * sizeof x;
    hostmem_dma_read(f->mem, 0, at, &x, sizeof x);
    x.pid = spid;
    x.status = st;
    hostmem_dma_write(f->mem, 0, at, &x, sizeof x);
}

/* A send from endpoint epi (loopback): [la, +len) into the queue's oldest buffer; *st. */
static void mq_send(struct fake *f, unsigned epi, const struct nic_sq_entry *s, uint64_t la, int32_t *st)
{
    struct fake_mq *q = s->rbuf && s->rbuf < NIC_MQ_QUEUES ? &f->mq[s->rbuf] : NULL;
    uint8_t b[NIC_MSG_MAX];

    if (!q || !q->open)
        *st = NIC_ST_BAD_HANDLE;
    else if (q->key != s->rkey)
        *st = NIC_ST_KEY;
    else if (q->head == q->tail)
        *st = NIC_ST_RNR; /* (no retries here: the NIC's would find none posted either) */
    else if (s->len > q->b[q->head % NIC_MQ_DEPTH].len) {
        *st = NIC_ST_TOO_BIG;
        mq_event(f, q, s->rbuf, f->ep[epi].pid, s->len, q->b[q->head % NIC_MQ_DEPTH].buf,
                 q->b[q->head % NIC_MQ_DEPTH].off, NIC_ST_TOO_BIG);
    }
    if (*st) {
        f->mq_refused++;
        return;
    }
    const struct nic_cbh_entry *cb;
    if (lookup(f, NIC_CACHE_CBH, q->pid, q->b[q->head % NIC_MQ_DEPTH].buf, (const uint8_t **)&cb) == MISS) {
        *st = NIC_ST_BAD_HANDLE;
        return;
    }
    uint64_t dst = ((uint64_t)cb->va_hi << 32 | cb->va_lo) + q->b[q->head % NIC_MQ_DEPTH].off;
    if (os_read(f->os, f->ep[epi].pid, la, b, s->len) || os_write(f->os, q->pid, dst, b, s->len)) {
        *st = NIC_ST_HOST_ERROR;
        return;
    }
    mq_event(f, q, s->rbuf, f->ep[epi].pid, s->len, q->b[q->head % NIC_MQ_DEPTH].buf,
             q->b[q->head % NIC_MQ_DEPTH].off, NIC_ST_OK);
    q->head++;
    f->mq_placed++;
}

/* ---- send queues ---- */

static void cqe(struct fake *f, struct fake_ep *ep, const struct nic_sq_entry *s, int32_t st, uint32_t bytes)
{
    struct nic_cqe c;

    if (st == NIC_ST_OK && !(s->flags & NIC_WR_SIGNALED))
        return;
    memset(&c, 0, sizeof c);
    c.wr_id_lo = s->wr_id_lo;
    c.wr_id_hi = s->wr_id_hi;
    c.status = st;
    c.bytes = bytes;
    c.op = s->op;
    c.req = ep->sq_ci - 1u; /* called after the request retired: sq_ci counts it */
    c.sq_ci = (uint16_t)ep->sq_ci;
    c.phase = (uint8_t)(((ep->cq_pi / ep->cq_n) & 1u) ^ 1u);
    hostmem_dma_write(f->mem, 0, ep->cq_pa + (ep->cq_pi % ep->cq_n) * sizeof c, &c, sizeof c);
    ep->cq_pi++;
    f->cqes++;
    if (ep->eq && f->eq[ep->eq].open)
        eq_put(f, ep->eq, NIC_EQE_CQ, (uint16_t)(ep - f->ep), ep->cq_pi - 1u);
}

/* Checks a VMH page: HIT and *pa, MISS, or a status. Decided on the VMH word, as the NCP keeps
 * the entry (nic_abi.h): a page beyond the word's reach is not mapped, as on the NIC. */
static int page(struct fake *f, uint16_t pid, uint64_t va, uint32_t right, uint64_t *pa, int32_t *st)
{
    const struct nic_vmh_entry *e;
    uint32_t w;
    if (lookup(f, NIC_CACHE_VMH, pid, va >> 12, (const uint8_t **)&e) == MISS)
        return MISS;
    w = nic_vmh_word(e->ppn, e->flags);
    if (!nic_vmh_valid(w))
        *st = NIC_ST_BAD_HANDLE;
    else if (!nic_vmh_allows(w, right))
        *st = NIC_ST_RIGHTS;
    *pa = nic_vmh_pa(w, va);
    return HIT;
}

/* One request: MISS (parked) or done with *st. */
static int exec(struct fake *f, unsigned epi, const struct nic_sq_entry *s, int32_t *st, uint32_t *bytes)
{
    struct fake_ep *ep = &f->ep[epi];
    const struct nic_pch_entry *pc;
    const struct nic_cbh_entry *cb;
    uint64_t la = (uint64_t)s->laddr_hi << 32 | s->laddr_lo, roff = (uint64_t)s->roff_hi << 32 | s->roff_lo;
    uint64_t rva, rlen;
    bool wr = s->op == NIC_OP_RDMA_WRITE;
    uint8_t buf[NICDRV_PAGE_SIZE];

    *st = NIC_ST_OK;
    *bytes = 0;
    if ((s->op != NIC_OP_RDMA_WRITE && s->op != NIC_OP_RDMA_READ && s->op != NIC_OP_POST_RECV) || !s->len ||
        s->len > NIC_MAX_XFER || (s->flags & ~(NIC_WR_SIGNALED | NIC_WR_IMM | NIC_WR_SEND)) ||
        ((s->flags & (NIC_WR_IMM | NIC_WR_SEND)) && s->op != NIC_OP_RDMA_WRITE) ||
        (s->flags & (NIC_WR_IMM | NIC_WR_SEND)) == (NIC_WR_IMM | NIC_WR_SEND) ||
        ((s->flags & NIC_WR_SEND) && (s->len > NIC_MSG_MAX || roff || s->rpid)) ||
        (s->op == NIC_OP_POST_RECV && (s->rnode != f->node_id || roff || s->rpid)) ||
        s->reserved1[0] > ((s->flags & NIC_WR_IMM) ? NIC_IMM_MAX : 0u)) { /* as sqe_validate */
        *st = NIC_ST_BAD_DESC;
        return HIT;
    }
    if (lookup(f, NIC_CACHE_PCH, ep->pid, ep->pid, (const uint8_t **)&pc) == MISS)
        return MISS;
    if (!(pc->flags & NIC_ENTRY_VALID)) { /* as the NCP: the process is known (it may have several endpoints) */
        *st = NIC_ST_BAD_HANDLE;
        return HIT;
    }
    /* the local range against the named local buffer, as the NCP does (ABI 2.0 lbuf) */
    if (lookup(f, NIC_CACHE_CBH, ep->pid, s->lbuf, (const uint8_t **)&cb) == MISS)
        return MISS;
    rva = (uint64_t)cb->va_hi << 32 | cb->va_lo;
    rlen = (uint64_t)cb->len_hi << 32 | cb->len_lo;
    if (!(cb->flags & NIC_ENTRY_VALID) || cb->owner_pid != ep->pid)
        *st = NIC_ST_BAD_HANDLE;
    else if (la < rva || la - rva > rlen || s->len > rlen - (la - rva))
        *st = NIC_ST_BOUNDS;
    else if (!(cb->flags & (wr ? NIC_RIGHT_LOCAL_READ : NIC_RIGHT_LOCAL_WRITE)))
        *st = NIC_ST_RIGHTS;
    if (*st) {
        f->local_refused++;
        return HIT;
    }
    if (s->op == NIC_OP_POST_RECV) { /* ABI 2.2 */
        *st = mq_post(f, epi, s, cb);
        *bytes = *st ? 0 : s->len;
        return HIT;
    }
    if (s->rnode != f->node_id) {
        *st = NIC_ST_UNREACHABLE; /* node 1 never answers: as after the retry limit */
        return HIT;
    }
    if (s->flags & NIC_WR_SEND) { /* ABI 2.2: a message (the pages: checked by the copy) */
        mq_send(f, epi, s, la, st);
        *bytes = *st ? 0 : s->len;
        return HIT;
    }
    if (lookup(f, NIC_CACHE_CBH, s->rpid, s->rbuf, (const uint8_t **)&cb) == MISS)
        return MISS;
    rva = (uint64_t)cb->va_hi << 32 | cb->va_lo;
    rlen = (uint64_t)cb->len_hi << 32 | cb->len_lo;
    if (!(cb->flags & NIC_ENTRY_VALID) || cb->owner_pid != s->rpid)
        *st = NIC_ST_BAD_HANDLE;
    else if (cb->key != s->rkey)
        *st = NIC_ST_KEY;
    else if (!(cb->flags & (wr ? NIC_RIGHT_REMOTE_WRITE : NIC_RIGHT_REMOTE_READ)))
        *st = NIC_ST_RIGHTS;
    else if (roff > rlen || s->len > rlen - roff)
        *st = NIC_ST_BOUNDS;
    if (*st)
        return HIT;
    /* translate everything first (a miss parks the whole request; nothing moved yet) */
    for (uint64_t o = 0; o < s->len; o = (o | 0xFFF) + 1) {
        uint64_t pa;
        if (page(f, ep->pid, la + o, wr ? NIC_RIGHT_LOCAL_READ : NIC_RIGHT_LOCAL_WRITE, &pa, st) == MISS ||
            page(f, s->rpid, rva + roff + o, wr ? NIC_RIGHT_REMOTE_WRITE : NIC_RIGHT_REMOTE_READ, &pa, st) == MISS)
            return MISS;
        if (*st)
            return HIT;
    }
    for (uint64_t o = 0; o < s->len;) { /* copy in pieces that cross no page on either side */
        uint64_t src = wr ? la + o : rva + roff + o, dst = wr ? rva + roff + o : la + o, spa, dpa;
        uint16_t spid = wr ? ep->pid : s->rpid, dpid = wr ? s->rpid : ep->pid;
        uint64_t n = s->len - o;
        if (n > 0x1000 - (src & 0xFFF))
            n = 0x1000 - (src & 0xFFF);
        if (n > 0x1000 - (dst & 0xFFF))
            n = 0x1000 - (dst & 0xFFF);
        page(f, spid, src, 0xF0, &spa, st);
        page(f, dpid, dst, 0xF0, &dpa, st);
        *st = NIC_ST_OK;
        if (hostmem_dma_read(f->mem, 0, spa, buf, n) || hostmem_dma_write(f->mem, 0, dpa, buf, n)) {
            *st = NIC_ST_HOST_ERROR;
            return HIT;
        }
        o += n;
    }
    *bytes = s->len;
    if (s->flags & NIC_WR_IMM)
        eq_imm(f, s);
    return HIT;
}

static void sq_process(struct fake *f, unsigned epi)
{
    struct fake_ep *ep = &f->ep[epi];

    while (ep->open && ep->sq_ci != ep->sq_pi) {
        struct nic_sq_entry s;
        int32_t st;
        uint32_t bytes;
        if (ep->host) /* ABI 2.2: the entry from the process's page, by DMA */
            hostmem_dma_read(f->mem, 0, ep->sq_pa + (ep->sq_ci % SQ_ENTRIES) * sizeof s, &s, sizeof s);
        else
            memcpy(&s, f->sram + NIC_SRAM_SENDQ_OFFSET + epi * NIC_SENDQ_STRIDE + (ep->sq_ci % SQ_ENTRIES) * sizeof s,
                   sizeof s);
        if (exec(f, epi, &s, &st, &bytes) == MISS)
            return;
        ep->sq_ci++;
        cqe(f, ep, &s, st, bytes);
    }
}

static void sq_all(struct fake *f)
{
    for (unsigned i = 1; i < FAKE_EP_IDS; i++)
        sq_process(f, i);
}

/* ---- commands ---- */

static int32_t install(struct fake *f, const struct nic_cmd *c, bool fill)
{
    uint64_t pa = (uint64_t)c->b << 32 | c->a;
    struct fake_line *l;
    size_t len = line_len(c->cache) * (c->cache == NIC_CACHE_CBH ? 32u : 8u);

    if (fill && f->fill_nores) {
        f->fill_nores--;
        return NIC_ST_NO_RESOURCES; /* the NCP's FILL had no DMA room: nothing changed */
    }
    if (fill && !(c->c & NIC_FILL_CURRENT) && c->epoch != f->epoch[c->cache][c->pid & 0xFF]) {
        f->fills_rejected++;
        for (unsigned i = 0; i < 16; i++) /* the next lookup misses (and posts) again */
            if (f->miss_out[i].used && f->miss_out[i].cache == c->cache && f->miss_out[i].pid == c->pid &&
                f->miss_out[i].key == c->key)
                f->miss_out[i].used = false;
        return NIC_ST_NO_RESOURCES;
    }
    l = find(f, c->cache, c->pid, c->key);
    if (!l)
        l = victim(f, c->cache, fill);
    if (!l)
        return NIC_ST_NO_RESOURCES; /* static table full */
    if (hostmem_dma_read(f->mem, 0, pa, l->data, len))
        return NIC_ST_HOST_ERROR;
    l->used = true;
    l->pid = c->pid;
    l->key = c->key;
    l->stamp = ++f->stamp;
    l->uses = 0;
    for (unsigned i = 0; i < 16; i++)
        if (f->miss_out[i].used && f->miss_out[i].cache == c->cache && f->miss_out[i].pid == c->pid &&
            f->miss_out[i].key == c->key)
            f->miss_out[i].used = false;
    return NIC_ST_OK;
}

static int32_t cmd_exec(struct fake *f, const struct nic_cmd *c)
{
    struct fake_ep *ep;

    if (c->op < 16)
        f->cmds[c->op]++;
    switch (c->op) {
    case NIC_CMD_INIT:
        f->ev_pa = (uint64_t)c->b << 32 | c->a;
        f->ev_size = 1u << c->c;
        f->ev_pi = f->ev_ci = 0;
        if (c->ep > NIC_PREFETCH_MAX)
            return NIC_ST_BAD_CMD;
        f->prefetch = c->ep;
        return NIC_ST_OK;
    case NIC_CMD_EP_TABLE:
        if (!f->max_eps || c->key >= 4 || (((uint64_t)c->b << 32 | c->a) % 4096u) || !c->a)
            return NIC_ST_BAD_CMD;
        f->ept_pa[c->key] = (uint64_t)c->b << 32 | c->a;
        f->ep_tables++;
        return NIC_ST_OK;
    case NIC_CMD_EP_OPEN:
        if (c->ep >= MAX_PROCS) { /* a host endpoint: its context from the driver's table */
            struct nic_ep_ctx x;
            if (c->ep >= f->max_eps || !f->ept_pa[c->ep / NIC_EPC_PER_PAGE] || f->ep[c->ep].open ||
                hostmem_dma_read(f->mem, 0, f->ept_pa[c->ep / NIC_EPC_PER_PAGE] + (c->ep % NIC_EPC_PER_PAGE) * sizeof x,
                                 &x, sizeof x) ||
                !(x.flags & NIC_EPC_VALID) || x.pid != c->pid)
                return NIC_ST_BAD_CMD;
            ep = &f->ep[c->ep];
            memset(ep, 0, sizeof *ep);
            ep->open = ep->host = true;
            ep->eq = x.eq;
            ep->pid = x.pid;
            ep->cq_pa = (uint64_t)x.cq_hi << 32 | x.cq_lo;
            ep->cq_n = 1u << x.cq_log2;
            ep->sq_pa = (uint64_t)x.sq_hi << 32 | x.sq_lo;
            return NIC_ST_OK;
        }
        if (!c->ep || c->ep >= MAX_PROCS || f->ep[c->ep].open ||
            (c->d && (c->d >= MAX_PROCS || !f->eq[c->d].open || f->eq[c->d].pid != c->pid)))
            return NIC_ST_BAD_CMD;
        ep = &f->ep[c->ep];
        memset(ep, 0, sizeof *ep);
        ep->open = true;
        ep->eq = (uint16_t)c->d;
        ep->pid = c->pid;
        ep->cq_pa = (uint64_t)c->b << 32 | c->a;
        ep->cq_n = 1u << c->c;
        return NIC_ST_OK;
    case NIC_CMD_EP_CLOSE:
        if (!c->ep || c->ep >= FAKE_EP_IDS || !f->ep[c->ep].open)
            return NIC_ST_BAD_CMD;
        ep = &f->ep[c->ep];
        while (ep->sq_ci != ep->sq_pi) { /* flush: every outstanding request, in order */
            struct nic_sq_entry s;
            if (ep->host)
                hostmem_dma_read(f->mem, 0, ep->sq_pa + (ep->sq_ci % SQ_ENTRIES) * sizeof s, &s, sizeof s);
            else
                memcpy(&s, f->sram + NIC_SRAM_SENDQ_OFFSET + c->ep * NIC_SENDQ_STRIDE + (ep->sq_ci % SQ_ENTRIES) * sizeof s,
                       sizeof s);
            ep->sq_ci++;
            cqe(f, ep, &s, NIC_ST_FLUSHED, 0);
        }
        ep->open = false;
        for (unsigned i = 1; i < NIC_MQ_QUEUES; i++) /* its message queues are free again */
            if (f->mq[i].open && f->mq[i].ep == c->ep)
                f->mq[i].open = false;
        return NIC_ST_OK;
    case NIC_CMD_FILL:
        if (c->cache >= NIC_CACHE__COUNT || !f->dynamic)
            return NIC_ST_BAD_CMD;
        return install(f, c, true);
    case NIC_CMD_STATIC_LOAD:
        if (c->cache >= NIC_CACHE__COUNT || f->dynamic)
            return NIC_ST_BAD_CMD;
        return install(f, c, false);
    case NIC_CMD_INVALIDATE:
        if (c->cache >= NIC_CACHE__COUNT)
            return NIC_ST_BAD_CMD;
        for (uint32_t k = 0; k < c->c; k++) {
            struct fake_line *l = find(f, c->cache, c->pid, c->key + k);
            if (l)
                l->used = false;
        }
        f->epoch[c->cache][c->pid & 0xFF]++;
        return NIC_ST_OK;
    case NIC_CMD_STATS: {
        struct nic_stats s;
        memset(&s, 0, sizeof s);
        s.drops_miss = f->misses_posted;
        hostmem_dma_write(f->mem, 0, (uint64_t)c->b << 32 | c->a, &s, sizeof s);
        return NIC_ST_OK;
    }
    case NIC_CMD_SHUTDOWN:
        f->fw_state = NIC_HOSTIF_FW_STATE_STATE_SHUTDOWN;
        return NIC_ST_OK;
    case NIC_CMD_EQ_OPEN: {
        struct fake_eq *q = c->ep && c->ep < MAX_PROCS ? &f->eq[c->ep] : NULL;
        if (!q || q->open || c->c < 1 || c->c > NIC_EQ_LOG2_MAX || (c->d & ~NIC_EQF_NOTIFY))
            return NIC_ST_BAD_CMD;
        memset(q, 0, sizeof *q);
        q->open = true;
        q->pid = c->pid;
        q->pa = (uint64_t)c->b << 32 | c->a;
        q->log2 = c->c;
        q->flags = c->d;
        return NIC_ST_OK;
    }
    case NIC_CMD_USAGE: { /* the VMH lines with their LRU stamps, as the NCP's ways; d = NIC_USAGE_COUNTS
                           * (ABI 2.3): their hit counts, a uint32_t each in the same order */
        struct nic_usage_way w[FAKE_LINES];
        uint32_t uses[FAKE_LINES];
        const uint32_t rec = c->d ? sizeof uses[0] : sizeof w[0];
        uint32_t n = 0;
        if (c->cache >= NIC_CACHE__COUNT || c->c < rec || (c->d & ~NIC_USAGE_COUNTS))
            return NIC_ST_BAD_CMD;
        memset(w, 0, sizeof w);
        memset(uses, 0, sizeof uses);
        for (unsigned i = 0; i < FAKE_LINES; i++) {
            const struct fake_line *l = &f->lines[c->cache][i];
            if (l->used) {
                w[i] = (struct nic_usage_way){ .key = l->pid | NIC_USAGE_VALID, .stamp = (uint32_t)l->stamp,
                                               .line = l->key };
                uses[i] = l->uses;
            }
        }
        n = c->c / rec < FAKE_LINES ? c->c / rec : FAKE_LINES;
        f->usage_cmds++;
        hostmem_dma_write(f->mem, 0, (uint64_t)c->b << 32 | c->a, c->d ? (const void *)uses : (const void *)w, n * rec);
        return NIC_ST_OK;
    }
    case NIC_CMD_EQ_POST: {
        const uint32_t bcd[3] = { c->b, c->c, c->d };
        if (!c->ep || c->ep >= MAX_PROCS || !f->eq[c->ep].open || f->eq[c->ep].pid != c->pid ||
            c->key != NIC_EQE_UPCALL)
            return NIC_ST_BAD_CMD;
        eq_put_x(f, c->ep, NIC_EQE_UPCALL, 0, c->a, bcd);
        return NIC_ST_OK;
    }
    case NIC_CMD_EQ_CLOSE:
        if (!c->ep || c->ep >= MAX_PROCS || !f->eq[c->ep].open)
            return NIC_ST_BAD_CMD;
        f->eq[c->ep].open = false;
        for (unsigned e = 0; e < FAKE_EP_IDS; e++)
            if (f->ep[e].eq == c->ep)
                f->ep[e].eq = 0;
        return NIC_ST_OK;
    case NIC_CMD_EQ_ARM: {
        struct fake_eq *q = c->ep && c->ep < MAX_PROCS && f->eq[c->ep].open ? &f->eq[c->ep] : NULL;
        if (!q || q->pid != c->pid || c->a - q->ci > q->n - q->ci || c->c > 1)
            return NIC_ST_BAD_CMD;
        f->eq_arms++;
        q->ci = c->a;
        if (q->lost && q->n - q->ci < (1u << q->log2)) {
            eq_put(f, c->ep, NIC_EQE_OVERFLOW, 0, q->lost);
            q->lost = 0;
        }
        if (c->c == NIC_EQ_ARM_COUNT_ONLY)
            return NIC_ST_OK;
        if (c->a != q->n)
            eq_fire(f, c->ep);
        else
            q->armed = true;
        return NIC_ST_OK;
    }
    default:
        return NIC_ST_BAD_CMD;
    }
}

static void cmd_process(struct fake *f, uint32_t pi)
{
    while (f->cmd_ci != pi && f->boot != FAKE_BOOT_NO_INIT) {
        struct nic_cmd c;
        struct fake_answer *a;
        memcpy(&c, f->sram + CMD_RING_OFF + (f->cmd_ci % CMD_ENTRIES) * sizeof c, sizeof c);
        f->cmd_ci++;
        a = &f->answers[f->nanswers++ % 64];
        a->seq = c.seq;
        a->status = cmd_exec(f, &c);
        a->op = c.op;
        a->cache = c.cache;
        a->pid = c.pid;
        a->key = c.key;
        a->lines = c.c;
        if (c.op == NIC_CMD_FILL || c.op == NIC_CMD_STATIC_LOAD || c.op == NIC_CMD_EP_OPEN)
            sq_all(f);
    }
}

/* ---- bus ---- */

static void boot(struct fake *f)
{
    struct nic_info in;

    memset(&in, 0, sizeof in);
    in.magic = f->boot == FAKE_BOOT_NO_INFO ? 0 : NIC_INFO_MAGIC;
    in.abi_version = f->boot == FAKE_BOOT_ABI_MAJOR ? (NIC_ABI_VERSION_MAJOR + 1) << 16 : NIC_ABI_VERSION;
    in.fw_version = 0x00010000;
    in.caps = (f->dynamic ? NIC_CAP_DYNAMIC_LOOKUP | NIC_CAP_NACK : 0) | (f->no_usage_counts ? 0 : NIC_CAP_USAGE_COUNTS);
    in.mtu = 4096;
    in.max_procs = MAX_PROCS;
    in.max_eps = (uint16_t)f->max_eps; /* ABI 2.2 */
    in.ep_slots = f->max_eps ? 16u : 0u;
    in.sq_entries = SQ_ENTRIES;
    in.cmd_entries = CMD_ENTRIES;
    in.max_peers = 2;
    in.cmd_ring = CMD_RING_OFF;
    in.sq_base = NIC_SRAM_SENDQ_OFFSET;
    in.sq_stride = NIC_SENDQ_STRIDE;
    in.cache[NIC_CACHE_VMH] = (struct nic_cache_geom){ FAKE_LINES * FAKE_VMH_L, FAKE_VMH_L, 4 };
    in.cache[NIC_CACHE_CBH] = (struct nic_cache_geom){ FAKE_LINES * FAKE_CBH_L, FAKE_CBH_L, 4 };
    in.cache[NIC_CACHE_PCH] = (struct nic_cache_geom){ FAKE_LINES * FAKE_PCH_L, FAKE_PCH_L, 4 };
    memcpy(f->sram + INFO_OFF, &in, sizeof in);
    f->fw_info = INFO_OFF;
    f->fw_state = f->boot == FAKE_BOOT_NEVER  ? NIC_HOSTIF_FW_STATE_STATE_BOOT
                  : f->boot == FAKE_BOOT_TRAP ? (0x5u << NIC_HOSTIF_FW_STATE_CODE_SHIFT | NIC_HOSTIF_FW_STATE_STATE_HALTED)
                                              : NIC_HOSTIF_FW_STATE_STATE_READY;
}

static int fk_wr32(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t val)
{
    struct fake *f = ctx;

    if (bar == NICDRV_BAR_REGS) {
        switch (off) {
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_CTRL:
            if ((f->ctrl & NIC_HOSTIF_CTRL_CORE_RESET_MASK) && !(val & NIC_HOSTIF_CTRL_CORE_RESET_MASK))
                boot(f);
            if (val & NIC_HOSTIF_CTRL_CORE_RESET_MASK) { /* the core stops: no more DMA */
                f->fw_state = NIC_HOSTIF_FW_STATE_STATE_BOOT;
                f->ev_pa = 0;
            }
            f->ctrl = val;
            break;
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_IRQ_CAUSE:
            f->irq_cause &= ~val;
            break;
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_IRQ_MASK:
            f->irq_mask = val;
            break;
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_WIN_BASE:
            f->win_base = val;
            break;
        case NIC_MAC_OFFSET + NIC_MAC_NODE_ID:
            f->node_id = val;
            break;
        default:
            break;
        }
        return 0;
    }
    if (bar == NICDRV_BAR_WINDOW) {
        uint32_t at = f->win_base + off;
        if (f->ctrl & NIC_HOSTIF_CTRL_WIN_IMEM_MASK) {
            if (at + 4 <= NIC_IMEM_SIZE && (f->ctrl & NIC_HOSTIF_CTRL_CORE_RESET_MASK))
                memcpy(f->imem + at, &val, 4);
        } else if (at + 4 <= NIC_SRAM_SIZE) {
            memcpy(f->sram + at, &val, 4);
        }
        return 0;
    }
    if (bar == NICDRV_BAR_DOORBELL) {
        uint32_t pg = off / NIC_DB_PAGE, o = off % NIC_DB_PAGE;
        if (pg == 0 && o == NIC_DB_CMD_PI)
            cmd_process(f, val);
        else if (pg == 0 && o == NIC_DB_EV_CI)
            f->ev_ci = val;
        else if (pg && pg < MAX_PROCS && o < NIC_DB_SQ_BYTES)
            memcpy(f->sram + NIC_SRAM_SENDQ_OFFSET + pg * NIC_SENDQ_STRIDE + o, &val, 4);
        else if (pg && pg < MAX_PROCS && o == NIC_DB_SQ_PI && f->ep[pg].open) {
            f->ep[pg].sq_pi = val;
            sq_process(f, pg);
        } else if (pg >= MAX_PROCS && pg < FAKE_EP_IDS && o == NIC_DB_SQ_PI) {
            /* a host endpoint (ABI 2.2): the count from the owner's record; the value a hint */
            struct fake_ep *e = &f->ep[pg];
            uint32_t rec = 0;
            if (!e->open || !e->host || hostmem_dma_read(f->mem, 0, e->sq_pa + NIC_EPC_DBREC, &rec, sizeof rec) ||
                rec - e->sq_ci > SQ_ENTRIES || val - rec - 1u < 0x80000000u) {
                f->db_refused++; /* closed, a record out of bounds, or a ring ahead of the record */
            } else {
                e->sq_pi = rec;
                sq_process(f, pg);
            }
        }
        return 0;
    }
    return NICDRV_EBUS;
}

static int fk_rd32(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t *val)
{
    struct fake *f = ctx;

    if (bar == NICDRV_BAR_REGS) {
        for (unsigned i = 0; i < sizeof block_off / sizeof block_off[0]; i++) {
            if (off == block_off[i]) {
                *val = block_id[i] ^ ((int)i == f->bad_block ? 0x01000000u : 0);
                return 0;
            }
            if (off == block_off[i] + 4) {
                *val = block_version[i];
                return 0;
            }
        }
        switch (off) {
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_FW_STATE:
            *val = f->fw_state;
            return 0;
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_FW_INFO:
            *val = f->fw_info;
            return 0;
        case NIC_HOSTIF_OFFSET + NIC_HOSTIF_IRQ_CAUSE:
            *val = f->irq_cause;
            return 0;
        default:
            *val = 0;
            return 0;
        }
    }
    if (bar == NICDRV_BAR_WINDOW) {
        uint32_t at = f->win_base + off;
        const uint8_t *m = (f->ctrl & NIC_HOSTIF_CTRL_WIN_IMEM_MASK) ? f->imem : f->sram;
        uint32_t lim = (f->ctrl & NIC_HOSTIF_CTRL_WIN_IMEM_MASK) ? NIC_IMEM_SIZE : NIC_SRAM_SIZE;
        *val = 0xFFFFFFFFu;
        if (at + 4 <= lim)
            memcpy(val, m + at, 4);
        return 0;
    }
    return NICDRV_EBUS;
}

/* ---- the world ---- */

/* The miss thread runs only from top-level runs and sleeps, never inside a driver wait: the
 * waiting thread may hold the table lock, which a real miss thread would simply wait for. */
static void run(struct fake *f, bool miss_thread)
{
    if (f->in_run)
        return;
    f->in_run = true;
    for (int round = 0; round < 64; round++) {
        bool did = false;
        for (uint32_t i = 0; i < f->nanswers; i++) { /* answers, in order */
            struct fake_answer *a = &f->answers[i % 64];
            struct nic_event e = { .type = NIC_EV_CMD_DONE, .status = a->status, .a = a->seq };
            post_event(f, &e);
            if (f->trace_len + 1 < sizeof f->trace)
                f->trace[f->trace_len++] = a->op == NIC_CMD_INVALIDATE ? 'I' : a->op == NIC_CMD_FILL ? 'F' : 'c';
        }
        did = f->nanswers != 0;
        f->nanswers = 0;
        if (f->irq_pending) {
            f->irq_pending = false;
            nicdrv_intr(f->drv, f->now);
            did = true;
        }
        if (f->torn_len) { /* the second burst of a split event entry */
            hostmem_dma_write(f->mem, 0, f->torn_pa, f->torn_tail, f->torn_len);
            f->torn_len = 0;
            raise_irq(f, NIC_HOSTIF_IRQ_CAUSE_CMPL_MASK);
            did = true;
        }
        if (miss_thread && f->auto_miss && !f->in_miss && f->drv) {
            struct nicdrv_miss m;
            f->in_miss = true;
            while (nicdrv_miss_pop(f->drv, &m) == NICDRV_OK) {
                f->in_run = false; /* the fill's own wait runs the world again */
                nicdrv_miss_resolve(f->drv, &m);
                f->in_run = true;
                did = true;
            }
            f->in_miss = false;
        }
        if (!did)
            break;
    }
    f->in_run = false;
}

void fake_run(struct fake *f)
{
    run(f, true);
}

/* ---- host services ---- */

static int h_pin(void *ctx, uint32_t pid, uint64_t va, uint64_t len)
{
    struct fake *f = ctx;
    f->pin_calls++;
    return os_pin(f->os, pid, 0, va, len, NULL) ? NICDRV_EFAULT : NICDRV_OK;
}

static int h_unpin(void *ctx, uint32_t pid, uint64_t va, uint64_t len)
{
    struct fake *f = ctx;

    f->unpin_calls++;
    for (uint64_t o = 0; o < len; o += 4096) {
        uint32_t line = (uint32_t)(((va + o) >> 12) / FAKE_VMH_L);
        if (fake_vmh_cached(f, (uint16_t)pid, va + o))
            f->order_violations++;
        for (uint32_t i = 0; i < f->nanswers; i++) { /* invalidated but not yet answered */
            const struct fake_answer *a = &f->answers[i % 64];
            if (a->op == NIC_CMD_INVALIDATE && a->cache == NIC_CACHE_VMH && a->pid == pid && line >= a->key &&
                line - a->key < a->lines)
                f->order_violations++;
        }
    }
    if (f->trace_len + 1 < sizeof f->trace)
        f->trace[f->trace_len++] = 'U';
    return os_unpin(f->os, pid, 0, va, len, NULL) ? NICDRV_EFAULT : NICDRV_OK;
}

static int h_translate(void *ctx, uint32_t pid, uint64_t va, uint64_t *pa)
{
    struct fake *f = ctx;
    return os_translate(f->os, pid, va, pa) ? NICDRV_EFAULT : NICDRV_OK;
}

static int h_proc_read(void *ctx, uint32_t pid, uint64_t va, void *buf, size_t len)
{
    struct fake *f = ctx;
    return os_read(f->os, pid, va, buf, len) ? NICDRV_EFAULT : NICDRV_OK;
}

static int h_proc_write(void *ctx, uint32_t pid, uint64_t va, const void *buf, size_t len)
{
    struct fake *f = ctx;
    return os_write(f->os, pid, va, buf, len) ? NICDRV_EFAULT : NICDRV_OK;
}

static int h_dma_alloc(void *ctx, uint64_t *pa)
{
    struct fake *f = ctx;
    static const uint8_t zero[4096];
    uint64_t pfn;
    if (hostmem_frame_alloc(f->mem, &pfn) || hostmem_pin(f->mem, 0, pfn))
        return NICDRV_ENOMEM;
    *pa = pfn << 12;
    hostmem_cpu_write(f->mem, *pa, zero, sizeof zero);
    return NICDRV_OK;
}

static void h_dma_free(void *ctx, uint64_t pa)
{
    struct fake *f = ctx;
    hostmem_unpin(f->mem, 0, pa >> 12);
    hostmem_frame_free(f->mem, pa >> 12);
}

static int h_phys_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    struct fake *f = ctx;
    return hostmem_cpu_read(f->mem, pa, buf, len) ? NICDRV_EFAULT : NICDRV_OK;
}

static int h_phys_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    struct fake *f = ctx;
    return hostmem_cpu_write(f->mem, pa, buf, len) ? NICDRV_EFAULT : NICDRV_OK;
}

static uint64_t h_now(void *ctx)
{
    return ((struct fake *)ctx)->now;
}

static int h_sleep(void *ctx, uint64_t cycles)
{
    struct fake *f = ctx;
    f->now += cycles;
    fake_run(f);
    return NICDRV_OK;
}

static uint64_t evc[NICDRV_WQ__COUNT];

static uint64_t h_ev_count(void *ctx, enum nicdrv_waitq q)
{
    (void)ctx;
    return evc[q];
}

static void h_ev_signal(void *ctx, enum nicdrv_waitq q)
{
    (void)ctx;
    evc[q]++;
}

static int h_ev_wait(void *ctx, enum nicdrv_waitq q, uint64_t seen, uint64_t deadline)
{
    struct fake *f = ctx;

    run(f, false);
    if (evc[q] != seen)
        return NICDRV_OK;
    f->now = deadline == NICDRV_NEVER ? f->now + 1000 : deadline; /* nothing else can happen */
    return NICDRV_ETIMEDOUT;
}

static int h_va_check(void *ctx, uint32_t pid, uint64_t va, uint64_t len)
{
    struct fake *f = ctx;
    if (f->va_check_off)
        return NICDRV_OK;
    return os_va_check(f->os, pid, va, (size_t)len) ? NICDRV_EFAULT : NICDRV_OK;
}

static void on_violation(void *ctx, const struct hostmem_violation *v, const char *msg)
{
    (void)v;
    (void)msg;
    ((struct fake *)ctx)->oracle_violations++;
}

struct fake *fake_create(bool dynamic)
{
    struct fake *f = calloc(1, sizeof *f);
    struct hostmem_config mc;

    hostmem_config_default(&mc);
    mc.max_frames = 8192;
    f->mem = hostmem_create(&mc);
    f->os = os_create(NULL, f->mem, NULL);
    f->sram = calloc(1, NIC_SRAM_SIZE);
    f->imem = calloc(1, NIC_IMEM_SIZE);
    hostmem_set_fail_hook(f->mem, on_violation, f);
    f->dynamic = dynamic;
    f->bad_block = -1;
    f->auto_miss = true;
    f->ctrl = NIC_HOSTIF_CTRL_CORE_RESET_MASK;
    f->bus = (struct nicdrv_bus){ f, fk_wr32, fk_rd32 };
    f->host = (struct nicdrv_host){ .ctx = f,
                                    .pin = h_pin,
                                    .unpin = h_unpin,
                                    .translate = h_translate,
                                    .proc_read = h_proc_read,
                                    .proc_write = h_proc_write,
                                    .dma_alloc = h_dma_alloc,
                                    .dma_free = h_dma_free,
                                    .phys_read = h_phys_read,
                                    .phys_write = h_phys_write,
                                    .now = h_now,
                                    .sleep = h_sleep,
                                    .ev_count = h_ev_count,
                                    .ev_signal = h_ev_signal,
                                    .ev_wait = h_ev_wait,
                                    .va_check = h_va_check };
    return f;
}

nicdrv_t *fake_driver(struct fake *f, const struct nicdrv_config *cfg)
{
    struct nicdrv_config c;

    if (!cfg) {
        nicdrv_config_default(&c);
        c.nodes = 2;
        c.boot_timeout = 100000;
        c.cmd_timeout = 1000000;
        cfg = &c;
    }
    f->drv = nicdrv_create(&f->bus, &f->host, cfg);
    return f->drv;
}

void fake_destroy(struct fake *f)
{
    nicdrv_destroy(f->drv);
    os_destroy(f->os);
    hostmem_destroy(f->mem);
    free(f->sram);
    free(f->imem);
    free(f);
}

const uint8_t *fake_image(size_t *len)
{
    static uint8_t img[NIC_FWIMG_HEADER_SIZE + 256];
    struct nic_fwimg_info info = {
        .fw_version = 0x00010000, .load_addr = NIC_IMEM_BASE, .entry = NIC_IMEM_BASE, .length = 256
    };

    for (size_t i = NIC_FWIMG_HEADER_SIZE; i < sizeof img; i++)
        img[i] = (uint8_t)(i * 13 + 1);
    nic_fwimg_make_header(img, &info, img + NIC_FWIMG_HEADER_SIZE);
    *len = sizeof img;
    return img;
}

uint32_t fake_proc(struct fake *f)
{
    uint32_t pid = 0;
    os_proc_create(f->os, 48, &pid);
    return pid;
}
