/*
 * requester.c - the requester: endpoints, their send queues and doorbells, each entry validated
 * (firmware/lib/sqe.c) and checked against the local buffer, turned into an operation (ops.c) and
 * segmented into write segments or one read request (built by segment.c).
 *
 * Endpoint state machine (enum ep_state): CLOSED -> (EP_OPEN) IDLE -> (doorbell, entry taken)
 * ACTIVE -> (all segments sent) IDLE; ACTIVE -> (translation miss) PARKED -> (a fill arrived, or
 * the retry timer) ACTIVE; any -> (EP_CLOSE) CLOSED. Other endpoints and connections are served
 * while one is parked.
 */
#include <string.h>

#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "epc.h"
#include "ncp.h"
#include "mq.h"
#include "ncp_rt.h"
#include "ops.h"
#include "requester.h"
#include "segment.h"
#include "sqe.h"
#include "timer.h"
#include "tx.h"
#include "xlate.h"

/* This module's counters (gathered by req_counters for STATS). */
static struct {
    uint32_t doorbell_bad;
    uint32_t local_refused;
    uint32_t bad_desc;
} req_cnt;

struct ncp_ep ep_tab[NCP_EP_SLOTS];

const char *const ep_state_name[EP__STATES] = {"CLOSED", "IDLE", "ACTIVE", "PARKED"};

/*
 * Memo of the endpoint's last local buffer: the CBH way that held its line and the entry's place
 * in it. It proves itself on each use (the way still holds that line of that pid: its key and tag,
 * in the set the line was found in), so fills, evictions and invalidations need not clear it, and a
 * use reads the entry as it is now. A use counts a lookup and a hit and touches the way's LRU stamp
 * and use count, as the lookup it saves (lkc_hit_k) would: the cache's state and statistics are the
 * same with or without it. Saves xlate_cbh's call, salt and set scan per message (issue 12).
 */
struct lmemo {
    uint32_t key;     /* pid | LKC_KEY_VALID when memoised, else 0 */
    uint32_t buf_way; /* the buffer id (24 bits: PKT_MAX_BUF_ID) | the CBH way's index << 24 */
};
static struct lmemo lmemo[NCP_EP_SLOTS]; /* (8 bytes an endpoint: SRAM_FWDATA is tight) */
#define LM_SETS_LOG2 XL_LOG2(CBH_C / (CBH_L * CBH_A))
_Static_assert(CBH_C / CBH_L <= 256u && PKT_MAX_BUF_ID < (1u << 24), "lmemo: way index and buffer in a word");
_Static_assert(sizeof(struct nic_cbh_entry) == 4u << 3, "CBH entries: 8 words (entry_log2 3, CBH_GEOM)");

static void lmemo_reset(uint32_t epi)
{
    lmemo[epi].key = 0;
}

void req_init(void)
{
    memset(ep_tab, 0, sizeof ep_tab);
    for (uint32_t e = 0; e < NCP_EP_SLOTS; e++) {
        ep_tab[e].cur = -1;
        lmemo_reset(e);
    }
}

void ep_open(uint8_t epi, uint16_t pid, uint64_t cq_pa, uint32_t cq_log2)
{
    struct ncp_ep *ep = &ep_tab[epi];

    memset(ep, 0, sizeof *ep);
    ep->pid = pid;
    ep->cq_pa = cq_pa;
    ep->cq_log2 = (uint8_t)cq_log2;
    ep->cur = -1;
    lmemo_reset(epi);
    NCP_SET_STATE(ep, ep_state_name, "ep", epi, EP_IDLE);
}

void req_on_doorbell(uint32_t epi, uint32_t off, uint32_t data)
{
    if (epi >= NCP_EPS) {
        if (epc_on_doorbell)
            epc_on_doorbell(epi, off, data); /* a host endpoint (epc.c) */
        else
            ncp_sat_inc(&req_cnt.doorbell_bad);
        ncp_work.db_fifo = 1; /* host pages' doorbells come through the FIFO */
        return;
    }
    struct ncp_ep *ep = &ep_tab[epi]; /* a resident endpoint (not before the test: UB beyond the table) */
    if (ep->state == EP_CLOSED || off != NIC_DB_SQ_PI || data - ep->sq_done > NCP_SQ_N ||
        seq_lt(data, ep->sq_pi) || ncp.shutdown) {
        ncp_sat_inc(&req_cnt.doorbell_bad); /* never trusted beyond this process's own queue */
        ncp_work.db_fifo = 1;                /* perhaps from the FIFO, which may have dropped others */
        return;
    }
    if (ep->cur < 0 && ep->sq_ci == ep->sq_pi && data != ep->sq_pi &&
        (((const volatile struct nic_sq_entry *)HAL_SRAM_PTR(ep_sq_off(epi) + (ep->sq_ci % NCP_SQ_N) * sizeof(struct nic_sq_entry)))->flags &
         NIC_WR_INLINE))
        ncp_work.ep_inline |= 1u << epi; /* it was idle and its next entry is inline (loop.c) */
    ep->sq_pi = data;
    ncp_work.ep_ready |= 1u << epi;
}

/* The entry's rules and verdict: firmware/lib/sqe.h (host-native, unit-tested and fuzzed). A
 * plain write or read is decided by sqe_plain_ok (a few branches), any other entry by
 * sqe_validate, out of line. */
static __attribute__((noinline)) int32_t validate_full(const struct nic_sq_entry *e)
{
    const struct sqe_limits lim = {.me = ncp.me, .nodes = ncp.nodes, .peers = NCP_MAX_PEERS, .mtu = NCP_MTU};

    return sqe_validate(e, &lim, NULL);
}

static int32_t validate(const struct nic_sq_entry *e, uint16_t *rnode)
{
    int32_t st = sqe_plain_ok(e, ncp.nodes < NCP_MAX_PEERS ? ncp.nodes : NCP_MAX_PEERS) ? NIC_ST_OK : validate_full(e);

    if (st == NIC_ST_OK)
        *rnode = e->rnode;
    return st;
}

/*
 * The local side of a request, as the receive path checks the remote side: [laddr, +len) inside
 * the posting process's registered buffer lbuf (CBH entry: valid, owned by the process, the
 * local right). Raw descriptors bypass the library, so the NCP checks it before any DMA: the
 * VMH pages alone would let the NIC touch the rest of a buffer's last page.
 */
static enum xl_result local_cbh(uint8_t epi, uint16_t pid, uint32_t buf, const struct nic_cbh_entry **out)
{
    struct lmemo *m = &lmemo[epi];
    struct lkc *c = &ncp_cache[NIC_CACHE_CBH];
    uint32_t key = pid | LKC_KEY_VALID, way;
    struct lkc_way *w;

    if (m->key == key && (m->buf_way & PKT_MAX_BUF_ID) == buf && (w = c->ways + (way = m->buf_way >> 24))->key == key &&
        w->tag == buf >> (XL_LOG2(CBH_L) + LM_SETS_LOG2)) {
        w->stamp = ++c->clock; /* as lkc_find_way_k on a hit */
        c->uses[way]++;
    } else {
        w = lkc_find_way_k(c, pid, buf >> XL_LOG2(CBH_L), LM_SETS_LOG2, XL_LOG2(CBH_A), 1u);
        if (!w)
            return xlate_cbh(pid, buf, out, LKC_PATH_SEND); /* counts the miss and posts it */
        way = (uint32_t)(w - c->ways);
        m->key = key;
        m->buf_way = buf | way << 24;
    }
    ncp_sat_inc(&c->st.lookups);
    ncp_sat_inc(&c->st.hits);
    const struct nic_cbh_entry *e =
        (const struct nic_cbh_entry *)(const void *)lkc_way_data_k(c, w, XL_LOG2(CBH_L), 3u) + (buf & (CBH_L - 1u));
    *out = e;
    return (e->flags & NIC_ENTRY_VALID) ? XL_OK : XL_DENIED; /* as xlate_cbh */
}

static enum xl_result check_local(uint8_t epi, uint16_t pid, const struct nic_sq_entry *e, uint64_t laddr,
                                  int32_t *st)
{
    const struct nic_cbh_entry *b = NULL;
    enum xl_result r;

    *st = NIC_ST_OK;
    if (e->lbuf > PKT_MAX_BUF_ID) {
        *st = NIC_ST_BAD_HANDLE;
        return XL_OK;
    }
    r = local_cbh(epi, pid, e->lbuf, &b);
    if (r == XL_MISS || r == XL_WAIT)
        return r;
    uint64_t va = (uint64_t)b->va_hi << 32 | b->va_lo, len = (uint64_t)b->len_hi << 32 | b->len_lo;
    if (r != XL_OK || b->owner_pid != pid)
        *st = NIC_ST_BAD_HANDLE;
    else if (laddr < va || laddr - va > len || e->len > len - (laddr - va))
        *st = NIC_ST_BOUNDS;
    else if (!(b->flags & (e->op == NIC_OP_RDMA_WRITE ? NIC_RIGHT_LOCAL_READ : NIC_RIGHT_LOCAL_WRITE)))
        *st = NIC_ST_RIGHTS;
    return XL_OK;
}

/* Takes the endpoint's next send queue entry: validated, turned into an operation (a bad one
 * into an operation that finished failed, so it retires in request order). Returns 0 when the
 * entry stays queued: no free operation (1) or its local check missed (2: the endpoint parks). */
static int take_entry(uint8_t epi)
{
    struct ncp_ep *ep = &ep_tab[epi];
    struct nic_sq_entry e;
    uint16_t rnode = 0;
    const volatile struct nic_sq_entry *slot = (const volatile struct nic_sq_entry *)HAL_SRAM_PTR(
        ep_sq_off(epi) + (ep->sq_ci % NCP_SQ_N) * sizeof e);
    struct ncp_op *o;
    int32_t st;

    _Static_assert(sizeof e % 4u == 0, "word copy");
    ncp_copy_words(&e, slot, sizeof e); /* one copy: the process may rewrite the slot */
    uint64_t laddr = (uint64_t)e.laddr_hi << 32 | e.laddr_lo;
    st = validate(&e, &rnode);
    if (e.flags & NIC_WR_INLINE)
        laddr = 0; /* its data (ABI 2.4), sent from the slot: no local memory to check */
    else if (st == NIC_ST_OK) {
        enum xl_result r = check_local(epi, ep->pid, &e, laddr, &st);
        if (r != XL_OK)
            return 2;
        if (st != NIC_ST_OK)
            ncp_sat_inc(&req_cnt.local_refused);
    }
    if (!(o = op_alloc()))
        return 1; /* all operations in use: the entry stays queued */
    if (NCP_MQ && e.op == NIC_OP_POST_RECV && st == NIC_ST_OK)
        st = mq_post(epi, ep->pid, &e, laddr); /* a receive buffer: posted now, done (mq.c) */
    o->ep = epi;
    o->req = ep->sq_ci;
    ep->sq_ci++;
    o->kind = e.op;
    o->flags = e.flags;
    o->imm = (uint16_t)e.reserved1[0]; /* 0 unless NIC_WR_IMM (validate) */
    o->last_flags = (uint8_t)(PKT_F_LAST | (e.flags & NIC_WR_IMM ? PKT_F_IMM : 0u) |
                              (NCP_MQ && (e.flags & NIC_WR_SEND) ? PKT_F_IMM | PKT_F_SEND : 0u)); /* a send: mq.c */
    o->wr_id = (uint64_t)e.wr_id_hi << 32 | e.wr_id_lo;
    o->lpid = ep->pid;
    if (st != NIC_ST_OK || (NCP_MQ && e.op == NIC_OP_POST_RECV)) {
        if (st == NIC_ST_BAD_DESC)
            ncp_sat_inc(&req_cnt.bad_desc);
        o->len = e.len; /* (a posted receive's completion: its bytes) */
        op_finish_early(o, st);
        return 0;
    }
    o->rnode = rnode;
    o->laddr = laddr;
    o->roff = (uint64_t)e.roff_hi << 32 | e.roff_lo;
    o->len = e.len;
    o->rbuf = e.rbuf;
    o->rkey = e.rkey;
    o->rpid = NCP_MQ && (e.flags & NIC_WR_SEND) ? ep->pid : e.rpid; /* a send names its sender */
    ep->cur = (int16_t)(o - op_tab);
    NCP_SET_STATE(ep, ep_state_name, "ep", epi, EP_ACTIVE);
    return 0;
}

/* After serve_ep: the endpoint's bits in struct ncp_work from its state. */
static void ep_track(uint8_t e)
{
    const struct ncp_ep *ep = &ep_tab[e];
    uint32_t b = 1u << e;

    ncp_work.ep_ready &= ~b;
    ncp_work.ep_parked &= ~b;
    ncp_work.ep_inline &= ~b;
    if (ep->state == EP_PARKED)
        ncp_work.ep_parked |= b;
    else if (ep->state != EP_CLOSED && (ep->state != EP_IDLE || ep->cur >= 0 || ep->sq_ci != ep->sq_pi))
        ncp_work.ep_ready |= b; /* not idle: served again next pass */
}

/* Sends what it can of the endpoint's current operation. Returns 1 if it made progress. */
static int serve_ep(uint8_t epi)
{
    struct ncp_ep *ep = &ep_tab[epi];
    int progress = 0;

    if (ep->state == EP_CLOSED)
        return 0;
    if (ep->state == EP_PARKED) {
        if (!ncp_work.parked_wake)
            return 0;
        NCP_SET_STATE(ep, ep_state_name, "ep", epi, EP_ACTIVE);
    }
    for (unsigned budget = 0; budget < 4; budget++) {
        if (ep->cur < 0) {
            if (ep->sq_ci == ep->sq_pi) {
                NCP_SET_STATE(ep, ep_state_name, "ep", epi, EP_IDLE);
                return progress;
            }
            int r = take_entry(epi);
            if (r == 2) {
                /* its local buffer's CBH line missed: waits for the fill */
                NCP_SET_STATE(ep, ep_state_name, "ep", epi, EP_PARKED);
                timer_kick();
                return progress;
            }
            if (r == 0)
                progress = 1;
            if (ep->cur < 0)
                return progress; /* failed at once (retired) or no operation free: a malformed
                                    entry ends the endpoint's turn, so a stream of them costs the
                                    others one entry per pass, not four (issue 18, item 7) */
        }
        struct ncp_op *o = &op_tab[ep->cur];
        if (o->status != NIC_ST_OK) {
            /* failed before all segments were sent (protection NACK, giveup): skip the rest */
            uint32_t rest = o->kind == NIC_OP_RDMA_WRITE ? o->len - o->sent : 0;
            o->sent = o->len;
            ep->cur = -1;
            if (rest)
                op_progress(o, rest);
            continue;
        }
        struct ncp_peer *pp = conn_get(o->rnode);
        if (!pp || !xport_has_room(&pp->x) || !cc_room(o->rnode, &pp->x))
            return progress; /* the peer's context on its way (peerctx.c), window, or flow/congestion
                                window (congestion.h): served again next pass */
        ncp_cookie_t cookie;
        if (o->kind == NIC_OP_RDMA_READ)
            cookie = CK_MAKE(CK_READREQ, o->id, 0);
        else
            cookie = CK_MAKE(CK_WRITE, o->id, o->sent / NCP_MTU);
        enum build_result r = seg_send_new(o->rnode, cookie);
        if (r == B_WAIT) {
            if (!txs.free || !dmaq_room(NCP_SEG_PIECES))
                return progress; /* resources: retried when frames/DMA free up */
            /* translation miss: the request waits for its fill */
            NCP_SET_STATE(ep, ep_state_name, "ep", epi, EP_PARKED);
            timer_kick(); /* the timer arms the retry wake-up */
            return progress;
        }
        if (r == B_DENIED) {
            op_fail(o, NIC_ST_BAD_HANDLE);
            continue;
        }
        progress = 1;
        if (o->kind == NIC_OP_RDMA_READ) {
            o->sent = o->len;
        } else {
            o->sent += o->len - o->sent < NCP_MTU ? o->len - o->sent : NCP_MTU;
        }
        if (o->sent >= o->len)
            ep->cur = -1;
    }
    return progress;
}

void req_poll(void)
{
    /* endpoints with work (struct ncp_work), and the parked ones when a fill arrived; for the
     * others serve_ep would change nothing */
    uint32_t m = ncp_work.ep_ready | (ncp_work.parked_wake ? ncp_work.ep_parked : 0u);

    for (m &= ~1u; m; m &= m - 1) {
        uint8_t e = (uint8_t)ncp_lowest_bit(m);
        serve_ep(e);
        ep_track(e);
    }
}

/* Timer source (timer.h): while an endpoint is parked, a wake-up every NCP_RTO (a lost fill must
 * not strand a request). */
int req_timer(uint32_t now, uint32_t *at)
{
    for (uint32_t m = ncp_work.ep_parked; m; m &= m - 1)
        if (ep_tab[ncp_lowest_bit(m)].state == EP_PARKED) {
            *at = now + NCP_RTO;
            return 1;
        }
    return 0;
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void req_counters(struct nic_stats *s, struct ncp_counters *k)
{
    ncp_sat_add(&s->doorbell_bad, req_cnt.doorbell_bad);
    ncp_sat_add(&s->local_refused, req_cnt.local_refused);
    ncp_sat_add(&k->bad_desc, req_cnt.bad_desc);
}
