/*
 * completer.c - the completer: the verdicts on the packets we sent, and the read responses that
 * complete our reads. The ACK and NACK fields of every frame from a peer (cumulative ACK, GAP,
 * MISS, BUSY, RESUME, PROTECTION, MALFORMED), the transport's give-ups and the local DMA errors
 * of a frame's payload are dispatched by the window cookie's kind to the operation (ops.c: write
 * segments, read requests) or the read response (responder.c). READ_RESP packets are matched to
 * their read and placed into host memory (rx.c, rx_place).
 */
#include "completer.h"
#include "conn.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "ops.h"
#include "responder.h"
#include "rx.h"
#include "timer.h"
#include "tx.h"

/* This module's counters (gathered by cpl_counters for STATS). */
static struct {
    uint32_t local_denied;
    uint32_t nacks_ignored;
    uint32_t nacks_received;
    uint32_t nacks_stale;
    uint32_t refused_ops;
    uint32_t stale_resps;
} cpl_cnt;

void cpl_on_acked(ncp_cookie_t cookie)
{
    /* tests in this order, not a switch: a write segment (the common case) pays one compare */
    if (CK_KIND(cookie) == CK_WRITE) {
        struct ncp_op *o = &op_tab[CK_IDX(cookie)];
        if (op_live(o, CK_ID(cookie)) && o->kind == NIC_OP_RDMA_WRITE)
            op_progress(o, seg_bytes(o->len, CK_SEG(cookie) * NCP_MTU));
    } else if (CK_KIND(cookie) == CK_READRESP) {
        resp_acked(cookie);
    } else if (CK_KIND(cookie) == CK_READREQ) {
        /* the responses complete the read; until then the read timer watches it */
        struct ncp_op *o = op_by_cookie(cookie);
        if (o && o->kind == NIC_OP_RDMA_READ)
            op_read_watch(o);
    }
}

/* A give-up dropped the packet: its operation fails UNREACHABLE; a response: resp_on_giveup. */
void cpl_on_giveup(ncp_cookie_t cookie, uint32_t *marks)
{
    switch (CK_KIND(cookie)) {
    case CK_WRITE:
    case CK_READREQ: {
        struct ncp_op *o = op_by_cookie(cookie);
        if (o) {
            op_fail(o, NIC_ST_UNREACHABLE);
            op_progress(o, CK_KIND(cookie) == CK_WRITE ? seg_bytes(o->len, CK_SEG(cookie) * NCP_MTU) : o->len - o->done);
        }
        break;
    }
    case CK_READRESP:
        resp_on_giveup(cookie, marks);
        break;
    default:
        break;
    }
}
/* The status a void READ_RESP fails the read with: the responder's reason when it is one a void
 * response carries for it (its host DMA failed; its connection to us gave up and lost segments of
 * the response), else (its pages not readable, the response gone; 0 from an NCP that did not fill
 * the field; any other value) a rights error, as before the field was used. */
static int32_t void_resp_status(int32_t st)
{
    return st == NIC_ST_HOST_ERROR || st == NIC_ST_UNREACHABLE ? st : NIC_ST_RIGHTS;
}

int cpl_on_read_resp(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx)
{
    struct ncp_peer *pp = &conn_peer(peer);
    struct ncp_op *o = op_by_id(h->op);
    uint32_t off = (uint32_t)h->off; /* < NIC_MAX_XFER: pkt_parse */

    /* The response must match its request: a live read of ours, to this peer, at a segment
     * boundary inside it, with that segment's length (a void one: no data). */
    if (!o || o->kind != NIC_OP_RDMA_READ || o->rnode != peer || off % NCP_MTU != 0 || off >= o->len ||
        ((h->flags & PKT_F_VOID) ? h->len != 0 : h->len != seg_bytes(o->len, off))) {
        /* the operation is gone (flushed, failed, timed out: ops_read_check), or this is not its
         * response: the sequence number is consumed, the data discarded */
        xport_rx_accept_seq(&pp->x, h->seq);
        ncp_sat_inc(&cpl_cnt.stale_resps);
        return 0;
    }
    if ((h->flags & PKT_F_VOID) || o->status != NIC_ST_OK) {
        xport_rx_accept_seq(&pp->x, h->seq);
        if (!(h->flags & PKT_F_VOID))
            ncp_sat_inc(&cpl_cnt.stale_resps); /* data for a read that failed already: dropped */
        if (h->flags & PKT_F_VOID)
            op_fail(o, void_resp_status(h->status));
        op_progress(o, (h->flags & PKT_F_VOID) ? seg_bytes(o->len, (uint32_t)h->off) : h->len);
        return 0;
    }
    rx_meta[ridx].op = op_id(o);
    rx_meta[ridx].len = h->len;
    rx_meta[ridx].seq = h->seq;
    enum xl_result res = rx_place(o->lpid, o->laddr + h->off, h->len, NIC_RIGHT_LOCAL_WRITE, payload, DK_RXRESP,
                                    ridx, peer);
    if (res == XL_MISS)
        xlate_miss_end(o->laddr + o->len); /* prefetch: the rest of the read's destination */
    if (rx_place_missed(peer, h, res))
        return 0;
    xport_rx_accept_seq(&pp->x, h->seq);
    if (res == XL_DENIED) {
        ncp_sat_inc(&cpl_cnt.local_denied);
        op_fail(o, NIC_ST_RIGHTS);
        op_progress(o, h->len);
        return 0;
    }
    pp->rx_dma_pending++;
    return 1;
}

/* A read response's data is in host memory: the operation progresses (out of line: a call here
 * would make the common write path of rx_dma_done save registers). */
__attribute__((noinline)) void cpl_read_data_done(uint32_t ridx, uint8_t err)
{
    struct ncp_op *o = op_by_id(rx_meta[ridx].op);
    if (err)
        op_fail(o, NIC_ST_HOST_ERROR);
    op_progress(o, rx_meta[ridx].len);
}

static void cpl_on_nack(struct xport_peer *x, const struct pkt_hdr *h);

void cpl_on_ack_fields(uint16_t peer, const struct pkt_hdr *h)
{
    struct xport_peer *x = &conn_peer(peer).x;
    uint32_t first, n;

    if (h->type != PKT_NACK && !seq_lt(x->una, h->ack) && !cpl_has_sack(h))
        return; /* old or repeated: nothing new acknowledged (xport_on_ack would change nothing) */
    if (h->type == PKT_NACK && h->reason == PKT_NACK_GAP) {
        n = xport_on_nack_gap_sack(x, &ncp_xcfg, h->ack, h->seq, (uint32_t)h->off, ncp.now, &first);
    } else {
        n = xport_on_ack(x, &ncp_xcfg, h->ack, ncp.now, &first);
    }
    for (uint32_t i = 0; i < n; i++)
        cpl_on_acked(xport_cookie(x, first + i));
    if (h->type != PKT_NACK) {
        /* A plain ACK re-arms the peer's deadline later, or empties the window: the timer,
         * programmed for the earlier deadline, then fires early (one pass over its sources, which
         * re-arms it or switches it off: in a stream once per RTO, not once per ACK, and never on
         * a message's critical path). Only an ACK that ended a backoff moves the deadline earlier:
         * then the timer service must know. A resend in progress goes on from the new una. */
        if (h->type == PKT_ACK)
            xport_on_sack(x, h->ack, (uint32_t)h->off); /* SR: a hole starts a recovery */
        if (x->una != x->nxt && (!timer_on || seq_lt(x->deadline, timer_at)))
            timer_kick();
        if (xport_rexmit_pending(x))
            pset_add(ncp_work.peer_rexmit, peer);
        return;
    }
    cpl_on_nack(x, h);
    if (h->reason != PKT_NACK_GAP) /* (the gap NACK's SACK: xport_on_nack_gap_sack) */
        xport_on_sack(x, h->ack, (uint32_t)h->off);
    /* a NACK moves deadlines (retry delays, holds) and may start resends */
    timer_kick();
    if (xport_rexmit_pending(x))
        pset_add(ncp_work.peer_rexmit, peer);
}

/* The reason-specific part of a NACK (its ACK field is handled). */
static void cpl_on_nack(struct xport_peer *x, const struct pkt_hdr *h)
{
    ncp_sat_inc(&cpl_cnt.nacks_received);
    switch (h->reason) {
    case PKT_NACK_MISS:
        if (!xport_on_nack_retry(x, &ncp_xcfg, h->seq, ncp.now,
                                 ncp_xcfg.miss_hold ? ncp_xcfg.miss_hold : ncp_xcfg.nack_delay))
            ncp_sat_inc(&cpl_cnt.nacks_ignored);
        break;
    case PKT_NACK_BUSY:
        if (!xport_on_nack_retry(x, &ncp_xcfg, h->seq, ncp.now, ncp_xcfg.nack_delay))
            ncp_sat_inc(&cpl_cnt.nacks_ignored);
        break;
    case PKT_NACK_RESUME:
        if (!xport_on_resume(x, &ncp_xcfg, ncp.now))
            ncp_sat_inc(&cpl_cnt.nacks_ignored);
        break;
    case PKT_NACK_PROTECTION:
    case PKT_NACK_MALFORMED: {
        /* Only a refusal of a packet in flight that belongs to operation h->op counts (a stale,
         * duplicated or forged NACK changes nothing); the packet is resent at once as VOID. */
        ncp_cookie_t ck = xport_cookie(x, h->seq);
        struct ncp_op *o = op_by_id(h->op);
        if (!o || !seq_in(h->seq, x->una, x->nxt) || (CK_KIND(ck) != CK_WRITE && CK_KIND(ck) != CK_READREQ) ||
            CK_ID(ck) != h->op || !xport_on_nack_refused(x, &ncp_xcfg, h->seq, ncp.now)) {
            ncp_sat_inc(&cpl_cnt.nacks_stale);
            break;
        }
        if (o->status == NIC_ST_OK)
            ncp_sat_inc(&cpl_cnt.refused_ops);
        /* a refusal fails the op with an error status: whatever the NACK says, never OK */
        op_fail(o, h->reason == PKT_NACK_MALFORMED || h->status >= NIC_ST_OK ? NIC_ST_BAD_DESC : h->status);
        /* A refused read request gets no response, so nothing else would complete the read: finish
         * it now. A refused write completes as its (void) segments are acknowledged. */
        if (o->kind == NIC_OP_RDMA_READ)
            op_progress(o, o->len - o->done);
        break;
    }
    default:
        break;
    }
}

void cpl_on_host_error(uint32_t peer, uint32_t seq)
{
    const struct xport_peer *x = &conn_peer(peer).x;

    if (seq_le(x->una, seq) && seq_lt(seq, x->nxt)) {
        ncp_cookie_t ck = xport_cookie(x, seq);
        if (CK_KIND(ck) == CK_WRITE)
            op_fail(op_by_cookie(ck), NIC_ST_HOST_ERROR);
        else if (CK_KIND(ck) == CK_READRESP)
            resp_fail(ck, NIC_ST_HOST_ERROR);
    }
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void cpl_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    ncp_sat_add(&s->local_denied, cpl_cnt.local_denied);
    ncp_sat_add(&s->nacks_ignored, cpl_cnt.nacks_ignored);
    ncp_sat_add(&s->nacks_received, cpl_cnt.nacks_received);
    ncp_sat_add(&s->nacks_stale, cpl_cnt.nacks_stale);
    ncp_sat_add(&s->refused_ops, cpl_cnt.refused_ops);
    ncp_sat_add(&s->stale_resps, cpl_cnt.stale_resps);
}
