/*
 * rx.c - receive dispatch: frames from the MAC RX ring are validated (pkt_parse, the connection
 * token), their piggy-backed ACK handed to the completer (a plain WRITE's after its data, deferred
 * while the data path is busy: rx_ack_after_data), then sequenced packets go through the transport
 * (duplicates re-ACKed, gaps NACKed) and to their role: WRITE and READ_REQ to the responder,
 * READ_RESP to the completer. rx_fast is the common WRITE in a straight line; it shares its rules
 * with the general path (pkt.h, responder.h).
 *
 * Translation miss on this path: the packet is dropped (no NIC buffering), counted in drops_miss,
 * a miss request posted, and (NCP_NACK) the sender told "translation miss, wait for my RESUME"
 * (sent at the next fill). A protection violation writes nothing, is counted, does not consume
 * the sequence number and NACKs with the status the initiator reports (which resends the packet as
 * VOID). RX buffers return to the MAC in ring order once their DMA (if any) completed; the ACK we
 * advertise follows the data into host memory (rx_dma_done).
 */
#include <string.h>

#include "completer.h"
#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "evq.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "ops.h"
#include "responder.h"
#include "rx.h"
#include "tx.h"
#include "xlate.h"

/* This module's counters (gathered by rx_counters for STATS). */
static struct {
    uint32_t auth_drops;
    uint32_t drops_bad;
    uint32_t drops_miss;
    uint32_t dup_packets;
    uint32_t protection_errors;
    uint32_t resyncs_bad;
    uint32_t rx_dma_errors;
    uint32_t rx_packets;
    uint32_t resumes_sent;
    uint32_t loop_holds;   /* loopback frames held on a destination miss (loop_held) */
    uint32_t loop_retries; /* ... handled again (rx_loop_retry) */
    uint32_t drop_reason[PKT__ERRS]; /* drops_bad by reason (enum pkt_err) */
} rx_cnt;

#define RX_N (1u << NCP_RX_LOG2)
static volatile uint32_t rx_ring[RX_N][NIC_RXDESC_WORDS] __attribute__((section(".pktbuf"), aligned(16)));
static uint8_t rx_buf[RX_N][NCP_FRAME_BYTES] __attribute__((section(".pktbuf"), aligned(16)));
struct rx_meta rx_meta[RX_N + NCP_LOOP_N];
static uint32_t rx_next;          /* next RX entry to process */
static uint32_t rx_tail;          /* entries returned to the MAC */
static uint8_t rx_busy[RX_N + NCP_LOOP_N]; /* a DMA pending on the entry's buffer */
/* Loopback (rx_loop_push): frames to this node itself, handled in place in their TX frame (tx.c
 * frees it, tx_loop_release, when its entry RX_N + k is done), in order. */
static const uint8_t *loop_f[NCP_LOOP_N];
static uint16_t loop_len[NCP_LOOP_N];
static uint8_t loop_id[NCP_LOOP_N]; /* the TX frame */
static uint8_t loop_q[32];          /* entries in arrival order (free-running indices) */
static uint32_t loop_head, loop_tail, loop_free = (uint32_t)((1ull << NCP_LOOP_N) - 1u);
_Static_assert(NCP_LOOP_N <= 32, "loop_free, loop_q");
static uint32_t resume_peers[NCP_PEER_WORDS]; /* peers told MISS since the last fill (they wait for RESUME) */
/* A loopback frame whose destination missed, held in its entry (not released) until a fill, then
 * handled again (loop_retry): its resend would need its source line(s) again, under the same pin
 * budget as its destination (docs/firmware.md "Loopback under a small pin budget"). One at a time. */
static uint8_t loop_cur;      /* 1 + the loopback entry on_frame handles (0: an RX ring entry) */
static uint8_t loop_held;     /* 1 + the loopback entry held (0: none) */
static uint8_t loop_retry_due; /* a fill arrived, or the held packet came again: loop_retry */
static uint32_t loop_held_seq; /* its sequence number (on the connection to this node) */

void rx_init(void)
{
    hal_mac_rx_init(&rx_ring[0][0], NCP_RX_LOG2, &rx_buf[0][0], NCP_FRAME_BYTES);
    rx_next = rx_tail = hal_mac_rx_head();
}

static void drop_bad(enum pkt_err e)
{
    ncp_sat_inc(&rx_cnt.drops_bad);
    ncp_sat_inc(&rx_cnt.drop_reason[e]);
}

/* The packet missed a translation: drop it, and tell the sender unless seed-faithful. */
__attribute__((cold)) void rx_drop_miss(uint16_t peer, const struct pkt_hdr *h)
{
    ncp_sat_inc(&rx_cnt.drops_miss);
    if (NCP_NACK) {
        struct xport_peer *x = &conn_peer(peer).x;
        /* a loopback frame, the next expected one: held, not dropped (loop_held), if none is */
        if (loop_cur && !loop_held && peer == ncp.me && h->seq == x->expected) {
            loop_held = loop_cur;
            loop_held_seq = h->seq;
            ncp_sat_inc(&rx_cnt.loop_holds);
        }
        tx_ctl(peer, PKT_NACK, PKT_NACK_MISS, h->seq, h->op, 0);
        pset_add(resume_peers, peer); /* told to wait: RESUME at the next fill */
        /* Go-back-N: this MISS is the one NACK for `expected` (the packet it refused). The sender
         * resends from it when the hold ends (RESUME or NCP_MISS_HOLD); a gap NACK as well, for a
         * packet behind it arriving later, would make it go back a second time while the first
         * resend is on the wire: two copies of each packet in flight, which flow control's credit
         * pool (one ring entry per sequence number granted) does not cover (MAC RX ring overrun,
         * mac.rx_nobuf, in an incast with misses). */
        if (!x->sr && h->seq == x->expected) {
            x->nacked = x->expected;
            x->nack_valid = 1;
        }
    }
}

/*
 * A fill arrived (xlate_fill): every peer told MISS since the last fill may resend now, instead of
 * waiting out its hold (NCP_MISS_HOLD). One RESUME per peer per fill, whichever line the fill
 * was for: a peer whose packet still misses gets another MISS (and waits for the next fill); a
 * lost RESUME costs the hold.
 */
void rx_on_fill(void)
{
    if (pset_any(resume_peers))
        ncp_work.resume = 1; /* rx_send_resumes: the peers waiting on a MISS resend now */
    if (loop_held) {
        loop_retry_due = 1; /* the held loopback frame again: cmd_poll (before the next command), or rx_poll */
        hal_raise_events(HAL_EV_RX);
    }
}

void rx_send_resumes(void)
{
    ncp_work.resume = 0;
    for (uint32_t i = 0, nw = pset_nwords(); i < nw; i++) {
        uint32_t m = resume_peers[i];
        resume_peers[i] = 0;
        for (; m; m &= m - 1) {
            uint16_t p = (uint16_t)(i * 32u + ncp_lowest_bit(m));
            if (!conn_resident(p))
                continue; /* (evicted since: quiet, nothing held for it) */
            tx_ctl(p, PKT_NACK, PKT_NACK_RESUME, conn_peer(p).x.expected, 0, 0);
            ncp_sat_inc(&rx_cnt.resumes_sent);
        }
    }
}

/*
 * A protection violation: nothing is written and the sequence number is NOT consumed, so the
 * refusal is as reliable as data: the initiator fails the operation on this NACK and resends the
 * packet without data (PKT_F_VOID), which is accepted; if the NACK is lost, the resent original is
 * refused again. (Consuming it here would let a lost NACK turn into a success at the initiator:
 * the cumulative ACK covering the packet cannot say it was refused.)
 */
void rx_refuse(uint16_t peer, const struct pkt_hdr *h, int32_t status)
{
    ncp_sat_inc(&rx_cnt.protection_errors); /* = PROTECTION NACKs sent (docs: "Counters") */
    tx_ctl(peer, PKT_NACK, PKT_NACK_PROTECTION, h->seq, h->op, status);
}

/* rx_place for a range over several pages (rx.h). */
__attribute__((noinline)) enum xl_result rx_place_pages(uint16_t pid, uint64_t va, uint32_t len, uint32_t right,
                                                            const uint8_t *src, uint8_t kind, uint32_t a, uint16_t b)
{
    uint64_t pa[NCP_SEG_PIECES];
    uint32_t plen[NCP_SEG_PIECES], n = 0;
    uint64_t v = va;

    for (uint32_t left = len; left;) {
        uint32_t chunk = NCP_PAGE - (uint32_t)(v & (NCP_PAGE - 1u));
        if (chunk > left)
            chunk = left;
        if (!xlate_vmh_hit(pid, v, right, LKC_PATH_RECV, &pa[n], 1)) { /* the hit inline, else decide */
            enum xl_result r = xlate_vmh(pid, v, right, LKC_PATH_RECV, &pa[n]);
            if (r != XL_OK)
                return r;
        }
        plen[n++] = chunk;
        v += chunk;
        left -= chunk;
    }
    if (!dmaq_room(n))
        return XL_WAIT;
    uint32_t at = HAL_SRAM_OFF(src);
    for (uint32_t i = 0; i < n; i++) {
        dmaq_post(at, pa[i], plen[i], 1, i + 1 == n ? kind : DK_NONE, a, b);
        at += plen[i];
    }
    return XL_OK;
}


/* The frame being handled, outside the stack so that on_frame hands it to its role in a tail call. */
static struct pkt_hdr rx_hdr;
static int rx_nack;
static int rx_ooo(const struct pkt_hdr *hp, const uint8_t *f, uint32_t ridx);
static void rx_ack_defer(uint32_t src, uint32_t ack);
static int on_write_late(const struct pkt_hdr *hp, const uint8_t *f, uint32_t ridx);

/*
 * The piggy-backed ACK of a plain WRITE (no immediate, no send, no resync, no congestion mark;
 * flow and congestion control off) is handled after the WRITE itself: its data is placed (the DMA
 * posted) first, then the ACK, deferred until the data path is quiet (rx_ack_defer, rx_ack_idle),
 * retires what it acknowledges of ours (op_progress, the completion DMAs), off the critical path
 * of the data and of the reply it causes (issue 12: in a ping-pong, the ping's ACK completes the
 * target's previous pong: ~560 cycles the pong's doorbell waited behind). Nothing in the WRITE's
 * handling reads what the ACK changes (the window we send in: una, our operations), nor the
 * reverse; DMAs complete in order, so a completion it posts still follows everything before it. Every other frame keeps
 * its ACK first: a READ_REQ may need the response slot its ACK frees (resp_acked), a READ_RESP
 * the read its ACK puts under the timer; with flow or congestion control on, or a mark, the
 * credits and echoes (cc_on_frame) follow the ACK as before. rx_fast makes the same choice.
 */
static inline int rx_ack_after_data(uint32_t type, uint32_t flags)
{
    return type == PKT_WRITE && !(flags & (PKT_F_RESYNC | PKT_F_IMM | PKT_F_SEND | PKT_F_CE)) && !cc_opts;
}

/*
 * The packet held in a loopback entry (loop_held) came again (the sender's resend at its hold's
 * end, built again from its source): dropped, as a duplicate, and the held one handled again in
 * its place (loop_retry: placed, or the miss posted again and the sender told MISS again). Returns
 * 1 when hp is that packet; the entry held itself is not (loop_retry clears loop_held first).
 */
static __attribute__((noinline, cold)) int loop_held_dup(const struct pkt_hdr *hp)
{
    if (hp->src != ncp.me || hp->seq != loop_held_seq)
        return 0;
    ncp_sat_inc(&rx_cnt.dup_packets);
    loop_retry_due = 1;
    hal_raise_events(HAL_EV_RX);
    return 1;
}

/* Handles one frame; returns 1 when its buffer is now owned by a DMA. */
static int on_frame(const uint8_t *f, uint32_t len, uint32_t ridx)
{
    struct pkt_hdr *const hp = &rx_hdr;
    NCP_PROF_START();
    /* from the wire, any source but this node; from the loopback (ridx >= RX_N), only this node */
    enum pkt_err e = pkt_parse_src(f, len, ncp.me, ncp.nodes, NCP_MTU, ridx >= RX_N, hp);

    NCP_PROF(6);
    if (e == PKT_OK && hp->src >= NCP_MAX_PEERS)
        e = PKT_E_SRC;
    if (e != PKT_OK) {
        drop_bad(e);
        return 0;
    }
    if (__builtin_expect(!conn_resident(hp->src), 0) && !conn_get_slow(hp->src)) {
        ncp_sat_inc(&peer_st.fill_drops); /* its context is on its way from host memory: the sender resends */
        return 0;
    }
    if (hp->token != conn_peer(hp->src).rx_token) {
        /* not from the node its source names (forged or from a node without the fabric secret):
         * nothing of it is used, nothing answers it */
        ncp_sat_inc(&rx_cnt.auth_drops);
        return 0;
    }
    ncp_sat_inc(&rx_cnt.rx_packets);
    pset_add(ncp_work.peer_ack, hp->src); /* conn_flush_acks looks at this peer */
    if (rx_ack_after_data(hp->type, hp->flags))
        return on_write_late(hp, f, ridx); /* its data first, its piggy-backed ACK deferred */
    if (ncp_work.ack_in)
        rx_ack_apply(); /* a deferred ACK first: ACK fields in arrival order */
    cpl_on_frame_ack(hp->src, hp);
    if (cc_opts | (hp->flags & PKT_F_CE))
        cc_on_frame(hp->src, hp); /* credits, echoes, marks (congestion.c) */
    NCP_PROF(7);
    if (!pkt_is_sequenced(hp->type))
        return 0;
    struct xport_peer *x = &conn_peer(hp->src).x;
    uint32_t resyncs_bad = x->st.resyncs_bad;
    enum xport_rx_verdict v = xport_rx_classify(x, hp->seq, hp->flags, &rx_nack);
    if (x->st.resyncs_bad != resyncs_bad)
        ncp_sat_inc(&rx_cnt.resyncs_bad);
    switch (v) {
    case XP_RX_DUP:
        ncp_sat_inc(&rx_cnt.dup_packets);
        return 0;
    case XP_RX_GAP:
        if (rx_nack)
            tx_ctl(hp->src, PKT_NACK, PKT_NACK_GAP, hp->seq, 0, 0);
        return 0;
    case XP_RX_OOO:
        return rx_ooo(hp, f, ridx);
    case XP_RX_NEW:
        if (__builtin_expect(loop_held, 0) && loop_held_dup(hp))
            return 0;
        break;
    }
    NCP_PROF(8);
    switch (hp->type) {
    case PKT_WRITE:
        return rsp_on_write(hp->src, hp, f + PKT_HDR_BYTES, ridx);
    case PKT_READ_REQ:
        return rsp_on_read_req(hp->src, hp);
    default:
        return cpl_on_read_resp(hp->src, hp, f + PKT_HDR_BYTES, ridx);
    }
}

/* on_frame for a plain WRITE (rx_ack_after_data): the transport's verdict and the responder, as
 * for any WRITE, then its piggy-backed ACK, deferred when it acknowledges something new. Out of
 * line: the other types' path stays as it was. */
static __attribute__((noinline)) int on_write_late(const struct pkt_hdr *hp, const uint8_t *f, uint32_t ridx)
{
    struct xport_peer *x = &conn_peer(hp->src).x;
    uint32_t resyncs_bad = x->st.resyncs_bad;
    enum xport_rx_verdict v = xport_rx_classify(x, hp->seq, hp->flags, &rx_nack);
    int r = 0;

    if (x->st.resyncs_bad != resyncs_bad)
        ncp_sat_inc(&rx_cnt.resyncs_bad);
    if (v == XP_RX_DUP) {
        ncp_sat_inc(&rx_cnt.dup_packets);
    } else if (v == XP_RX_GAP) {
        if (rx_nack)
            tx_ctl(hp->src, PKT_NACK, PKT_NACK_GAP, hp->seq, 0, 0);
    } else if (v == XP_RX_OOO) {
        r = rx_ooo(hp, f, ridx);
    } else if (!(__builtin_expect(loop_held, 0) && loop_held_dup(hp))) {
        r = rsp_on_write(hp->src, hp, f + PKT_HDR_BYTES, ridx);
    }
    if (seq_lt(x->una, hp->ack))
        rx_ack_defer(hp->src, hp->ack);
    return r;
}

/*
 * Selective repeat: a packet ahead of `expected` within the window (XP_RX_OOO). Pure data (a
 * WRITE, a READ_RESP: each carries its offset, its placement does not depend on what came before)
 * goes to its role as an in-order one would, and the role accepts it out of order; a READ_REQ stays
 * in order (it takes a response slot and starts a stream in request order, and the read request
 * queue serves in arrival order), dropped as a gap and resent. Its DMA's completion must not move
 * the cumulative ACK past the hole: it may advertise only `expected` as it is now (rx_ooo_ack,
 * rx_data_slow). The gap NACK, if one is due, goes after it: its SACK shows the packet.
 */
static uint32_t rx_ooo_ack[RX_N]; /* per RX entry: the cumulative ACK its completion may advertise */
static uint32_t rx_ooo_mask;      /* RX entries holding an out-of-order packet's DMA */
_Static_assert(RX_N <= 32, "rx_ooo_mask");

static __attribute__((noinline)) int rx_ooo(const struct pkt_hdr *hp, const uint8_t *f, uint32_t ridx)
{
    struct ncp_peer *pp = &conn_peer(hp->src);
    uint32_t ackp = pp->x.expected;
    int r = 0;

    /* in order only: a READ_REQ (above), and a write's segment carrying an immediate (its
     * notification says the whole write is in memory: it may go only when every earlier segment's
     * data is, which in-order acceptance and in-order DMA completion give) */
    if (hp->type == PKT_READ_REQ || (hp->flags & PKT_F_IMM))
        xport_rx_ooo_drop(&pp->x);
    else
        r = hp->type == PKT_WRITE ? rsp_on_write(hp->src, hp, f + PKT_HDR_BYTES, ridx)
                                  : cpl_on_read_resp(hp->src, hp, f + PKT_HDR_BYTES, ridx);
    if (r) {
        rx_ooo_ack[ridx] = ackp;
        rx_ooo_mask |= 1u << ridx;
        pp->rx_err |= RX_ERR_OOO; /* its completions take rx_data_slow until the DMAs drain */
    }
    if (rx_nack)
        tx_ctl(hp->src, PKT_NACK, PKT_NACK_GAP, hp->seq, 0, 0);
    return r;
}

/*
 * The deferred piggy-backed ACK (rx_ack_after_data): one peer's at a time, the newest value (ACKs
 * are cumulative: a later one covers an earlier one, and an ACK at or before una changes nothing),
 * since when it waits. Applied, as cpl_on_frame_ack would have applied it on arrival:
 *   - at the end of a pass when the data path is quiet (no DMA outstanding, no intc event pending:
 *     in a ping-pong, after the reply's frame went to the MAC), rx_ack_idle;
 *   - at the latest RX_ACK_DEFER after it arrived (checked at the end of every pass; a pass always
 *     follows while a DMA is outstanding or an event pending, the only cases that keep it);
 *   - before any other frame's ACK fields (any peer: they stay in arrival order), before another
 *     peer's ACK is deferred, and before the transport's timeouts are judged (conn_timer).
 * A peer with an ACK deferred has packets in flight (the ACK acknowledged something new), so its
 * context is not evicted (peerctx.c: only quiet peers are); the resident test is belt and braces.
 */
#define RX_ACK_DEFER (NCP_RTO / 20u) /* 10 us at the default RTO: well inside any timeout */
static struct {
    uint32_t ack, t;
    uint16_t peer;
} rx_dack;

void rx_ack_apply(void)
{
    struct pkt_hdr h = {.type = PKT_WRITE, .src = rx_dack.peer, .ack = rx_dack.ack};

    ncp_work.ack_in = 0;
    if (conn_resident(h.src))
        cpl_on_frame_ack(h.src, &h); /* (of a WRITE's header it reads the type and the ACK) */
}

/* A plain WRITE's piggy-backed ACK, after its data: deferred (see above) when it acknowledges
 * something new. Out of line: the common case acknowledges nothing new. */
static __attribute__((noinline)) void rx_ack_defer(uint32_t src, uint32_t ack)
{
    if (ncp_work.ack_in) {
        if (rx_dack.peer == src) {
            if (seq_lt(rx_dack.ack, ack))
                rx_dack.ack = ack; /* the newer covers it; it waits since the first */
            return;
        }
        rx_ack_apply(); /* another peer's: applied now, one deferred at a time */
    }
    rx_dack.peer = (uint16_t)src;
    rx_dack.ack = ack;
    rx_dack.t = ncp.now;
    ncp_work.ack_in = 1;
}

void rx_ack_idle(void)
{
    if ((dmaq_idle() && !hal_events_pending()) || ncp.now - rx_dack.t >= RX_ACK_DEFER) {
        rx_ack_apply();
        /* what it started (completions, resends, a deadline moved, endpoints with window room)
         * is served by the next pass, not left until some event */
        hal_raise_events(HAL_EV_DMA);
    }
}

/*
 * rx_fast's tail for a segment over two pages (an unaligned MTU write): both pages translate and
 * the engine has two slots, else 0 with nothing counted (the general path decides). Posted as
 * rx_place posts them: the first page's piece, then the rest with the continuation. Out of line:
 * the one-page case keeps its registers.
 */
static __attribute__((noinline)) int rx_fast_2pages(const uint8_t *f, uint32_t ridx, uint32_t src, uint16_t pid,
                                                    uint64_t va, uint32_t len)
{
    struct ncp_peer *pp = &conn_peer(src);
    uint32_t first = NCP_PAGE - (uint32_t)(va & (NCP_PAGE - 1u));
    uint64_t pa, pa2;

    if (len - first > NCP_PAGE || !dmaq_direct_n(2) ||
        !xlate_vmh_peek(pid, va, NIC_RIGHT_REMOTE_WRITE, LKC_PATH_RECV, &pa, 1) ||
        !xlate_vmh_peek(pid, va + first, NIC_RIGHT_REMOTE_WRITE, LKC_PATH_RECV, &pa2, 1))
        return 0;
    xlate_vmh_count(2);
    ncp_sat_inc(&rx_cnt.rx_packets);
    ncp_sat_inc(&xlate_fast_hits.target);
    rx_meta[ridx].seq = ((const uint32_t *)(const void *)f)[PKT_W_SEQ];
    uint32_t at = HAL_SRAM_OFF(f + PKT_HDR_BYTES);
    dmaq_post_direct(at, pa, first, 1, DK_NONE, ridx, (uint16_t)src);
    dmaq_post_direct(at + first, pa2, len - first, 1, DK_RX, ridx, (uint16_t)src);
    pp->rx_dma_pending++;
    xport_rx_accept_fast(&pp->x); /* (synced == 1: nothing held out of order) */
    return 1;
}

/*
 * The common case of on_frame() in a straight line, without calls: a WRITE with data, well formed
 * (pkt_parse's checks, on the header words in place), from a synced peer holding nothing out of
 * order (synced == 1), the next expected sequence number, acknowledging nothing new unless flow
 * and congestion control are off (then its ACK is deferred after its data is posted: rx_ack_defer,
 * on_frame's order), its target (pid, buffer) memoised with every protection check passed, one
 * page that translates, a free DMA engine slot. Returns 1 when the packet is delivered (its DMA
 * posted); 0 when any condition fails, having changed nothing that matters (at most the VMH memo
 * and LRU stamp of a page it found): on_frame() then handles the frame the general way and reaches
 * the same verdicts.
 */
/*
 * The common case of a READ_RESP in a straight line (an RDMA read's data at its initiator), as
 * rx_fast is for a WRITE: well formed (pkt_parse's READ_RESP rule: data, not void, offset inside
 * an operation), from a synced peer, the next expected sequence number, acknowledging nothing new,
 * answering a live read of ours to that peer at a segment boundary with that segment's length
 * (cpl_on_read_resp's match), the operation not failed, its destination in one page that
 * translates (VMH hit, local write right), a free DMA engine slot. Returns 1 when the data's DMA is
 * posted; 0, having changed nothing that matters (at most the VMH memo and LRU stamp of a page it
 * found), when any condition fails: on_frame() then decides the general way. Before it, a read
 * stream's initiator spent ~300 more cycles per response in pkt_parse, on_frame and
 * cpl_on_read_resp than a write's target does in rx_fast (docs/firmware.md).
 */
static __attribute__((noinline)) int rx_fast_resp(const uint8_t *f, uint32_t flen, uint32_t ridx)
{
    const uint32_t *w = (const uint32_t *)(const void *)f;
    uint32_t w0 = pkt_bswap16x2(w[PKT_W_NODES]), w1 = w[PKT_W_TYPE];
    uint32_t src = w0 >> 16, len = w1 >> 16, flags = (w1 >> 8) & 0xFFu, off = w[PKT_W_OFF_LO];
    uint64_t pa;

    if (flen < PKT_HDR_BYTES || len == 0 || (flags & (PKT_F_RESYNC | PKT_F_IMM | PKT_F_CE | PKT_F_VOID)) ||
        pkt_hdr_check(w0 & 0xFFFFu, src, PKT_READ_RESP, len, flen, ncp.me, ncp.nodes, NCP_MTU) != PKT_OK ||
        src >= NCP_MAX_PEERS || w[PKT_W_OFF_HI] != 0 || off >= NIC_MAX_XFER)
        return 0;
    struct ncp_peer *pp = &conn_peer(src);
    uint32_t seq = w[PKT_W_SEQ];
    if (w[PKT_W_TOKEN] != pp->rx_token || seq_lt(pp->x.una, w[PKT_W_ACK]) || pp->x.synced != 1 ||
        seq != pp->x.expected)
        return 0;
    const struct ncp_op *o = op_by_id(w[PKT_W_OP]);
    if (!o || o->kind != NIC_OP_RDMA_READ || o->rnode != src || off % NCP_MTU != 0 || off >= o->len ||
        len != seg_bytes(o->len, off) || o->status != NIC_ST_OK)
        return 0;
    uint64_t va = o->laddr + off;
    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE || !dmaq_direct() ||
        !xlate_vmh_hit(o->lpid, va, NIC_RIGHT_LOCAL_WRITE, LKC_PATH_RECV, &pa, 0))
        return 0;
    ncp_sat_inc(&rx_cnt.rx_packets);
    rx_meta[ridx].op = op_id(o);
    rx_meta[ridx].len = len;
    rx_meta[ridx].seq = seq;
    dmaq_post_direct(HAL_SRAM_OFF(f + PKT_HDR_BYTES), pa, len, 1, DK_RXRESP, ridx, (uint16_t)src);
    pp->rx_dma_pending++;
    xport_rx_accept_fast(&pp->x); /* (synced == 1: nothing held out of order) */
    return 1;
}

static inline __attribute__((always_inline)) int rx_fast(const uint8_t *f, uint32_t flen, uint32_t ridx)
{
    const uint32_t *w = (const uint32_t *)(const void *)f;
    uint32_t w0 = pkt_bswap16x2(w[PKT_W_NODES]), w1 = w[PKT_W_TYPE];
    uint32_t src = w0 >> 16, len = w1 >> 16, flags = (w1 >> 8) & 0xFFu;
    uint32_t pid = w[PKT_W_PID] & 0xFFFFu, buf = w[PKT_W_BUF];
    uint64_t off = (uint64_t)w[PKT_W_OFF_HI] << 32 | w[PKT_W_OFF_LO];
    uint64_t pa;

    NCP_PROF_START();
    /* pkt_parse's rules (pkt.h): header, WRITE fields; on_frame: source within the peers; here
     * only a WRITE with data that does not resync, has no immediate and carries no congestion
     * mark (cc_on_frame) */
    if (flen < PKT_HDR_BYTES || (w1 & 0xFFu) != PKT_WRITE || len == 0 ||
        (flags & (PKT_F_RESYNC | PKT_F_IMM | PKT_F_CE)) ||
        pkt_hdr_check(w0 & 0xFFFFu, src, PKT_WRITE, len, flen, ncp.me, ncp.nodes, NCP_MTU) != PKT_OK ||
        src >= NCP_MAX_PEERS || !pkt_write_ok(len, flags, buf, off, w[PKT_W_XLEN]))
        return 0;
    /* on_ack_fields: nothing new acknowledged; xport_rx_classify: the next expected packet */
    struct ncp_peer *pp = &conn_peer(src);
    uint32_t seq = w[PKT_W_SEQ], ack = w[PKT_W_ACK];
    if (w[PKT_W_TOKEN] != pp->rx_token || (seq_lt(pp->x.una, ack) && cc_opts) || pp->x.synced != 1 ||
        seq != pp->x.expected)
        return 0;
    /* check_cbh on the memoised target (its PCH and CBH entries valid), the same rule */
    if (xlate_tmemo.pid != (pid | LKC_KEY_VALID) || xlate_tmemo.buf != buf)
        return 0;
    const struct nic_cbh_entry *e = xlate_tmemo.e;
    if (rsp_access_check(e, pid, w[PKT_W_KEY], NIC_RIGHT_REMOTE_WRITE, off, len) != NIC_ST_OK)
        return 0;
    /* rx_place, one page (two: rx_fast_2pages) */
    uint64_t va = ((uint64_t)e->va_hi << 32 | e->va_lo) + off;
    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE) {
        if (!rx_fast_2pages(f, ridx, src, (uint16_t)pid, va, len))
            return 0;
    } else {
        if (!dmaq_direct() || !xlate_vmh_peek((uint16_t)pid, va, NIC_RIGHT_REMOTE_WRITE, LKC_PATH_RECV, &pa, 0))
            return 0;
        ncp_sat_inc(&xlate_fast_hits.rx_write); /* a packet, a target hit and a VMH hit (xlate.h) */
        rx_meta[ridx].seq = seq;
        dmaq_post_direct(HAL_SRAM_OFF(f + PKT_HDR_BYTES), pa, len, 1, DK_RX, ridx, (uint16_t)src);
        pp->rx_dma_pending++;
        xport_rx_accept_fast(&pp->x); /* (synced == 1: nothing held out of order) */
    }
    if (seq_lt(pp->x.una, ack)) {
        pset_add(ncp_work.peer_ack, src); /* as on_frame: conn_flush_acks looks at this peer */
        rx_ack_defer(src, ack);           /* the piggy-backed ACK after the data (rx_ack_after_data) */
    }
    NCP_PROF(14);
    return 1;
}

static void release(void)
{
    uint32_t t = rx_tail;
    while (t != rx_next && !rx_busy[t % RX_N])
        t++;
    if (t != rx_tail) {
        rx_tail = t;
        hal_mac_rx_release(t);
    }
}

int rx_loop_push(const uint8_t *frame, uint32_t len, uint32_t id)
{
    if (!loop_free)
        return 0;
    uint32_t k = tx_frame_lowest(loop_free);
    loop_free &= ~(1u << k);
    loop_f[k] = frame;
    loop_len[k] = (uint16_t)len;
    loop_id[k] = (uint8_t)id;
    loop_q[loop_tail++ % 32u] = (uint8_t)k;
    hal_raise_events(HAL_EV_RX); /* rx_poll handles it */
    return 1;
}

/*
 * The held loopback frame (loop_held) handled again, as its resend would be when it arrives, its
 * piggy-backed ACK and congestion fields excepted (applied when it first arrived): after a fill
 * (from cmd_poll, before the next command, which may invalidate the line just filled), when the
 * packet came again (loop_held_dup), or when the connection moved past it (a resync, its context
 * evicted). Placed (its DMA owns the entry, rx_dma_done frees it), held again on another miss, or
 * else (refused, a duplicate now, ...) released as on_frame would have released it.
 */
static __attribute__((noinline, cold)) int loop_redo(const uint8_t *f, uint32_t len, uint32_t ridx)
{
    struct pkt_hdr *const hp = &rx_hdr;

    if (pkt_parse_src(f, len, ncp.me, ncp.nodes, NCP_MTU, 1, hp) != PKT_OK || hp->src >= NCP_MAX_PEERS ||
        !conn_resident(hp->src) || hp->token != conn_peer(hp->src).rx_token)
        return 0; /* (its connection's context evicted since: the sender resends) */
    struct xport_peer *x = &conn_peer(hp->src).x;
    switch (xport_rx_classify(x, hp->seq, hp->flags, &rx_nack)) {
    case XP_RX_DUP:
        ncp_sat_inc(&rx_cnt.dup_packets);
        return 0;
    case XP_RX_GAP:
        if (rx_nack)
            tx_ctl(hp->src, PKT_NACK, PKT_NACK_GAP, hp->seq, 0, 0);
        return 0;
    case XP_RX_OOO:
        return rx_ooo(hp, f, ridx);
    case XP_RX_NEW:
        break;
    }
    switch (hp->type) {
    case PKT_WRITE:
        return rsp_on_write(hp->src, hp, f + PKT_HDR_BYTES, ridx);
    case PKT_READ_REQ:
        return rsp_on_read_req(hp->src, hp);
    default:
        return cpl_on_read_resp(hp->src, hp, f + PKT_HDR_BYTES, ridx);
    }
}

void rx_loop_retry(void)
{
    if (!loop_retry_due)
        return;
    loop_retry_due = 0;
    if (!loop_held)
        return;
    uint32_t k = loop_held - 1u, i = RX_N + k;
    loop_held = 0;
    loop_cur = (uint8_t)(k + 1u); /* a miss holds it again */
    ncp_sat_inc(&rx_cnt.loop_retries);
    rx_busy[i] = (uint8_t)loop_redo(loop_f[k], loop_len[k], i);
    loop_cur = 0;
    if (!rx_busy[i] && loop_held != k + 1u) {
        loop_free |= 1u << k;
        tx_loop_release(loop_id[k]);
    }
}

void rx_loop_unhold(void)
{
    if (!loop_held)
        return;
    uint32_t k = loop_held - 1u;
    loop_held = 0;
    loop_free |= 1u << k; /* (rx_busy of a held entry is 0: on_frame refused it) */
    tx_loop_release(loop_id[k]);
}

/* The loopback frames queued so far (not those their handling queues: the next pass's). */
static __attribute__((noinline)) void loop_poll(void)
{
    if (loop_held && !loop_retry_due &&
        (!conn_resident(ncp.me) || conn_peer(ncp.me).x.expected != loop_held_seq))
        loop_retry_due = 1; /* the connection moved past it (a resync) or went: let it go (loop_redo) */
    rx_loop_retry();
    for (uint32_t end = loop_tail; loop_head != end;) {
        uint32_t k = loop_q[loop_head++ % 32u], i = RX_N + k;
        loop_cur = (uint8_t)(k + 1u);
        rx_busy[i] = (uint8_t)on_frame(loop_f[k], loop_len[k], i);
        loop_cur = 0;
        if (!rx_busy[i] && loop_held != k + 1u) {
            loop_free |= 1u << k;
            tx_loop_release(loop_id[k]);
        }
    }
    if (loop_head != loop_tail || loop_retry_due)
        hal_raise_events(HAL_EV_RX);
}

void rx_poll(void)
{
    uint32_t head = hal_mac_rx_head();

    for (uint32_t budget = 0; rx_next != head && budget < RX_N; budget++) {
        uint32_t i = rx_next % RX_N, t0 = fp_now();
        uint32_t len = nic_field(rx_ring[i][NIC_RXDESC_STATUS_IDX], NIC_RXDESC_STATUS_LEN);
        /* the fast path by the frame's type byte (rx_fast: WRITE, rx_fast_resp: READ_RESP) */
        int fast = NCP_FASTPATH && (rx_buf[i][4] == PKT_READ_RESP ? rx_fast_resp(rx_buf[i], len, i)
                                                                  : rx_fast(rx_buf[i], len, i));
        rx_busy[i] = (uint8_t)(fast || on_frame(rx_buf[i], len, i));
        if (NCP_FP_SAMPLES && rx_busy[i]) { /* a data packet delivered: every lookup hit */
            rx_meta[i].cyc = fp_now() - t0;
            rx_meta[i].len = len - PKT_HDR_BYTES; /* (a read response's: set already, the same) */
        }
        rx_next++;
    }
    if (rx_next != head)
        hal_raise_events(HAL_EV_RX); /* budget: the rest in the next pass */
    release();
    if ((loop_head != loop_tail) | loop_held)
        loop_poll();
}

/*
 * The completions that are not the common case (pp->rx_err): a receive DMA failed, or out-of-order
 * packets' DMAs are pending (selective repeat).
 *
 * A received write's data did not reach host memory (a host DMA error at this node): the packet
 * must not be acknowledged. The receiver goes back to it (`expected` = its number, so it and what
 * followed are accepted again when resent: rewritten with the same data; with selective repeat
 * one accepted out of order is only forgotten, xport_rx_renege, and no longer SACKed), and ack_val,
 * which only counts packets before `expected`, stays before it. The sender resends it on the GAP NACK or
 * timeout; a DMA that keeps failing ends in the sender's give-up (NIC_ST_UNREACHABLE), never in a
 * completion that counts the bytes.
 *
 * The ACK a completion may advertise: seq + 1 for a packet accepted in order, the `expected` of its
 * acceptance for one accepted out of order (rx_ooo); DMAs complete in order, so every packet before
 * that point is in host memory.
 */
static __attribute__((noinline)) void rx_data_slow(struct ncp_peer *pp, uint32_t ridx, uint32_t seq, uint8_t kind,
                                                   uint8_t err)
{
    uint32_t ackp = seq + 1u;

    if (rx_ooo_mask >> ridx & 1u) {
        ackp = rx_ooo_ack[ridx];
        rx_ooo_mask &= ~(1u << ridx);
    }
    if (err && kind != DK_RXRESP) { /* a write's data (DK_RX, DK_RXIMM) */
        ncp_sat_inc(&rx_cnt.rx_dma_errors);
        if (pp->x.sr) {
            xport_rx_renege(&pp->x, seq);
        } else if (seq_lt(seq, pp->x.expected)) {
            pp->x.expected = seq;
            pp->x.nack_valid = 0;
            pp->x.ack_pending = 1;
        }
        pp->rx_err |= RX_ERR_DMA;
    }
    /* after a failure nothing from the failed packet on counts until it is accepted again */
    if (seq_lt(pp->ack_val, ackp) && (!(pp->rx_err & RX_ERR_DMA) || seq_le(ackp, pp->x.expected)))
        pp->ack_val = ackp;
    if (pp->rx_dma_pending == 0)
        pp->rx_err = 0; /* drained: ack_val = expected from here (rx_dma_done) */
}

void rx_dma_done(uint8_t kind, uint32_t ridx, uint16_t peer, uint8_t err)
{
    struct ncp_peer *pp = &conn_peer(peer);
    uint32_t seq = rx_meta[ridx].seq;

    __asm__("" : "+r"(pp)); /* kept in a register, not recomputed (a multiply) per access */
    NCP_PROF_START();
    NCP_ASSERT(NCP_MOD_RX, 1, ridx < RX_N + NCP_LOOP_N && rx_busy[ridx] && pp->rx_dma_pending > 0);
    if (__builtin_expect(ridx >= RX_N, 0)) {
        if (ridx >= RX_N + NCP_LOOP_N)
            return; /* (the assertion's: not reached) */
        loop_free |= 1u << (ridx - RX_N); /* a loopback entry: free at once (not in ring order) */
        tx_loop_release(loop_id[ridx - RX_N]);
    }
    rx_busy[ridx] = 0;
    pp->rx_dma_pending--;
    if (__builtin_expect(kind == DK_RXIMM, 0)) /* the last segment of a write with immediate: its data */
        evq_imm_done(ridx, err | (pp->rx_err & RX_ERR_DMA)); /* and every earlier one's is in memory:
            * it was accepted in order (rx_ooo), DMAs complete in order; pending out-of-order DMAs
            * behind it (RX_ERR_OOO) do not matter, an earlier failed one (RX_ERR_DMA) does */
    /* DMAs complete in order: everything up to this packet is in host memory (unless a DMA
     * before it failed: then `expected` went back to that one, and nothing from there counts
     * until the packets are accepted again: rx_data_failed, while pp->rx_err) */
    if (__builtin_expect(err | pp->rx_err, 0))
        rx_data_slow(pp, ridx, seq, kind, err);
    else if (seq_lt(pp->ack_val, seq + 1u))
        pp->ack_val = seq + 1u;
    if (pp->rx_dma_pending == 0) {
        pp->ack_val = pp->x.expected;
        pset_add(ncp_work.peer_ack, peer); /* conn_flush_acks: the ACK may go now */
    } else if (__builtin_expect(ncp.now - pp->ack_t >= NCP_ACK_WAIT, 0)) {
        pp->ack_early = 1; /* the ACK owed waited long enough: what is in memory goes (conn_flush_acks) */
        pset_add(ncp_work.peer_ack, peer);
    } else if (__builtin_expect(cc_opts & CC_OPT_FC, 0)) {
        pset_add(ncp_work.peer_ack, peer); /* flow control: an ACK (a credit) may go early (cc_ack_early) */
    }
    cc_ack_moved(peer, pp->ack_val); /* ack_val moved: flow control's sum of outstanding grants (congestion.c) */
    if (kind == DK_RXRESP)
        cpl_read_data_done(ridx, err);
    release();
    NCP_PROF(11);
    fp_record(FP_RX, rx_meta[ridx].cyc + dmaq.fp_acc + (fp_now() - dmaq.fp_t0), rx_meta[ridx].len);
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void rx_counters(struct nic_stats *s, struct ncp_counters *k)
{
    ncp_sat_add(&s->auth_drops, rx_cnt.auth_drops);
    ncp_sat_add(&s->drops_bad, rx_cnt.drops_bad);
    ncp_sat_add(&s->drops_miss, rx_cnt.drops_miss);
    ncp_sat_add(&s->dup_packets, rx_cnt.dup_packets);
    ncp_sat_add(&s->protection_errors, rx_cnt.protection_errors);
    ncp_sat_add(&s->resyncs_bad, rx_cnt.resyncs_bad);
    ncp_sat_add(&s->rx_dma_errors, rx_cnt.rx_dma_errors);
    ncp_sat_add(&s->rx_packets, rx_cnt.rx_packets);
    ncp_sat_add(&s->rx_packets, xlate_fast_hits.rx_write); /* rx_fast's, counted once (xlate.h) */
    ncp_sat_add(&k->resumes_sent, rx_cnt.resumes_sent);
    ncp_sat_add(&s->loop_holds, rx_cnt.loop_holds);
    ncp_sat_add(&s->loop_retries, rx_cnt.loop_retries);
}
