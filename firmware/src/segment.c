/*
 * segment.c - the packet builder, for every sequenced packet we send: a write segment or a read
 * request (requester.c), a read response segment (responder.c). Translate the local pages, take
 * a sequence number (new packets) or reuse it (retransmissions), write the header into a free
 * frame, DMA the payload in from host memory, queue the frame (tx.c). One builder, two shapes of
 * it: seg_build_fast, the common case in a straight line, and seg_build, every case; they share
 * the header fillers and predicates below, so a rule lives in one place.
 *
 * Data is never kept per packet in flight: a window slot holds a cookie (operation + segment),
 * and a retransmission rebuilds the packet by translating and DMAing the bytes from host memory
 * again (docs/firmware.md, "Retransmission"); an inline write's bytes (ABI 2.4) are copied from
 * its send queue slot, again.
 */
#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "epc.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "ops.h"
#include "responder.h"
#include "segment.h"
#include "timer.h"
#include "tx.h"
#include "xlate.h"

/* This module's counters (gathered by seg_counters for STATS). */
static struct {
    uint32_t local_denied;
    uint32_t retransmits;
    uint32_t void_fails;
} seg_cnt;

_Static_assert(PKT_WORDS, "the builder writes header words in place: little-endian core");
_Static_assert(NCP_MTU >= 256, "segment numbers are 16-bit: MTU >= 256 for 16 MiB operations");

/*
 * The header words of a write segment / read response segment that come from its operation or
 * response: one filler each, for both shapes of the builder. (The words from the connection, the
 * type and the sequence are written when the packet is committed.)
 */
static inline __attribute__((always_inline)) void hdr_fill_write(uint32_t *restrict w, uint32_t id,
                                                                 const struct ncp_op *o, uint32_t off)
{
    uint64_t roff = o->roff + off;

    w[PKT_W_OP] = id;
    w[PKT_W_PID] = pkt_w_pid(o->rpid, o->imm); /* the immediate, 0 without one (PKT_F_IMM) */
    w[PKT_W_BUF] = o->rbuf;
    w[PKT_W_KEY] = o->rkey;
    w[PKT_W_OFF_LO] = (uint32_t)roff;
    w[PKT_W_OFF_HI] = (uint32_t)(roff >> 32);
    w[PKT_W_XLEN] = off;
}
static inline __attribute__((always_inline)) void hdr_fill_resp(uint32_t *restrict w, const struct ncp_resp *rs,
                                                                uint32_t off)
{
    w[PKT_W_OP] = rs->op;
    w[PKT_W_PID] = 0;
    w[PKT_W_BUF] = 0;
    w[PKT_W_KEY] = 0;
    w[PKT_W_OFF_LO] = off;
    w[PKT_W_OFF_HI] = 0;
    w[PKT_W_STATUS] = 0;
}

/*
 * An inline write's bytes (ABI 2.4, NIC_WR_INLINE: one segment of len <= NIC_INLINE_MAX) from the
 * words of its send queue slot into the frame's payload. The slot is the process's until the
 * request retires, so a retransmission reads the same bytes (or what the process wrote there
 * since: only its own message changes). Whole words: the frame's length says where it ends.
 */
static inline __attribute__((always_inline)) void seg_inline_copy(uint32_t *restrict w, const struct ncp_op *o)
{
    const volatile uint32_t *e = (const volatile uint32_t *)HAL_SRAM_PTR(
        ep_sq_off(o->ep) + (o->req % NCP_SQ_N) * (uint32_t)sizeof(struct nic_sq_entry));
    uint32_t *restrict p = w + PKT_HDR_BYTES / 4u;

    /* all six words, whatever len (a loop over len's words with the index map cost ~40 cycles) */
    _Static_assert(PKT_HDR_BYTES % 4u == 0 && NIC_INLINE_MAX == 24u && PKT_HDR_BYTES + NIC_INLINE_MAX <= NCP_FRAME_BYTES,
                   "inline copy");
    p[0] = e[NIC_INLINE_WORD(0)];
    p[1] = e[NIC_INLINE_WORD(1)];
    p[2] = e[NIC_INLINE_WORD(2)];
    p[3] = e[NIC_INLINE_WORD(3)];
    p[4] = e[NIC_INLINE_WORD(4)];
    p[5] = e[NIC_INLINE_WORD(5)];
}

struct piece {
    uint64_t pa;
    uint32_t len;
};

/* Translates [va, va + len) of pid with `right` page by page. */
static inline __attribute__((always_inline)) enum build_result translate(uint16_t pid, uint64_t va, uint32_t len,
                                                                         uint32_t right, struct piece *pc, uint32_t *n)
{
    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len <= NCP_PAGE) { /* one page: the aligned MTU case */
        enum xl_result r = xlate_vmh(pid, va, right, LKC_PATH_SEND, &pc[0].pa);
        pc[0].len = len;
        *n = 1;
        return r == XL_OK ? B_SENT : r == XL_MISS ? B_WAIT : B_DENIED;
    }
    *n = 0;
    while (len) {
        uint32_t chunk = NCP_PAGE - (uint32_t)(va & (NCP_PAGE - 1u));
        if (chunk > len)
            chunk = len;
        enum xl_result r = xlate_vmh(pid, va, right, LKC_PATH_SEND, &pc[*n].pa);
        if (r == XL_MISS)
            return B_WAIT;
        if (r != XL_OK)
            return B_DENIED;
        pc[*n].len = chunk;
        (*n)++;
        va += chunk;
        len -= chunk;
    }
    return B_SENT;
}

/* Every case (segment.h). */
enum build_result seg_build(uint16_t peer, ncp_cookie_t cookie, int retrans, uint32_t seq)
{
    struct ncp_peer *pp = &conn_peer(peer);
    struct piece pc[NCP_SEG_PIECES];
    uint32_t npc = 0, len = 0, seg = CK_SEG(cookie), idx = CK_IDX(cookie), type = 0, flags = 0;
    enum build_result r = B_SENT;
    int void_data = 0;
    uint32_t t0 = fp_now();

    NCP_PROF_START();
    if (!txs.free)
        tx_collect();
    if (!txs.free || !tx_room() || !dmaq_room(NCP_SEG_PIECES))
        return B_WAIT;
    /* The header goes straight into the lowest free frame, taken only if the packet is sent (a
     * packet that waits leaves a partly written header in a free frame: harmless). */
    uint32_t f = tx_frame_lowest(txs.free);
    uint32_t *w = (uint32_t *)(void *)tx_frame[f];
    w[PKT_W_NODES] = pkt_w_nodes(peer, ncp.me);
    w[PKT_W_TOKEN] = pp->tx_token;
    NCP_PROF(0);
    switch (CK_KIND(cookie)) {
    case CK_WRITE: {
        struct ncp_op *o = &op_tab[idx];
        uint32_t off = seg * NCP_MTU;
        int live = op_live(o, CK_ID(cookie));
        len = seg_bytes(o->len, off);
        type = PKT_WRITE;
        hdr_fill_write(w, CK_ID(cookie), o, off); /* the cookie's op, also when its slot was reused */
        flags = off + len == o->len ? o->last_flags : 0;
        if (!live || o->status != NIC_ST_OK)
            void_data = 1; /* failed or flushed meanwhile: keep the sequence, send no data */
        else if (o->flags & NIC_WR_INLINE)
            seg_inline_copy(w, o); /* its data in the frame now: no DMA (npc 0) */
        else
            r = translate(o->lpid, o->laddr + off, len, NIC_RIGHT_LOCAL_READ, pc, &npc);
        if (r == B_WAIT)
            xlate_miss_end(o->laddr + o->len); /* prefetch: the rest of the write's source */
        if (!live) { /* the slot is another op's now: none of its fields go out */
            len = 0;
            flags = 0;
            w[PKT_W_PID] = w[PKT_W_BUF] = w[PKT_W_KEY] = w[PKT_W_OFF_LO] = w[PKT_W_OFF_HI] = 0;
        }
        break;
    }
    case CK_READREQ: {
        struct ncp_op *o = &op_tab[idx];
        int live = op_live(o, CK_ID(cookie));
        if (!live || o->status != NIC_ST_OK)
            void_data = 1; /* refused, failed or flushed: keep the sequence, ask for nothing */
        type = PKT_READ_REQ;
        w[PKT_W_OP] = CK_ID(cookie);
        w[PKT_W_PID] = pkt_w_pid(o->rpid, 0);
        w[PKT_W_BUF] = o->rbuf;
        w[PKT_W_KEY] = o->rkey;
        w[PKT_W_OFF_LO] = (uint32_t)o->roff;
        w[PKT_W_OFF_HI] = (uint32_t)(o->roff >> 32);
        w[PKT_W_XLEN] = live ? o->len : 1u;
        break;
    }
    case CK_READRESP: {
        struct ncp_resp *rs = &resp_tab[idx];
        uint32_t off = seg * NCP_MTU;
        len = seg_bytes(rs->len, off);
        type = PKT_READ_RESP;
        hdr_fill_resp(w, rs, off);
        flags = off + len == rs->len ? PKT_F_LAST : 0;
        if (!resp_live(rs, CK_ID(cookie))) {
            /* the slot serves another response now: a void packet for no operation (its op id
             * names none of the initiator's live reads any more, or the wrong one: zero) */
            void_data = 1;
            w[PKT_W_OP] = 0;
            flags = 0;
        } else if (rs->failed) {
            void_data = 1;
            w[PKT_W_STATUS] = (uint32_t)(int32_t)rs->fail_status; /* the initiator's status */
        } else
            r = translate(rs->pid, rs->va + off, len, NIC_RIGHT_REMOTE_READ, pc, &npc);
        if (r == B_WAIT)
            xlate_miss_end(rs->va + rs->len); /* prefetch: the rest of the response's source */
        break;
    }
    default:
        NCP_ASSERT(NCP_MOD_TX, 2, 0);
    }
    NCP_PROF(1);
    if (r == B_WAIT)
        return r;
    if (r == B_DENIED) {
        if (!retrans)
            return r;
        /* a retransmission after an invalidation (the source deregistered): the receiver skips
         * it, and the operation fails: a void segment never counts as delivered */
        void_data = 1;
        ncp_sat_inc(&seg_cnt.local_denied);
        if (CK_KIND(cookie) == CK_READRESP) {
            resp_fail(cookie, NIC_ST_RIGHTS);
            w[PKT_W_STATUS] = (uint32_t)(int32_t)resp_tab[idx].fail_status;
        }
    }
    if (void_data && CK_KIND(cookie) != CK_READRESP) {
        /* The rule for every void write segment / read request of a live op, whatever made it
         * void: the op fails (a deregistered source: NIC_ST_BAD_HANDLE), so bytes acknowledged for
         * a void segment never complete it NIC_ST_OK. */
        struct ncp_op *o = op_by_cookie(cookie);
        if (o && o->status == NIC_ST_OK) {
            op_fail(o, NIC_ST_BAD_HANDLE);
            ncp_sat_inc(&seg_cnt.void_fails);
        }
    }
    if (void_data) {
        flags |= PKT_F_VOID;
        npc = 0;
        len = 0;
    }
    if (!retrans) {
        seq = xport_tx_push(&pp->x, &ncp_xcfg, cookie, ncp.now);
        if (seq == pp->x.una) { /* the window was empty: the push armed a deadline */
            timer_kick();
            pset_add(ncp_work.peer_tx, peer);
        }
    }
    flags |= xport_tx_flags(&pp->x, seq);
    txs.una[f] = 0;
    if (seq == pp->x.una) { /* its departure is recorded (tx_left): a timeout counts from then */
        txs.una[f] = &pp->x;
    }
    w[PKT_W_TYPE] = pkt_w_type(type, flags, len);
    w[PKT_W_SEQ] = seq;
    w[PKT_W_ACK] = pp->ack_val;
    if (pp->ack_val == pp->x.expected && !pp->x.rsack)
        pp->x.ack_pending = 0; /* piggy-backed (a SACK goes in an ACK frame) */
    NCP_PROF(2);
    tx_frame_queue(f, PKT_HDR_BYTES + len);
    NCP_PROF(3);
    if (npc == 0) {
        tx_ready(f);
    } else {
        uint32_t at = HAL_SRAM_OFF(tx_frame[f]) + PKT_HDR_BYTES;
        for (uint32_t i = 0; i < npc; i++) {
            dmaq_post(at, pc[i].pa, pc[i].len, 0, i + 1 == npc ? DK_TX : DK_NONE, f, 0);
            at += pc[i].len;
        }
        /* one request, taken by the engine at once (its tag known): gated in the MAC as the fast
         * builder does (a payload in several requests waits for their completions) */
        if (npc == 1 && dmaq.issued == dmaq.head)
            tx_gate(f, PKT_HDR_BYTES + len, w[PKT_W_NODES], (uint8_t)(dmaq.head - 1u));
        if (NCP_FP_SAMPLES)
            txs.cyc[f] = fp_now() - t0;
    }
    NCP_PROF(4);
    return B_SENT;
}

/*
 * The common case of seg_build() in a straight line, without calls: a new write segment or read
 * response, operation live, its data in one page that translates (memo or cache hit, right
 * granted), a frame, queue room and a free DMA engine slot. Returns 1 when sent; 0 when any
 * condition fails, having changed nothing that matters (a header partly written into a free frame,
 * the VMH memo and LRU stamp of a page it found): seg_build() then does the same work the general way.
 */
static inline __attribute__((always_inline)) int seg_build_fast(uint16_t peer, ncp_cookie_t cookie)
{
    uint32_t t0 = fp_now();
    uint32_t idx = CK_IDX(cookie), off = CK_SEG(cookie) * NCP_MTU, len, type, last, pid, right;
    uint64_t va, pa = 0;
    uint32_t inl = 0;

    NCP_PROF_START();
    if (!txs.free || !tx_room())
        return 0;
    uint32_t dma_ok = dmaq_room(NCP_SEG_PIECES) && dmaq_direct(); /* (an inline write needs no DMA) */
    /* The header goes straight into the lowest free frame, taken only if the packet is sent (a
     * packet that falls back leaves a partly written header in a free frame: harmless). The frame
     * aliases no other state (restrict): the compiler stores each header word as soon as it is
     * known and keeps nothing live for it. */
    uint32_t f = tx_frame_lowest(txs.free);
    uint32_t *restrict w = (uint32_t *)(void *)tx_frame[f];
    if (CK_KIND(cookie) == CK_WRITE) {
        const struct ncp_op *o = &op_tab[idx];
        inl = o->flags & NIC_WR_INLINE;
        if (!op_live(o, CK_ID(cookie)) || o->status != NIC_ST_OK || !(dma_ok | inl))
            return 0;
        len = seg_bytes(o->len, off);
        last = off + len == o->len ? o->last_flags : 0u;
        type = PKT_WRITE;
        pid = o->lpid;
        va = o->laddr + off;
        right = NIC_RIGHT_LOCAL_READ;
        hdr_fill_write(w, o->id, o, off);
        if (inl)
            seg_inline_copy(w, o); /* ABI 2.4: the bytes from its slot, no translation, no DMA */
    } else if (CK_KIND(cookie) == CK_READRESP) {
        const struct ncp_resp *rs = &resp_tab[idx];
        if (!resp_live(rs, CK_ID(cookie)) || rs->failed || !dma_ok)
            return 0;
        len = seg_bytes(rs->len, off);
        last = off + len == rs->len ? PKT_F_LAST : 0u;
        type = PKT_READ_RESP;
        pid = rs->pid;
        va = rs->va + off;
        right = NIC_RIGHT_REMOTE_READ;
        hdr_fill_resp(w, rs, off);
    } else {
        return 0;
    }
    if (!inl && ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE ||
                 !xlate_vmh_hit((uint16_t)pid, va, right, LKC_PATH_SEND, &pa, 1)))
        return 0;
    /* committed: from here on as seg_build(). The peer's fields are read before xport_tx_push stores
     * into its window (the compiler would reload them after that store). */
    struct ncp_peer *pp = &conn_peer(peer);
    __asm__("" : "+r"(pp)); /* opaque: kept in a register, not recomputed (a multiply) per access */
    struct xport_peer *x = &pp->x;
    uint32_t ack = pp->ack_val, una = x->una, piggy = ack == x->expected && !x->rsack, w_nodes = pp->w_nodes;
    uint32_t token = pp->tx_token;
    uint32_t flags = last | xport_tx_flags(x, x->nxt); /* x->nxt: the seq pushed */
    uint32_t seq = xport_tx_push(x, &ncp_xcfg, cookie, ncp.now);
    w[PKT_W_NODES] = w_nodes;
    w[PKT_W_TYPE] = pkt_w_type(type, flags, len);
    w[PKT_W_SEQ] = seq;
    w[PKT_W_ACK] = ack;
    w[PKT_W_TOKEN] = token;
    if (piggy)
        x->ack_pending = 0; /* piggy-backed */
    if (seq == una) { /* the window was empty: the push armed the deadline */
        timer_kick();
        pset_add(ncp_work.peer_tx, peer);
        txs.una[f] = x; /* its departure is recorded (tx_left) */
    }
    tx_frame_queue(f, PKT_HDR_BYTES + len);
    if (__builtin_expect(inl != 0, 0)) {
        tx_ready_now(f); /* its payload is in: it may go */
        return 1;
    }
    dmaq_post_direct(HAL_SRAM_OFF(tx_frame[f]) + PKT_HDR_BYTES, pa, len, 0, DK_TX, f, 0);
    tx_gate(f, PKT_HDR_BYTES + len, w_nodes, (uint8_t)(dmaq.head - 1u)); /* else: at its DMA completion */
    if (NCP_FP_SAMPLES)
        txs.cyc[f] = fp_now() - t0;
    NCP_PROF(15);
    return 1;
}

/* Inlined into its two callers (serve_ep, resp_poll: once per new segment): as a function it saved
 * and restored 12 registers per segment (the fast builder's), ~35 cycles per packet on a write's
 * sender and a read's responder; its callers save theirs once per pass (docs/firmware.md). */
__attribute__((always_inline)) inline enum build_result seg_send_new(uint16_t peer, ncp_cookie_t cookie)
{
    if (!txs.free)
        tx_collect(); /* as seg_build() does first */
    if (NCP_FASTPATH && seg_build_fast(peer, cookie))
        return B_SENT;
    return seg_build(peer, cookie, 0, 0);
}

void seg_resend_poll(void)
{
    uint32_t seq;
    ncp_cookie_t cookie;

    /* resends first (the loop calls this before new packets): they hold the window; only the
     * peers in peer_rexmit can have any */
    for (uint32_t i = 0, nw = pset_nwords(); i < nw; i++) {
        for (uint32_t m = ncp_work.peer_rexmit[i]; m; m &= m - 1) {
            uint16_t p = (uint16_t)(i * 32u + ncp_lowest_bit(m));
            struct xport_peer *x = &conn_peer(p).x;
            int more = 1;
            for (unsigned budget = 0; budget < 8; budget++) {
                if (seq_lt(x->rexmit, x->nxt) && !cc_resend_room(p, x, x->rexmit))
                    break; /* beyond the flow/congestion window (congestion.h): an ACK sets the bit */
                if (!xport_rexmit_next(x, &seq, &cookie)) {
                    more = 0; /* none left now (or a probe waits for progress: an ACK sets the bit) */
                    break;
                }
                if (seg_build(p, cookie, 1, seq) == B_WAIT) {
                    x->rexmit = seq; /* not now: the cursor goes back, the next pass tries again */
                    break;
                }
                ncp_sat_inc(&seg_cnt.retransmits);
            }
            if (!more)
                pset_del(ncp_work.peer_rexmit, p);
        }
    }
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void seg_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    ncp_sat_add(&s->local_denied, seg_cnt.local_denied);
    ncp_sat_add(&s->retransmits, seg_cnt.retransmits);
    ncp_sat_add(&s->void_fails, seg_cnt.void_fails);
}
