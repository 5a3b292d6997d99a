/*
 * responder.c - the responder: what peers ask of this node's memory. A WRITE is checked against
 * its target buffer (PCH + CBH: owner, key, rights, bounds) and placed into host memory (rx.c,
 * rx_place); a READ_REQ is checked the same way and gets a response slot, whose segments are
 * streamed back (built by segment.c) until acknowledged; a response whose connection gives up is
 * sent again void from its first lost segment, so the initiator learns why.
 *
 * Response state machine (enum resp_state): FREE -> (read request accepted) SENDING -> (every
 * segment built) ACKWAIT -> (every segment acknowledged) FREE; SENDING/ACKWAIT -> (give-up with
 * segments lost) SENDING, failed (void); a failed response sends void segments carrying its status.
 */
#include <string.h>

#include "congestion.h"
#include "conn.h"
#include "evq.h"
#include "mq.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "responder.h"
#include "rx.h"
#include "segment.h"
#include "tx.h"
#include "xlate.h"

/* This module's counters (gathered by rsp_counters for STATS). */
static struct {
    uint32_t local_denied;
    uint32_t resp_full;
    uint32_t resp_queued;
} rsp_cnt;

const char *const resp_state_name[RESP__STATES] = {"FREE", "SENDING", "ACKWAIT"};

/*
 * Read requests accepted while every response slot is busy, served in arrival order as slots
 * free up. Refusing them instead (NACK BUSY) deadlocked two nodes reading from each other: each
 * one's refused request held, by go-back-N, the responses queued behind it, which were what would
 * free the other's slots. NCP_RREQ_N >= NCP_OPS: one initiator's reads never meet a refusal.
 */
#define NCP_RREQ_N 64u
struct ncp_rreq {
    uint16_t peer, pid;
    uint32_t op, len;
    uint64_t va;
};
_Static_assert(NCP_RREQ_N >= NCP_OPS && (NCP_RREQ_N & (NCP_RREQ_N - 1u)) == 0, "read request queue");
struct ncp_resp resp_tab[NCP_RESP];
static struct ncp_rreq rreq[NCP_RREQ_N]; /* queued read requests: [rreq_head, rreq_tail) */
static uint32_t rreq_head, rreq_tail;
static uint32_t resp_gen; /* the generation of the last response id (ncp.h: ids) */

void resp_init(void)
{
    memset(resp_tab, 0, sizeof resp_tab);
    rreq_head = rreq_tail = 0;
}

uint32_t resp_generation(void)
{
    return resp_gen;
}

void resp_seed(uint32_t gen)
{
    resp_gen = gen;
}

/* Checks of a remote access against the target buffer; returns NIC_ST_OK or the violation. */
static inline __attribute__((always_inline)) int32_t check_cbh(const struct pkt_hdr *h, uint32_t len, uint32_t right, enum xl_result *res,
                         uint64_t *va)
{
    const struct nic_cbh_entry *e = NULL;

    *res = xlate_target(h->pid, h->buf, &e, LKC_PATH_RECV);
    if (*res == XL_MISS)
        return NIC_ST_OK;
    if (*res == XL_DENIED)
        return NIC_ST_BAD_HANDLE;
    int32_t st = rsp_access_check(e, h->pid, h->key, right, h->off, len);
    if (st == NIC_ST_OK)
        *va = ((uint64_t)e->va_hi << 32 | e->va_lo) + h->off;
    return st;
}

/* The target of a remote access, checked: 1 with its address in *va; else the packet was dropped
 * on a miss (MISS NACK) or refused (PROTECTION NACK) and 0. */
static inline __attribute__((always_inline)) int target_ok(uint16_t peer, const struct pkt_hdr *h, uint32_t len,
                                                           uint32_t right, uint64_t *va)
{
    enum xl_result res;
    int32_t st = check_cbh(h, len, right, &res, va);

    if (res == XL_MISS) {
        rx_drop_miss(peer, h);
        return 0;
    }
    if (st != NIC_ST_OK) {
        rx_refuse(peer, h, st);
        return 0;
    }
    return 1;
}

/* Returns 1 when the RX buffer is now owned by a DMA (released by rx_dma_done). */
int rsp_on_write(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx)
{
    struct ncp_peer *pp = &conn_peer(peer);
    enum xl_result res;
    uint64_t va = 0;
    uint32_t right = NIC_RIGHT_REMOTE_WRITE;

    if (h->flags & PKT_F_VOID) {
        xport_rx_accept_seq(&pp->x, h->seq); /* (in order or, SR, out of order: rx.c) */
        return 0;
    }
    if (h->flags & PKT_F_SEND) { /* a message: into its queue's next posted buffer (mq.c) */
        if (!(h = mq_on_send(peer, h, ridx)))
            return 0;
        right = NIC_RIGHT_LOCAL_WRITE; /* the owner's own receive buffer */
    }
    if (!target_ok(peer, h, h->len, right, &va))
        return 0;
    NCP_PROF(9);
    rx_meta[ridx].seq = h->seq;
    /* a write with immediate: its notification when this, its last segment, is in memory (evq.c) */
    uint8_t kind = (h->flags & PKT_F_IMM) && (h->flags & PKT_F_LAST) ? DK_RXIMM : DK_RX;
    if (kind == DK_RXIMM && right == NIC_RIGHT_REMOTE_WRITE)
        evq_imm_note(ridx, h->pid, peer, h->reason, h->xlen + h->len, h->buf, (uint32_t)(h->off - h->xlen));
    res = rx_place(h->pid, va, h->len, right, payload, kind, ridx, peer);
    if (res == XL_MISS)
        xlate_miss_end(xlate_target_end(h->pid, h->buf)); /* prefetch: up to the buffer's end */
    if (rx_place_missed(peer, h, res))
        return 0;
    if (res == XL_DENIED) {
        rx_refuse(peer, h, NIC_ST_RIGHTS);
        return 0;
    }
    NCP_PROF(10);
    pp->rx_dma_pending++;
    xport_rx_accept_seq(&pp->x, h->seq);
    if (right != NIC_RIGHT_REMOTE_WRITE)
        mq_accepted();
    NCP_PROF(12);
    return 1;
}

int rsp_on_read_req(uint16_t peer, const struct pkt_hdr *h)
{
    uint64_t va = 0;

    if (h->flags & PKT_F_VOID) { /* the initiator failed the read (refused before): no response */
        xport_rx_accept(&conn_peer(peer).x);
        return 0;
    }
    if (!target_ok(peer, h, h->xlen, NIC_RIGHT_REMOTE_READ, &va))
        return 0;
    if (!resp_start(peer, h->pid, h->op, va, h->xlen)) {
        ncp_sat_inc(&rsp_cnt.resp_full);
        tx_ctl(peer, PKT_NACK, PKT_NACK_BUSY, h->seq, h->op, 0);
        return 0;
    }
    xport_rx_accept(&conn_peer(peer).x);
    return 0;
}

/* ---- read responses being served ---- */

int resp_start(uint16_t peer, uint16_t pid, uint32_t op, uint64_t va, uint32_t len)
{
    if (rreq_head == rreq_tail && resp_alloc(peer, pid, op, va, len) != NCP_RESP)
        return 1;
    if (rreq_tail - rreq_head >= NCP_RREQ_N)
        return 0;
    rreq[rreq_tail++ % NCP_RREQ_N] = (struct ncp_rreq){peer, pid, op, len, va};
    ncp_sat_inc(&rsp_cnt.resp_queued);
    return 1;
}

/* A response slot was freed: the oldest queued request takes it. */
static void resp_next(void)
{
    if (rreq_head != rreq_tail) {
        const struct ncp_rreq *q = &rreq[rreq_head++ % NCP_RREQ_N];
        resp_alloc(q->peer, q->pid, q->op, q->va, q->len);
    }
}

uint32_t resp_alloc(uint16_t peer, uint16_t pid, uint32_t op, uint64_t va, uint32_t len)
{
    for (uint32_t i = 0; i < NCP_RESP; i++) {
        struct ncp_resp *r = &resp_tab[i];
        if (r->state == RESP_FREE) {
            NCP_SET_STATE(r, resp_state_name, "resp", i, RESP_SENDING);
            r->failed = 0;
            r->id = ncp_id_make(i, ++resp_gen); /* ncp.h: ids */
            r->peer = peer;
            r->pid = pid;
            r->op = op;
            r->va = va;
            r->len = len;
            r->sent = r->done = 0;
            r->fail_status = 0;
            r->rewinds = 0;
            ncp_work.resp |= 1u << i;
            return i;
        }
    }
    return NCP_RESP;
}

void resp_poll(void)
{
    for (uint32_t m = ncp_work.resp; m; m &= m - 1) {
        uint32_t i = ncp_lowest_bit(m);
        struct ncp_resp *r = &resp_tab[i];
        for (unsigned budget = 0; budget < 4 && r->state == RESP_SENDING; budget++) {
            struct ncp_peer *pp = conn_get(r->peer); /* (NULL: its context on its way) */
            if (!pp || !xport_has_room(&pp->x) || !cc_room(r->peer, &pp->x) || !seg_room())
                break; /* (no room: seg_send_new would return B_WAIT, below) */
            ncp_cookie_t ck = CK_MAKE(CK_READRESP, r->id, r->sent / NCP_MTU);
            enum build_result b = seg_send_new(r->peer, ck);
            if (b == B_WAIT)
                break;
            if (b == B_DENIED) {
                /* the pages are not readable: the rest goes out as void segments, which fail the
                 * initiator's operation */
                r->failed = 1;
                r->fail_status = NIC_ST_RIGHTS;
                ncp_sat_inc(&rsp_cnt.local_denied);
                if (seg_build(r->peer, ck, 0, 0) != B_SENT)
                    break;
            }
            r->sent += seg_bytes(r->len, r->sent);
            if (r->sent >= r->len)
                NCP_SET_STATE(r, resp_state_name, "resp", i, RESP_ACKWAIT);
        }
        if (r->state != RESP_SENDING)
            ncp_work.resp &= ~(1u << i); /* all segments sent (or freed) */
    }
}

void resp_acked(ncp_cookie_t cookie)
{
    struct ncp_resp *r = &resp_tab[CK_IDX(cookie)];

    if (resp_live(r, CK_ID(cookie))) {
        r->done += seg_bytes(r->len, CK_SEG(cookie) * NCP_MTU);
        if (r->done >= r->len) {
            NCP_SET_STATE(r, resp_state_name, "resp", CK_IDX(cookie), RESP_FREE);
            resp_next();
        }
    }
}

void resp_fail(ncp_cookie_t cookie, int32_t status)
{
    struct ncp_resp *r = &resp_tab[CK_IDX(cookie)];

    if (resp_live(r, CK_ID(cookie)) && !r->failed) {
        r->failed = 1;
        r->fail_status = (int8_t)status;
    }
}

/*
 * A give-up drops the window. For a read response with segments in it, the initiator would never
 * get those bytes and, if the responder keeps talking to it, never learn why (its read timer only
 * fires when the responder is silent): so the response is marked failed (NIC_ST_UNREACHABLE) and
 * sent again from its first lost segment, void: the initiator's read fails as soon as one gets
 * through. Lost again, they are sent again at the next give-up, NCP_RESP_REWINDS times (the
 * shortest give-up takes 31.8 ms from the last progress: 4 x 31.8 ms is longer than the initiator's
 * read timer can take, 1.25 x ncp_read_timeout() = 98 ms, so by then the initiator has failed the
 * read itself); then the segments are dropped as acknowledged and the slot is freed.
 * `marks`: per response slot, bit i = seen in this give-up, bit 16 + i = sent again.
 */
_Static_assert(NCP_RESP <= 16, "resp_on_giveup marks");
void resp_on_giveup(ncp_cookie_t cookie, uint32_t *marks)
{
    uint32_t i = CK_IDX(cookie);
    struct ncp_resp *r = &resp_tab[i];
    if (resp_live(r, CK_ID(cookie)) && !(*marks & 1u << i)) {
        *marks |= 1u << i; /* its first lost segment: the others follow it in the window */
        if (r->rewinds < NCP_RESP_REWINDS) {
            r->rewinds++;
            if (!r->failed) {
                r->failed = 1;
                r->fail_status = NIC_ST_UNREACHABLE;
            }
            r->sent = CK_SEG(cookie) * NCP_MTU;
            NCP_SET_STATE(r, resp_state_name, "resp", i, RESP_SENDING);
            ncp_work.resp |= 1u << i;
            *marks |= 1u << (16 + i);
        }
    }
    if (!(*marks & 1u << (16 + i)))
        resp_acked(cookie); /* not sent again: counted as done */
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void rsp_counters(struct nic_stats *s, struct ncp_counters *k)
{
    ncp_sat_add(&s->local_denied, rsp_cnt.local_denied);
    ncp_sat_add(&k->resp_full, rsp_cnt.resp_full);
    ncp_sat_add(&k->resp_queued, rsp_cnt.resp_queued);
}
