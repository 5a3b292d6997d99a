/*
 * epc.c - host endpoints (issue 15 item 2; docs/host-interface.md "Host endpoints").
 *
 * Endpoint ids 1..NCP_EPS-1 are resident: their context in ep_tab, their send queue in the sendq
 * SRAM region, their doorbell a register of the doorbell block (requester.c). Ids NCP_EPS ..
 * NCP_EP_IDS-1 (one doorbell page each) are host endpoints: the context (struct nic_ep_ctx) lives
 * in the driver's table in host memory (NIC_CMD_EP_TABLE pages), the send queue in a page of the
 * process's memory. NCP_EPC_N slots (ep_tab[NCP_EPS + s]) cache them:
 *
 *   FREE  -> (a doorbell of an uncached id; a slot free or evicted) FILL: the context is DMA'd in
 *   FILL  -> (context valid) LIVE, its doorbell record (producer count, in its send queue page)
 *            read next; (context not valid: a closed endpoint) FREE, the doorbell refused
 *   LIVE: an endpoint as the resident ones (requester.c serves it, ops.c retires it);
 *            entries [sq_pi, rung) are fetched by DMA into the slot's staging image before the
 *            requester sees them (sq_pi counts the fetched ones)
 *   LIVE  -> (idle: every request retired, nothing to fetch; the least recently rung) WB: cq_n and
 *            sq_n written back into its context -> FREE; (EP_CLOSE drained) FREE
 *
 * Doorbells on host pages go through the doorbell block's FIFO (it has registers for the resident
 * pages only), which may drop writes when full: the NCP checks the drop counter after popping and,
 * when it moved, reads every host endpoint's doorbell record again (epc_check_lost), so no ring is
 * lost. A doorbell's page is the endpoint (the driver maps each process only its own pages): a
 * ring of a closed endpoint, of an id beyond the table, or a count out of bounds is refused and
 * counted (ep_db_refused), never executed.
 */
#include <stddef.h>
#include <string.h>

#include "dmaq.h"
#include "epc.h"
#include "evq.h"
#include "ncp.h"
#include "requester.h"

enum { ES_FREE, ES_FILL, ES_LIVE, ES_WB };
enum { EK_CTX = 1, EK_FETCH, EK_WB, EK_REFRESH };

struct epc_slot {
    uint64_t sq_pa; /* the send queue page */
    uint32_t rung;  /* the producer count of its record (entries fetched up to ep->sq_pi) */
    uint32_t hint;  /* the highest count a doorbell named (checked against the record) */
    uint32_t used;  /* use_clock at its last ring or fill: the LRU victim choice */
    uint8_t st, fetch, dbr, again, counted;
};

uint8_t epc_sq[NCP_EPC_N][NCP_SQ_N * sizeof(struct nic_sq_entry)] __attribute__((aligned(64)));
uint16_t epc_id[NCP_EPC_N];
static struct epc_slot es[NCP_EPC_N];
static struct nic_ep_ctx img[NCP_EPC_N] __attribute__((aligned(32)));
static uint32_t dbrec[NCP_EPC_N] __attribute__((aligned(8)));
#define EPC_PAGES ((NCP_EP_IDS + NIC_EPC_PER_PAGE - 1u) / NIC_EPC_PER_PAGE)
static uint64_t tab_pa[EPC_PAGES];
static uint32_t pend[NCP_EP_IDS / 32u]; /* rung, not cached: a fill is due */
static uint32_t swp[NCP_EP_IDS / 32u];  /* doorbells were lost: its record is read again */
static uint32_t open_ids[NCP_EP_IDS / 32u]; /* host endpoints open (EP_OPEN .. EP_CLOSE) */
static uint32_t db_dropped;              /* the doorbell block's drop counter, last seen */
static uint32_t use_clock;               /* counts rings and fills (LRU order) */
#define EPC_HINTS 8u
static struct {
    uint32_t id, data;
} hints[EPC_HINTS];                      /* the latest doorbells of uncached endpoints: checked at the fill */
static uint32_t nhints;
static uint32_t poll_w; /* the word of pending ids epc_poll starts at */
static struct {
    uint32_t fills, evictions, refused;
} cnt;

/* One DMA of this module (not inlined: dmaq_post is large and this path is not the fast one). */
static __attribute__((noinline)) void post(const void *sram, uint64_t host, uint32_t len, int to_host, uint8_t kind,
                                           uint32_t a, uint32_t b)
{
    dmaq_post(HAL_SRAM_OFF(sram), host, len, to_host, kind, a, (uint16_t)b);
}

void epc_init(void)
{
    memset(es, 0, sizeof es);
    memset(epc_id, 0, sizeof epc_id);
    memset(tab_pa, 0, sizeof tab_pa);
    memset(pend, 0, sizeof pend);
    memset(swp, 0, sizeof swp);
    memset(open_ids, 0, sizeof open_ids);
    memset(hints, 0, sizeof hints);
    nhints = poll_w = 0;
    use_clock = db_dropped = 0;
}

static struct ncp_ep *slot_ep(uint32_t s)
{
    return &ep_tab[NCP_EPS + s];
}

/* A slot whose endpoint was closed and drained holds nothing any more. */
static int slot_free(uint32_t s)
{
    const struct ncp_ep *ep = slot_ep(s);
    return es[s].st == ES_FREE || (es[s].st == ES_LIVE && ep->state == EP_CLOSED && !ep->closing && !es[s].fetch &&
                                   !es[s].dbr);
}

static int slot_of(uint32_t id)
{
    for (uint32_t s = 0; s < NCP_EPC_N; s++)
        if (epc_id[s] == id && !slot_free(s))
            return (int)s;
    return -1;
}

static uint64_t ctx_pa(uint32_t id)
{
    uint64_t p = tab_pa[id / NIC_EPC_PER_PAGE];
    return p ? p + (id % NIC_EPC_PER_PAGE) * sizeof(struct nic_ep_ctx) : 0;
}

static void bit_clr(uint32_t *m, uint32_t id)
{
    m[id >> 5] &= ~(1u << (id & 31u));
}

static uint32_t bit_get(const uint32_t *m, uint32_t id)
{
    return m[id >> 5] >> (id & 31u) & 1u;
}

int32_t epc_table(uint32_t k, uint64_t pa)
{
    if (k >= EPC_PAGES || !pa || (pa & (NCP_PAGE - 1u)))
        return NIC_ST_BAD_CMD;
    tab_pa[k] = pa;
    ncp_work.epc_on = 1; /* the doorbell path checks for lost doorbells (epc_check_lost) */
    return NIC_ST_OK;
}

int32_t epc_open(uint32_t id)
{
    if (id < NCP_EPS || id >= NCP_EP_IDS || !ctx_pa(id) || slot_of(id) >= 0 || bit_get(open_ids, id))
        return NIC_ST_BAD_CMD;
    bit_clr(pend, id);
    bit_clr(swp, id);
    open_ids[id >> 5] |= 1u << (id & 31u);
    return NIC_ST_OK;
}

int32_t epc_close(uint32_t id)
{
    int s;

    if (id < NCP_EPS || id >= NCP_EP_IDS || !ctx_pa(id))
        return -1;
    bit_clr(pend, id);
    bit_clr(swp, id);
    bit_clr(open_ids, id); /* its doorbells are refused from now on */
    if ((s = slot_of(id)) < 0)
        return 0; /* not cached: every request of it retired (evicted idle), nothing in flight */
    if (es[s].st != ES_LIVE || es[s].fetch || es[s].dbr || es[s].again)
        return -2; /* a record or entries being read: what the owner posted must be flushed too */
    if (!slot_ep((uint32_t)s)->closing && es[s].rung != slot_ep((uint32_t)s)->sq_pi)
        return -2; /* entries rung and not fetched yet: the flush must see them */
    return (int32_t)(NCP_EPS + (uint32_t)s);
}

static void refuse(void)
{
    ncp_sat_inc(&cnt.refused);
}

/* Entries [sq_pi, rung) of slot s into its staging image (at most two pieces: the ring wraps). */
static void fetch(uint32_t s)
{
    struct ncp_ep *ep = slot_ep(s);
    struct epc_slot *x = &es[s];
    uint32_t n = x->rung - ep->sq_pi, from = ep->sq_pi % NCP_SQ_N, first = NCP_SQ_N - from;
    const uint32_t esz = sizeof(struct nic_sq_entry);

    if (x->fetch || !n || ep->state == EP_CLOSED)
        return;
    if (!dmaq_room(2)) {
        ncp_work.epc = 1; /* retried by epc_poll */
        return;
    }
    if (first > n)
        first = n;
    x->fetch = 1;
    if (first < n) /* the first piece, up to the end of the ring */
        post(epc_sq[s] + from * esz, x->sq_pa + from * esz, first * esz, 0, DK_NONE, 0, 0);
    if (first < n)
        post(epc_sq[s], x->sq_pa, (n - first) * esz, 0, DK_EPC, s | EK_FETCH << 8, n);
    else
        post(epc_sq[s] + from * esz, x->sq_pa + from * esz, n * esz, 0, DK_EPC, s | EK_FETCH << 8, n);
}

/* Read slot s's doorbell record (its producer count, in the owner's memory) again. */
static void refresh(uint32_t s)
{
    if (es[s].dbr || !dmaq_room(1)) {
        es[s].again = 1; /* after the read in flight (epc_dma_done), or from epc_poll */
        ncp_work.epc = 1;
        return;
    }
    es[s].dbr = 1;
    es[s].again = 0;
    post(&dbrec[s], es[s].sq_pa + NIC_EPC_DBREC, 4, 0, DK_EPC, s | EK_REFRESH << 8, 0);
}

/* A producer count for slot s (its record): forward, within the queue. */
static void rung(uint32_t s, uint32_t data)
{
    struct ncp_ep *ep = slot_ep(s);

    if (ep->state == EP_CLOSED || data - ep->sq_done > NCP_SQ_N || seq_lt(data, es[s].rung) || ncp.shutdown) {
        refuse();
        return;
    }
    es[s].rung = data;
    es[s].used = ++use_clock;
    fetch(s);
}

/* A doorbell's count for slot s: beyond the queue, refused at once; else the highest one is kept
 * to be checked against the owner's record. Returns 1 if the record is worth reading. */
static int hint(uint32_t s, uint32_t data)
{
    if (data - slot_ep(s)->sq_done > NCP_SQ_N) {
        refuse();
        return 0;
    }
    if (seq_lt(es[s].hint, data))
        es[s].hint = data;
    return 1;
}

void epc_on_doorbell(uint32_t id, uint32_t off, uint32_t data)
{
    int s;

    if (off != NIC_DB_SQ_PI || id >= NCP_EP_IDS || !bit_get(open_ids, id) || ncp.shutdown) {
        refuse();
        return;
    }
    if ((s = slot_of(id)) >= 0 && es[s].st == ES_LIVE) {
        /* The value is only a hint: the count comes from the record in the owner's memory, so a
         * ring from anyone else executes nothing the owner did not post (and one naming more than
         * the record holds is refused and counted when the record is read). */
        if (hint((uint32_t)s, data)) {
            es[s].used = ++use_clock;
            refresh((uint32_t)s);
        }
        return;
    }
    hints[nhints % EPC_HINTS].id = id; /* checked when it is filled */
    hints[nhints++ % EPC_HINTS].data = data;
    pend[id >> 5] |= 1u << (id & 31u); /* the fill reads its count from the record */
    ncp_work.epc = 1;
}

void epc_check_lost(void)
{
    uint32_t dropped, coalesced;

    hal_db_counts(&dropped, &coalesced);
    if (dropped == db_dropped)
        return;
    db_dropped = dropped;
    for (uint32_t w = 0; w < NCP_EP_IDS / 32u; w++) /* the open ones */
        swp[w] |= open_ids[w];
    ncp_work.epc = 1;
}

/* An idle slot to give up: every request retired, nothing to fetch, least recently rung. */
static int victim(void)
{
    int v = -1;
    uint32_t age = 0;

    for (uint32_t s = 0; s < NCP_EPC_N; s++) {
        const struct ncp_ep *ep = slot_ep(s);
        if (slot_free(s))
            return (int)s;
        if (es[s].st != ES_LIVE || es[s].fetch || es[s].dbr || es[s].again || ep->state != EP_IDLE || ep->cur >= 0 ||
            ep->closing || ep->sq_done != ep->sq_pi || es[s].rung != ep->sq_pi ||
            (ncp_work.ops_waiting >> (NCP_EPS + s) & 1u))
            continue;
        if (v < 0 || use_clock - es[s].used > age) {
            v = (int)s;
            age = use_clock - es[s].used;
        }
    }
    return v;
}

/* One pending id: 1 done (its bit goes), 0 later (a fill or write-back of it in flight), -1 not
 * now (no slot can be had, or no DMA room: nothing else pending can be served either). */
static int take(uint32_t id, int counted)
{
    int s = slot_of(id);

    if (s >= 0) {
        if (es[s].st != ES_LIVE)
            return 0; /* a fill or write-back of it in flight: after it */
        refresh((uint32_t)s); /* read its record again (doorbells were lost) */
        return 1;
    }
    if ((s = victim()) < 0 || !dmaq_room(1))
        return -1;
    if (!slot_free((uint32_t)s)) { /* evict: its counts back into its context, then free */
        struct ncp_ep *ep = slot_ep((uint32_t)s);
        uint64_t pa = ctx_pa(epc_id[s]);
        img[s].cq_n = ep->cq_n;
        img[s].sq_n = ep->sq_pi;
        NCP_SET_STATE(ep, ep_state_name, "ep", NCP_EPS + (uint32_t)s, EP_CLOSED);
        es[s].st = ES_WB;
        ncp_sat_inc(&cnt.evictions);
        post(&img[s].cq_n, pa + offsetof(struct nic_ep_ctx, cq_n), 8, 1, DK_EPC, (uint32_t)s | EK_WB << 8, 0);
        return -1; /* the fill when the slot is free (EK_WB: ncp_work.epc); one eviction at a time */
    }
    epc_id[s] = (uint16_t)id;
    es[s] = (struct epc_slot){.st = ES_FILL, .counted = (uint8_t)counted, .used = ++use_clock};
    post(&img[s], ctx_pa(id), sizeof img[s], 0, DK_EPC, (uint32_t)s | EK_CTX << 8, 0);
    return 1;
}

void epc_poll(void)
{
    ncp_work.epc = 0;
    for (uint32_t s = 0; s < NCP_EPC_N; s++)
        if (es[s].st == ES_LIVE) {
            if (es[s].again && !es[s].dbr)
                refresh(s);
            if (!es[s].fetch && es[s].rung != slot_ep(s)->sq_pi)
                fetch(s);
        }
    /* pending ids, round robin by word from where the last pass stopped, a few per pass (each
     * costs a look at every slot): the event loop's other work goes on meanwhile */
    for (uint32_t k = 0, budget = 4; k <= NCP_EP_IDS / 32u; k++) {
        uint32_t w = (poll_w + k) % (NCP_EP_IDS / 32u);
        for (uint32_t m = pend[w] | swp[w]; m; m &= m - 1) {
            uint32_t b = ncp_lowest_bit(m), id = w * 32u + b;
            int r = take(id, (int)(pend[w] >> b & 1u));
            if (r > 0) {
                pend[w] &= ~(1u << b);
                swp[w] &= ~(1u << b);
            }
            if (r <= 0 || !--budget) {
                ncp_work.epc = 1;
                if (r < 0 || !budget) {
                    poll_w = w;
                    return;
                }
            }
        }
    }
}

void epc_dma_done(uint32_t a, uint32_t b, int err)
{
    uint32_t s = a & 0xFFu;
    struct epc_slot *x = &es[s];
    struct ncp_ep *ep = slot_ep(s);
    const struct nic_ep_ctx *c = &img[s];

    switch (a >> 8) {
    case EK_CTX:
        if (err || !(c->flags & NIC_EPC_VALID) || c->cq_log2 < 1 || c->cq_log2 > 16) {
            if (x->counted)
                refuse(); /* a doorbell on a closed endpoint */
            x->st = ES_FREE;
            epc_id[s] = 0;
            return;
        }
        ep_open((uint8_t)(NCP_EPS + s), c->pid, (uint64_t)c->cq_hi << 32 | c->cq_lo, c->cq_log2);
        ep->eq = c->eq && evq_owned(c->eq, c->pid) ? c->eq : 0; /* its queue closed since: none (as EQ_CLOSE does) */
        ep->cq_n = c->cq_n;
        ep->sq_pi = ep->sq_ci = ep->sq_done = c->sq_n;
        x->sq_pa = (uint64_t)c->sq_hi << 32 | c->sq_lo;
        x->rung = x->hint = c->sq_n;
        x->st = ES_LIVE; /* its record next (refresh: when the DMA queue has room) */
        for (uint32_t i = 0; i < EPC_HINTS; i++) /* the doorbells that asked for it */
            if (hints[i].id == epc_id[s]) {
                hint(s, hints[i].data);
                hints[i].id = 0;
            }
        ncp_sat_inc(&cnt.fills);
        refresh(s);
        return;
    case EK_REFRESH:
        x->st = ES_LIVE;
        x->dbr = 0;
        if (!err) {
            uint32_t v = dbrec[s];
            if (v != x->rung)
                rung(s, v);
            if (!x->again && seq_lt(v, x->hint))
                refuse(); /* a doorbell named entries its owner never posted */
            if (!x->again)
                x->hint = v;
        }
        if (x->again)
            refresh(s);
        return;
    case EK_FETCH:
        x->fetch = 0;
        if (!err && ep->state != EP_CLOSED) {
            ep->sq_pi += b; /* the entries are in the staging image: the requester may take them */
            ncp_work.ep_ready |= 1u << (NCP_EPS + s);
        }
        fetch(s); /* rung again meanwhile (or a failed DMA: again) */
        return;
    case EK_WB:
        x->st = ES_FREE;
        epc_id[s] = 0;
        ncp_work.epc = 1;
        return;
    default:
        return;
    }
}

void epc_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    ncp_sat_add(&s->ep_fills, cnt.fills);
    ncp_sat_add(&s->ep_evictions, cnt.evictions);
    ncp_sat_add(&s->ep_db_refused, cnt.refused);
}
