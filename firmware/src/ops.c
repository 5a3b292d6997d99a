/*
 * ops.c - initiator operations and their completions.
 *
 * An operation (RDMA write or read) lives from the send queue entry being taken until it is
 * accounted for byte by byte: write bytes when their segments are acknowledged (or failed), read
 * bytes when the responses are written into local memory (or failed). Then it retires in request
 * order (ep_retire): one completion goes to the endpoint's completion queue if it failed or was
 * signalled, and its send queue slot is free. The first error sticks.
 * States (enum op_state, ncp.h): FREE -> (entry taken) ACTIVE -> (accounted for) FREE. A finished
 * operation's result waits for retirement in its endpoint's per-slot record (struct ncp_res), not
 * in the operation.
 *
 * Read timeout (docs/firmware.md): once a read's request is acknowledged, the transport no longer
 * watches it: the responses are the responder's packets, retried by the responder's connection. A
 * responder whose connection to us gives up sends the lost segments again as void packets, which
 * fail the read (cpl_on_giveup); one that went silent cannot, so the reads awaiting responses from
 * a peer fail NIC_ST_UNREACHABLE when that peer has shown no progress on either of our connections
 * (no new packet from it accepted, none of ours acknowledged) for ncp_read_timeout(), longer than it
 * would retry before giving up. Progress is sampled lazily by ops_read_check, a quarter of the
 * timeout apart while reads wait: nothing is recorded per packet. Responses that come after the
 * read failed find no operation and are discarded (cpl_on_read_resp).
 */
#include <string.h>

#include "cmd.h"
#include "conn.h"
#include "dmaq.h"
#include "epc.h"
#include "evq.h"
#include "ncp.h"
#include "mq.h"
#include "ops.h"
#include "requester.h"
#include "timer.h"

/* This module's counters (gathered by ops_counters for STATS). */
static struct {
    uint32_t retire_waits;
    uint32_t read_timeouts;
} ops_cnt;

const char *const op_state_name[OP__STATES] = {"FREE", "ACTIVE"};

struct ncp_op op_tab[NCP_OPS];
static uint32_t op_gen; /* the generation of the last id (ncp.h: ids) */

void ops_seed(uint32_t gen)
{
    op_gen = gen;
}

/* A new id for slot `idx`: the next generation of the table's counter (ncp.h, ncp_id_make). */
static uint32_t op_new_id(uint32_t idx)
{
    return ncp_id_make(idx, ++op_gen);
}

/* The free slots of op_tab, one bit each (set: OP_FREE), so that taking one is O(1), not a scan of
 * the table per request (~35 cycles per 4 KiB message at 8 outstanding). */
static uint32_t op_free[NCP_OPS / 32u];
_Static_assert(NCP_OPS % 32u == 0, "op_free: whole words");

void op_release(struct ncp_op *o)
{
    uint32_t i = (uint32_t)(o - op_tab);

    NCP_SET_STATE(o, op_state_name, "op", i, OP_FREE);
    op_free[i / 32u] |= 1u << (i % 32u);
}

struct ncp_op *op_alloc(void)
{
    for (uint32_t w = 0; w < NCP_OPS / 32u; w++) {
        uint32_t m = op_free[w];
        if (!m)
            continue;
        uint32_t i = w * 32u + ncp_lowest_bit(m);
        struct ncp_op *o = &op_tab[i];
        NCP_ASSERT(NCP_MOD_MAIN, 1, o->state == OP_FREE); /* op_free agrees with the table */
        op_free[w] = m & (m - 1u);
        _Static_assert(sizeof *o % 4u == 0, "word clear");
        ncp_zero_words(o, sizeof *o);
        o->id = op_new_id(i);
        NCP_SET_STATE(o, op_state_name, "op", i, OP_ACTIVE);
        return o;
    }
    return NULL;
}

void op_fail(struct ncp_op *o, int32_t status)
{
    if (o && o->status == NIC_ST_OK)
        o->status = status;
}

/*
 * Retirement, in request order per endpoint (docs/api.md "Completions"): an operation that
 * finished leaves its result in its send queue slot's record (ep->res) and is freed at once; the
 * record waits until every earlier request of its endpoint retired; then its completion, if it
 * failed or was signalled, goes to the completion queue and the slot is free (sq_done). So a
 * completion implies that every earlier request of the endpoint is done, whatever peer it went
 * to. Returns 0 when the next completion waits for a staging slot or DMA room (the endpoint's bit
 * in ops_waiting: ops_poll retries it).
 */
/* A finished request waiting to retire, per endpoint and send queue slot: its operation is free
 * already, so requests waiting behind an earlier one hold no operation slot. Outside struct ncp
 * (kept small: the fast path addresses its fields with short offsets). Every record is clear
 * again once its endpoint's requests all retired (EP_CLOSE waits for that). */
struct ncp_res {
    uint64_t wr_id;
    uint32_t bytes;
    int8_t status;
    uint8_t kind, flags, done;
};
static struct ncp_res res[NCP_EP_SLOTS][NCP_SQ_N];

void ops_init(void)
{
    memset(op_tab, 0, sizeof op_tab);
    memset(op_free, 0xff, sizeof op_free); /* every slot OP_FREE (0) */
    memset(res, 0, sizeof res);
}

static int ep_retire(uint8_t epi)
{
    struct ncp_ep *ep = &ep_tab[epi];

    while (ep->sq_done != ep->sq_ci) {
        struct ncp_res *r = &res[epi][ep->sq_done % NCP_SQ_N];
        if (!r->done)
            return 1; /* an earlier request is still in progress: its finish retires this one */
        if ((r->status != NIC_ST_OK || (r->flags & NIC_WR_SIGNALED)) &&
            !cqe_post(epi, r->wr_id, r->status, r->bytes, r->kind, ep->sq_done)) {
            ncp_work.ops_waiting |= 1u << epi;
            return 0;
        }
        r->done = 0;
        ep->sq_done++;
    }
    if (ep->closing)
        while (ep->sq_done != ep->sq_pi) { /* closing: entries never taken complete FLUSHED too */
            const volatile struct nic_sq_entry *e = (const volatile struct nic_sq_entry *)HAL_SRAM_PTR(
                ep_sq_off(epi) + (ep->sq_done % NCP_SQ_N) * sizeof *e);
            if (!cqe_post(epi, (uint64_t)e->wr_id_hi << 32 | e->wr_id_lo, NIC_ST_FLUSHED, 0, e->op, ep->sq_done)) {
                ncp_work.ops_waiting |= 1u << epi;
                return 0;
            }
            ep->sq_done++;
            ep->sq_ci = ep->sq_done;
        }
    return 1;
}

/* The operation's result into its slot's record; the operation is free. */
static void op_record(struct ncp_op *o)
{
    struct ncp_ep *ep = &ep_tab[o->ep];
    struct ncp_res *r = &res[o->ep][o->req % NCP_SQ_N];

    r->wr_id = o->wr_id;
    /* An error completion reports 0 bytes: how much of a failed request reached its target (or
     * was written locally) is not known exactly (acknowledged segments may include void ones). */
    r->bytes = o->status == NIC_ST_OK ? o->len : 0u;
    r->status = (int8_t)o->status;
    r->kind = o->kind;
    r->flags = o->flags;
    r->done = 1;
    if (ep->cur == (int16_t)(o - op_tab))
        ep->cur = -1;
    if (o->req != ep->sq_done)
        ncp_sat_inc(&ops_cnt.retire_waits);
    op_release(o);
}

/* Room for a completion of endpoint ep now (cqe_post's conditions): the endpoint is open (or
 * closing), a DMA request, a staging slot, and the event queue's room when it reports to one. */
static inline __attribute__((always_inline)) int cqe_room(const struct ncp_ep *ep)
{
    return (ep->state != EP_CLOSED || ep->closing) && dmaq_room(1) && (!ep->eq || evq_room()) &&
           (stage_next < NCP_STAGE_N || seq_le(stage_ticket[stage_next % NCP_STAGE_N], dmaq.done));
}
static void cqe_write(uint8_t epi, uint64_t wr_id, int32_t status, uint32_t bytes, uint8_t opk, uint32_t req);

/*
 * The common case first: the operation that finished is its endpoint's oldest (o->req ==
 * sq_done: nothing earlier waits, so no record is pending before it), so it retires at once: its
 * completion (if failed or signalled) is written from the operation itself, without the round trip
 * through its slot's record (op_record, then ep_retire reading it back). The same completion, the
 * same order: a later request's record waiting behind it retires next (ep_retire). When there is
 * no room for the completion now (staging slot, DMA room), the general path records it and
 * ops_poll retries.
 */
void op_finish(struct ncp_op *o)
{
    uint8_t epi = o->ep;
    struct ncp_ep *ep = &ep_tab[epi];
    int32_t st = o->status;
    uint32_t req = o->req;
    int post = st != NIC_ST_OK || (o->flags & NIC_WR_SIGNALED);

    if (req != ep->sq_done || (post && !cqe_room(ep))) {
        op_record(o);
        ep_retire(epi);
        return;
    }
    uint64_t wr_id = o->wr_id;
    uint32_t bytes = st == NIC_ST_OK ? o->len : 0u;
    uint8_t kind = o->kind;
    if (ep->cur == (int16_t)(o - op_tab))
        ep->cur = -1;
    op_release(o);
    uint32_t d = ++ep->sq_done;
    /* the records that waited behind it, or a closing endpoint's rest: after its completion */
    int more = ep->closing || (d != ep->sq_ci && res[epi][d % NCP_SQ_N].done);
    if (post)
        cqe_write(epi, wr_id, st, bytes, kind, req);
    if (more)
        ep_retire(epi);
}

/* Per peer: its transport counters as ops_read_check last saw them, and when they last changed. */
static struct {
    uint32_t expected, una, at;
} seen[NCP_MAX_PEERS];

static void seen_now(uint32_t p)
{
    seen[p].expected = conn_peer(p).x.expected;
    seen[p].una = conn_peer(p).x.una;
    seen[p].at = ncp.now;
}

/*
 * Initiator reads awaiting responses: `reads` is an upper bound, recounted by ops_read_check;
 * while nonzero, `read_at` is when ops_read_check must look at them next (no later than the first
 * can time out), and the timer is armed for it: the reads are scanned only then, never per packet.
 */
static uint32_t reads, read_at;

void op_read_watch(struct ncp_op *o)
{
    if (o->awaiting)
        return;
    o->awaiting = 1;
    seen_now(o->rnode); /* it just acknowledged the request: progress */
    if (!reads) {
        read_at = ncp.now + ncp_read_timeout() / 4u;
        timer_kick(); /* a new deadline */
    }
    reads++;
}

/*
 * From ops_timer when read_at passed: samples the peers' progress, fails the reads whose
 * responder showed none for ncp_read_timeout(), recounts the others and sets read_at to the first of
 * their deadlines, at most a quarter of the timeout ahead (the next sample). A read is finished only
 * when no receive DMA from its peer is in progress (it may carry this read's data: no DMA into the
 * buffer after the completion).
 */
static void ops_read_check(void)
{
    uint32_t n = 0, to = ncp_read_timeout(), next = ncp.now + to / 4u;

    for (uint32_t p = 0; p < ncp.nodes && p < NCP_MAX_PEERS; p++) {
        const struct xport_peer *x = &conn_peer(p).x;
        if (x->expected != seen[p].expected || x->una != seen[p].una)
            seen_now(p);
    }
    for (uint32_t i = 0; i < NCP_OPS; i++) {
        struct ncp_op *o = &op_tab[i];
        if (o->state != OP_ACTIVE || !o->awaiting)
            continue; /* free, completing, a write, or a read whose request is in the window */
        uint32_t due = seen[o->rnode].at + to;
        if (seq_le(due, ncp.now)) {
            if (conn_peer(o->rnode).rx_dma_pending == 0) { /* (not resident: 0) */
                ncp_sat_inc(&ops_cnt.read_timeouts);
                op_fail(o, NIC_ST_UNREACHABLE);
                op_progress(o, o->len - o->done);
                continue;
            }
            due = ncp.now + NCP_NACK_DELAY; /* look again soon */
        }
        n++;
        if (seq_lt(due, next))
            next = due;
    }
    reads = n;
    read_at = next;
}

/* Timer source (timer.h): the reads are looked at when read_at passed. */
int ops_timer(uint32_t now, uint32_t *at)
{
    if (reads && seq_le(read_at, now))
        ops_read_check();
    *at = read_at;
    return reads != 0;
}

void ops_poll(void)
{
    uint32_t w = ncp_work.ops_waiting;

    ncp_work.ops_waiting = 0;
    for (uint32_t e = 0; w; e++, w >>= 1)
        if (w & 1u)
            ep_retire((uint8_t)e);
}

/* An operation that fails before it started (malformed entry, local check): it still retires in
 * request order. */
void op_finish_early(struct ncp_op *o, int32_t status)
{
    o->status = status;
    o->sent = o->len;
    op_finish(o);
}

/* EP_CLOSE: every request not retired completes NIC_ST_FLUSHED (a failure keeps its status), in
 * request order, including entries never taken. The operations are freed as they retire: later
 * packets for them find no operation (the transport still carries those in its windows: EP_CLOSE
 * is answered only when they are out, cmd.c). */
void ops_flush_ep(uint8_t epi)
{
    struct ncp_ep *ep = &ep_tab[epi];

    for (uint32_t i = 0; i < NCP_OPS; i++) {
        struct ncp_op *o = &op_tab[i];
        if (o->state == OP_ACTIVE && o->ep == epi) {
            if (o->status == NIC_ST_OK)
                o->status = NIC_ST_FLUSHED;
            op_record(o);
        }
    }
    ep->cur = -1;
    ep->closing = 1;
    mq_ep_closed(epi); /* its message queues are free again */
    ep_retire(epi);
}

/* Every request of the endpoint retired (its completions posted). */
int ops_ep_retired(uint8_t epi)
{
    const struct ncp_ep *ep = &ep_tab[epi];
    return ep->sq_done == ep->sq_pi || (!ep->closing && ep->sq_done == ep->sq_ci);
}

#if NCP_TEST_HOOKS
NCP_TEST_HOOK int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *cqe)
{
    (void)ep;
    (void)cqe;
    return 0;
}
#endif

/* cqe_post once cqe_room said yes. */
static void cqe_write(uint8_t epi, uint64_t wr_id, int32_t status, uint32_t bytes, uint8_t opk, uint32_t req)
{
    struct ncp_ep *ep = &ep_tab[epi];
    struct nic_cqe *q = stage_slot_inline();
    uint32_t n = ep->cq_n++;

    NCP_ASSERT(NCP_MOD_MAIN, 2, q != NULL); /* cqe_room */
    /* every field stored (no clear first): the staging slot held an earlier entry */
    q->wr_id_lo = (uint32_t)wr_id;
    q->wr_id_hi = (uint32_t)(wr_id >> 32);
    q->status = status;
    q->bytes = bytes;
    q->op = opk;
    q->phase = (uint8_t)(((n >> ep->cq_log2) & 1u) ^ 1u);
    q->sq_ci = (uint16_t)(req + 1u); /* retired in order: everything up to this request */
    q->req = req;
    q->reserved1[0] = 0;
    q->reserved1[1] = 0;
    _Static_assert(sizeof *q == 32u && sizeof q->reserved1 == 8u, "cqe_write stores every field");
    uint64_t pa = ep->cq_pa + (uint64_t)(n & ((1u << ep->cq_log2) - 1u)) * sizeof *q;
    if (!ncp_test_on_cqe(epi, q))
        dmaq_post(HAL_SRAM_OFF(q), pa, sizeof *q, 1, DK_CQE, 0, 0);
    if (ep->eq) /* after the completion's DMA: the process finds it when it reads the event */
        evq_on_cqe(ep->eq, ep_id(epi), n);
}

int cqe_post(uint8_t epi, uint64_t wr_id, int32_t status, uint32_t bytes, uint8_t opk, uint32_t req)
{
    if (!cqe_room(&ep_tab[epi]))
        return 0;
    cqe_write(epi, wr_id, status, bytes, opk, req);
    return 1;
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void ops_counters(struct nic_stats *s, struct ncp_counters *k)
{
    ncp_sat_add(&s->retire_waits, ops_cnt.retire_waits);
    ncp_sat_add(&k->read_timeouts, ops_cnt.read_timeouts);
}
