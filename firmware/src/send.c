/*
 * send.c - the send path: doorbells and send queue entries, RDMA write segments, RDMA read
 * requests and read response segments (responder side), control frames (ACK/NACK), the TX frame
 * pool, retransmission and the transport timer.
 *
 * Per endpoint state machine (ep_state_name): CLOSED -> (EP_OPEN) IDLE -> (doorbell, entry
 * taken) ACTIVE -> (all segments sent) IDLE; ACTIVE -> (translation miss) PARKED -> (a fill
 * arrived, or the retry timer) ACTIVE. Other endpoints and connections are served while one is
 * parked.
 *
 * Data is never kept per packet in flight: a window slot holds a cookie (operation + segment),
 * and a retransmission rebuilds the packet by translating and DMAing the bytes from host memory
 * again (docs/firmware.md, "Retransmission").
 */
#include <string.h>

#include "ncp.h"
#include "ncp_rt.h"
#include "sqe.h"

const char *const ep_state_name[] = {"CLOSED", "IDLE", "ACTIVE", "PARKED"};

static uint8_t tx_frame[NCP_TX_N][NCP_FRAME_BYTES] __attribute__((section(".pktbuf"), aligned(16)));
static uint8_t ctl_frame[NCP_CTL_N][64] __attribute__((section(".pktbuf"), aligned(16)));
static uint16_t tx_len[NCP_TX_N];
static uint32_t tx_cyc[NCP_TX_N]; /* fast-path cycles of the frame's build (0: not a sample) */

/* Frames in MAC order: ids < NCP_TX_N are data frames, others control frames (id - NCP_TX_N). */
#define TXQ_N 32u
static uint8_t txq[TXQ_N];
static uint32_t txq_ready, txq_sub, txq_done; /* appended >= submitted >= freed */
static uint8_t tx_data_ready[NCP_TX_N];      /* data DMA'd in: may go to the MAC */
static uint32_t tx_credit;                   /* MAC submission slots known free (tx_feed) */

_Static_assert(NCP_TX_N + NCP_CTL_N <= TXQ_N && NCP_TX_N <= 32 && NCP_CTL_N <= 32, "frame pools");
_Static_assert(PKT_WORDS, "emit() writes header words in place: little-endian core");
_Static_assert(NCP_MTU >= 256, "segment numbers are 16-bit: MTU >= 256 for 16 MiB operations");

const struct xport_cfg ncp_xcfg = {
    .rto = NCP_RTO, .nack_delay = NCP_NACK_DELAY, .miss_hold = NCP_NACK ? NCP_MISS_HOLD : 0u, .backoff_max = 5,
    .max_retries = 8, .jitter_shift = 2};

/*
 * How long the responder of an initiator's read may show no progress on our connections (ops.c,
 * "Read timeout") before the read fails NIC_ST_UNREACHABLE: longer than the responder retries a
 * packet to us before giving up (xport_giveup_span, 72.2 ms), plus one largest timeout for the ACKs
 * in between: a responder that is alive has made progress by then, or given up and sent the lost
 * segments again as void packets, which fail the read (send_on_giveup). 78.6 ms at 200 MHz.
 */
uint32_t ncp_read_timeout(void)
{
    return xport_giveup_span(&ncp_xcfg) + (ncp_xcfg.rto << ncp_xcfg.backoff_max);
}

void send_init(void)
{
    ncp.tx_free = (1u << NCP_TX_N) - 1u;
    ncp.ctl_free = (1u << NCP_CTL_N) - 1u;
    ncp.tx_done = hal_mac_tx_done();
    txq_ready = txq_sub = txq_done = 0;
    tx_credit = 0;
}

/* Lowest set bit of a nonzero byte (RV32IM has no ctz instruction). */
static const uint8_t low_bit[256] = {
#define LB1(n) ((n) & 1 ? 0 : (n) & 2 ? 1 : (n) & 4 ? 2 : (n) & 8 ? 3 : (n) & 16 ? 4 : (n) & 32 ? 5 : (n) & 64 ? 6 : 7)
#define LB4(n) LB1(n), LB1((n) + 1), LB1((n) + 2), LB1((n) + 3)
#define LB16(n) LB4(n), LB4((n) + 4), LB4((n) + 8), LB4((n) + 12)
#define LB64(n) LB16(n), LB16((n) + 16), LB16((n) + 32), LB16((n) + 48)
    LB64(0), LB64(64), LB64(128), LB64(192)};

/* Index of the lowest set bit of a nonzero pool. */
static inline uint32_t frame_lowest(uint32_t p)
{
    uint32_t i = 0;
    while (!(p & 0xFFu)) {
        p >>= 8;
        i += 8;
    }
    return i + low_bit[p & 0xFFu];
}

static int frame_alloc(uint32_t *pool, uint32_t n)
{
    uint32_t p = *pool;
    if (!p)
        return -1;
    int i = 0;
    while (!(p & 0xFFu)) {
        p >>= 8;
        i += 8;
    }
    i += low_bit[p & 0xFFu];
    NCP_ASSERT(NCP_MOD_SEND, 1, (uint32_t)i < n);
    *pool &= ~(1u << i);
    return i;
}

/* Frees the frames the MAC has finished (one register read, only when frames are out). */
static void tx_collect(void)
{
    if (txq_done == txq_sub)
        return;
    uint16_t done = hal_mac_tx_done();

    while (ncp.tx_done != done && txq_done != txq_sub) {
        uint8_t id = txq[txq_done++ % TXQ_N];
        if (id < NCP_TX_N)
            ncp.tx_free |= 1u << id;
        else
            ncp.ctl_free |= 1u << (id - NCP_TX_N);
        ncp.tx_done++;
    }
}

/*
 * Feeds the MAC the next ready frames in order. MAC submission slots are counted in software:
 * tx_credit is a lower bound of the MAC's free slots (only we take them), re-read when used up.
 */
static inline __attribute__((always_inline)) void tx_feed_inline(void)
{
    while (txq_sub != txq_ready) {
        uint8_t id = txq[txq_sub % TXQ_N];
        if (id < NCP_TX_N) {
            if (!tx_data_ready[id])
                break; /* its data is still coming in: frames leave in window order */
        }
        if (!tx_credit && !(tx_credit = hal_mac_tx_free()))
            break;
        tx_credit--;
        if (id < NCP_TX_N) {
            tx_data_ready[id] = 0;
            hal_mac_tx_submit(tx_frame[id], tx_len[id]);
        } else {
            hal_mac_tx_submit(ctl_frame[id - NCP_TX_N], PKT_HDR_BYTES);
        }
        ncp_sat_inc(&ncp.c.s.tx_packets);
        txq_sub++;
    }
}

static void tx_feed(void)
{
    tx_feed_inline();
}

void tx_reap(void)
{
    tx_collect();
    tx_feed();
}

void tx_dma_done(uint32_t idx)
{
    NCP_PROF_START();
    tx_data_ready[idx] = 1;
    tx_feed_inline(); /* on the fast path: no call */
    NCP_PROF(5);
    if (tx_cyc[idx]) {
        fp_record(FP_TX, tx_cyc[idx] + ncp.fp_acc + (ncp_rdcycle() - ncp.fp_t0), tx_len[idx] - PKT_HDR_BYTES);
        tx_cyc[idx] = 0;
    }
}

/*
 * The host DMA of a data frame's payload failed (dmaq_complete: an error on any of its pieces), so
 * the frame holds whatever its buffer held before. Its sequence number is taken: it still goes, as
 * VOID without data (what emit() sends for a failed operation), and the operation fails
 * NIC_ST_HOST_ERROR: a write completes with it once its segments are acknowledged (the receiver
 * accepts the void segment and writes nothing); a read response is marked failed, so this and the
 * rest of its segments, resent or new, go void carrying the status, which fails the initiator's read.
 * Which operation: the frame's sequence number in the window (a retransmission whose original was
 * acknowledged meanwhile is no longer there: the data arrived, the void copy is a duplicate).
 */
void tx_dma_failed(uint32_t f)
{
    uint32_t *w = (uint32_t *)(void *)tx_frame[f];
    uint32_t type = w[PKT_W_TYPE] & 0xFFu, flags = (w[PKT_W_TYPE] >> 8) & 0xFFu, seq = w[PKT_W_SEQ];
    uint32_t peer = pkt_bswap16x2(w[PKT_W_NODES]) & 0xFFFFu;
    const struct xport_peer *x = &ncp.peer[peer].x;

    NCP_ASSERT(NCP_MOD_SEND, 3, f < NCP_TX_N && peer < NCP_MAX_PEERS);
    if (seq_le(x->una, seq) && seq_lt(seq, x->nxt)) {
        ncp_cookie_t ck = xport_cookie(x, seq);
        if (CK_KIND(ck) == CK_WRITE) {
            op_fail(op_by_cookie(ck), NIC_ST_HOST_ERROR);
        } else if (CK_KIND(ck) == CK_READRESP) {
            struct ncp_resp *r = &ncp.resp[CK_IDX(ck)];
            if (r->used && r->id == CK_ID(ck) && !r->failed) {
                r->failed = 1;
                r->fail_status = NIC_ST_HOST_ERROR;
            }
        }
    }
    if (type == PKT_READ_RESP)
        w[PKT_W_STATUS] = (uint32_t)(int32_t)NIC_ST_HOST_ERROR;
    w[PKT_W_TYPE] = pkt_w_type(type, flags | PKT_F_VOID, 0);
    tx_len[f] = (uint16_t)PKT_HDR_BYTES;
    tx_cyc[f] = 0; /* not a fast-path sample */
    tx_data_ready[f] = 1;
    tx_feed();
}

static void hdr_common(struct pkt_hdr *h, uint16_t peer, uint8_t type)
{
    struct ncp_peer *pp = &ncp.peer[peer];
    *h = (struct pkt_hdr){.dst = peer, .src = ncp.me, .type = type, .ack = pp->ack_val};
    if (pp->ack_val == pp->x.expected)
        pp->x.ack_pending = 0; /* piggy-backed */
}

void send_ctl(uint16_t peer, uint8_t type, uint16_t reason, uint32_t seq, uint32_t op, int32_t status)
{
    struct pkt_hdr h;
    int i = frame_alloc(&ncp.ctl_free, NCP_CTL_N);

    if (i < 0 || txq_ready - txq_done >= TXQ_N) {
        if (i >= 0)
            ncp.ctl_free |= 1u << i;
        ncp_sat_inc(&ncp.c.ctl_drops); /* the transport recovers a lost ACK or NACK */
        return;
    }
    hdr_common(&h, peer, type);
    h.token = ncp.peer[peer].tx_token;
    h.reason = reason;
    h.seq = seq;
    h.op = op;
    h.status = status;
    PKT_ENCODE(ctl_frame[i], &h);
    if (type == PKT_NACK)
        ncp_sat_inc(&ncp.c.s.nacks_sent);
    txq[txq_ready++ % TXQ_N] = (uint8_t)(NCP_TX_N + i);
    tx_reap();
}

void send_flush_acks(void)
{
    /* Only the peers in ncp_work.peer_ack (a frame came from them, or their last receive DMA
     * completed) may have an ACK to send now; afterwards none has: the ACK went out, or it waits
     * for DMAs whose completion (recv_dma_done) sets the bit again. */
    uint32_t m = ncp_work.peer_ack & ncp_peer_mask();

    ncp_work.peer_ack &= ~m;
    for (; m; m &= m - 1) {
        uint16_t p = (uint16_t)ncp_lowest_bit(m);
        struct ncp_peer *pp = &ncp.peer[p];
        if (pp->x.ack_pending && pp->rx_dma_pending == 0) {
            uint32_t t0 = ncp_rdcycle();
            pp->ack_val = pp->x.expected;
            send_ctl(p, PKT_ACK, 0, 0, 0, 0);
            pp->x.ack_pending = 0;
            fp_record(FP_ACK, ncp_rdcycle() - t0, 0);
        }
    }
}

/* ---- packet building: translate, then take a sequence number, then DMA + transmit ---- */

#define MAX_PIECES (NCP_MTU / NCP_PAGE + 2u)
struct piece {
    uint64_t pa;
    uint32_t len;
};

enum build_result { B_SENT, B_WAIT, B_DENIED };

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

/*
 * Builds and queues one sequenced packet for `cookie` to `peer`. New packets (retrans == 0) get
 * the next sequence number; retransmissions reuse `seq`. Returns B_WAIT when a translation
 * missed or a frame/DMA slot is not free (nothing changed), B_DENIED when the local memory may
 * not be used (the caller fails the operation).
 */
static enum build_result emit(uint16_t peer, ncp_cookie_t cookie, int retrans, uint32_t seq)
{
    struct ncp_peer *pp = &ncp.peer[peer];
    struct piece pc[MAX_PIECES];
    uint32_t npc = 0, len = 0, seg = CK_SEG(cookie), idx = CK_IDX(cookie), type = 0, flags = 0;
    enum build_result r = B_SENT;
    int void_data = 0;
    uint32_t t0 = ncp_rdcycle();

    NCP_PROF_START();
    if (!ncp.tx_free)
        tx_collect();
    if (!ncp.tx_free || txq_ready - txq_done >= TXQ_N || !dmaq_room(MAX_PIECES))
        return B_WAIT;
    /* The header goes straight into the lowest free frame, taken only if the packet is sent (a
     * packet that waits leaves a partly written header in a free frame: harmless). */
    uint32_t f = frame_lowest(ncp.tx_free);
    uint32_t *w = (uint32_t *)(void *)tx_frame[f];
    w[PKT_W_NODES] = pkt_w_nodes(peer, ncp.me);
    w[PKT_W_TOKEN] = pp->tx_token;
    NCP_PROF(0);
    switch (CK_KIND(cookie)) {
    case CK_WRITE: {
        struct ncp_op *o = &ncp.op[idx];
        uint32_t off = seg * NCP_MTU;
        int live = o->used == 1 && o->id == CK_ID(cookie);
        uint64_t roff = o->roff + off;
        len = o->len - off < NCP_MTU ? o->len - off : NCP_MTU;
        type = PKT_WRITE;
        w[PKT_W_OP] = CK_ID(cookie); /* the cookie's op, also when its slot was reused since */
        w[PKT_W_PID] = pkt_w_pid(o->rpid, 0);
        w[PKT_W_BUF] = o->rbuf;
        w[PKT_W_KEY] = o->rkey;
        w[PKT_W_OFF_LO] = (uint32_t)roff;
        w[PKT_W_OFF_HI] = (uint32_t)(roff >> 32);
        w[PKT_W_XLEN] = off;
        flags = off + len == o->len ? PKT_F_LAST : 0;
        if (!live || o->status != NIC_ST_OK)
            void_data = 1; /* failed or flushed meanwhile: keep the sequence, send no data */
        else
            r = translate(o->lpid, o->laddr + off, len, NIC_RIGHT_LOCAL_READ, pc, &npc);
        if (!live) { /* the slot is another op's now: none of its fields go out */
            len = 0;
            flags = 0;
            w[PKT_W_PID] = w[PKT_W_BUF] = w[PKT_W_KEY] = w[PKT_W_OFF_LO] = w[PKT_W_OFF_HI] = 0;
        }
        break;
    }
    case CK_READREQ: {
        struct ncp_op *o = &ncp.op[idx];
        int live = o->used == 1 && o->id == CK_ID(cookie);
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
        struct ncp_resp *rs = &ncp.resp[idx];
        uint32_t off = seg * NCP_MTU;
        len = rs->len - off < NCP_MTU ? rs->len - off : NCP_MTU;
        type = PKT_READ_RESP;
        w[PKT_W_OP] = rs->op;
        w[PKT_W_PID] = 0;
        w[PKT_W_BUF] = 0;
        w[PKT_W_KEY] = 0;
        w[PKT_W_OFF_LO] = off;
        w[PKT_W_OFF_HI] = 0;
        w[PKT_W_STATUS] = 0;
        flags = off + len == rs->len ? PKT_F_LAST : 0;
        if (!rs->used || rs->id != CK_ID(cookie)) {
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
        break;
    }
    default:
        NCP_ASSERT(NCP_MOD_SEND, 2, 0);
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
        ncp_sat_inc(&ncp.c.s.local_denied);
        if (CK_KIND(cookie) == CK_READRESP) {
            struct ncp_resp *rs = &ncp.resp[idx];
            if (!rs->failed) {
                rs->failed = 1;
                rs->fail_status = NIC_ST_RIGHTS;
            }
            w[PKT_W_STATUS] = (uint32_t)(int32_t)rs->fail_status;
        }
    }
    if (void_data && CK_KIND(cookie) != CK_READRESP) {
        /* The rule for every void write segment / read request of a live op, whatever made it
         * void: the op fails (a deregistered source: NIC_ST_BAD_HANDLE), so bytes acknowledged for
         * a void segment never complete it NIC_ST_OK. */
        struct ncp_op *o = op_by_cookie(cookie);
        if (o && o->status == NIC_ST_OK) {
            op_fail(o, NIC_ST_BAD_HANDLE);
            ncp_sat_inc(&ncp.c.s.void_fails);
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
            ncp_work.tick = 1;
            ncp_work.peer_tx |= 1u << peer;
        }
    }
    flags |= xport_tx_flags(&pp->x, seq);
    w[PKT_W_TYPE] = pkt_w_type(type, flags, len);
    w[PKT_W_SEQ] = seq;
    w[PKT_W_ACK] = pp->ack_val;
    if (pp->ack_val == pp->x.expected)
        pp->x.ack_pending = 0; /* piggy-backed */
    NCP_PROF(2);
    ncp.tx_free &= ~(1u << f);
    tx_len[f] = (uint16_t)(PKT_HDR_BYTES + len);
    txq[txq_ready++ % TXQ_N] = (uint8_t)f;
    NCP_PROF(3);
    if (npc == 0) {
        tx_data_ready[f] = 1;
        tx_feed();
    } else {
        uint32_t at = HAL_SRAM_OFF(tx_frame[f]) + PKT_HDR_BYTES;
        for (uint32_t i = 0; i < npc; i++) {
            dmaq_post(at, pc[i].pa, pc[i].len, 0, i + 1 == npc ? DK_TX : DK_NONE, f, 0);
            at += pc[i].len;
        }
        tx_cyc[f] = ncp_rdcycle() - t0;
    }
    NCP_PROF(4);
    return B_SENT;
}

/*
 * The common case of emit() in a straight line, without calls: a new write segment or read
 * response, operation live, its data in one page that translates (memo or cache hit, right
 * granted), a frame, queue room and a free DMA engine slot. Returns 1 when sent; 0 when any
 * condition fails, having changed nothing that matters (a header partly written into a free frame,
 * the VMH memo and LRU stamp of a page it found): emit() then does the same work the general way.
 */
static __attribute__((noinline)) int emit_fast(uint16_t peer, ncp_cookie_t cookie)
{
    uint32_t t0 = ncp_rdcycle();
    uint32_t idx = CK_IDX(cookie), off = CK_SEG(cookie) * NCP_MTU, len, type, last, pid, right;
    uint64_t va, pa;

    NCP_PROF_START();
    if (!ncp.tx_free || txq_ready - txq_done >= TXQ_N || !dmaq_room(MAX_PIECES) || !dmaq_direct())
        return 0;
    /* The header goes straight into the lowest free frame, taken only if the packet is sent (a
     * packet that falls back leaves a partly written header in a free frame: harmless). The frame
     * aliases no other state (restrict): the compiler stores each header word as soon as it is
     * known and keeps nothing live for it. */
    uint32_t f = frame_lowest(ncp.tx_free);
    uint32_t *restrict w = (uint32_t *)(void *)tx_frame[f];
    if (CK_KIND(cookie) == CK_WRITE) {
        const struct ncp_op *o = &ncp.op[idx];
        if (o->used != 1 || o->id != CK_ID(cookie) || o->status != NIC_ST_OK)
            return 0;
        uint64_t roff = o->roff + off;
        len = seg_bytes(o->len, off);
        last = off + len == o->len;
        type = PKT_WRITE;
        pid = o->lpid;
        va = o->laddr + off;
        right = NIC_RIGHT_LOCAL_READ;
        w[PKT_W_OP] = o->id;
        w[PKT_W_PID] = pkt_w_pid(o->rpid, 0);
        w[PKT_W_BUF] = o->rbuf;
        w[PKT_W_KEY] = o->rkey;
        w[PKT_W_OFF_LO] = (uint32_t)roff;
        w[PKT_W_OFF_HI] = (uint32_t)(roff >> 32);
        w[PKT_W_XLEN] = off;
    } else if (CK_KIND(cookie) == CK_READRESP) {
        const struct ncp_resp *rs = &ncp.resp[idx];
        if (!rs->used || rs->id != CK_ID(cookie) || rs->failed)
            return 0;
        len = seg_bytes(rs->len, off);
        last = off + len == rs->len;
        type = PKT_READ_RESP;
        pid = rs->pid;
        va = rs->va + off;
        right = NIC_RIGHT_REMOTE_READ;
        w[PKT_W_OP] = rs->op;
        w[PKT_W_PID] = 0;
        w[PKT_W_BUF] = 0;
        w[PKT_W_KEY] = 0;
        w[PKT_W_OFF_LO] = off;
        w[PKT_W_OFF_HI] = 0;
        w[PKT_W_STATUS] = 0;
    } else {
        return 0;
    }
    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE || !xlate_vmh_hit((uint16_t)pid, va, right, LKC_PATH_SEND, &pa, 1))
        return 0;
    /* committed: from here on as emit(). The peer's fields are read before xport_tx_push stores
     * into its window (the compiler would reload them after that store). */
    struct ncp_peer *pp = &ncp.peer[peer];
    __asm__("" : "+r"(pp)); /* opaque: kept in a register, not recomputed (a multiply) per access */
    struct xport_peer *x = &pp->x;
    uint32_t ack = pp->ack_val, una = x->una, piggy = ack == x->expected, w_nodes = pp->w_nodes;
    uint32_t token = pp->tx_token;
    uint32_t flags = (last ? PKT_F_LAST : 0u) | xport_tx_flags(x, x->nxt); /* x->nxt: the seq pushed */
    uint32_t seq = xport_tx_push(x, &ncp_xcfg, cookie, ncp.now);
    w[PKT_W_NODES] = w_nodes;
    w[PKT_W_TYPE] = pkt_w_type(type, flags, len);
    w[PKT_W_SEQ] = seq;
    w[PKT_W_ACK] = ack;
    w[PKT_W_TOKEN] = token;
    if (piggy)
        x->ack_pending = 0; /* piggy-backed */
    if (seq == una) { /* the window was empty: the push armed the deadline */
        ncp_work.tick = 1;
        ncp_work.peer_tx |= 1u << peer;
    }
    ncp.tx_free &= ~(1u << f);
    tx_len[f] = (uint16_t)(PKT_HDR_BYTES + len);
    txq[txq_ready++ % TXQ_N] = (uint8_t)f;
    dmaq_post_direct(HAL_SRAM_OFF(tx_frame[f]) + PKT_HDR_BYTES, pa, len, 0, DK_TX, f, 0);
    tx_cyc[f] = ncp_rdcycle() - t0;
    NCP_PROF(15);
    return 1;
}

/* A new packet: the fast path, else the general one. */
static enum build_result emit_new(uint16_t peer, ncp_cookie_t cookie)
{
    if (!ncp.tx_free)
        tx_collect(); /* as emit() does first */
    if (NCP_FASTPATH && emit_fast(peer, cookie))
        return B_SENT;
    return emit(peer, cookie, 0, 0);
}

/* ---- send queue entries ---- */

void send_on_doorbell(uint32_t epi, uint32_t off, uint32_t data)
{
    struct ncp_ep *ep = epi < NCP_EPS ? &ncp.ep[epi] : NULL;

    if (!ep || ep->state == EP_CLOSED || off != NIC_DB_SQ_PI || data - ep->sq_done > NCP_SQ_N ||
        seq_lt(data, ep->sq_pi) || ncp.shutdown) {
        ncp_sat_inc(&ncp.c.s.doorbell_bad); /* never trusted beyond this process's own queue */
        return;
    }
    ep->sq_pi = data;
    ncp_work.ep_ready |= 1u << epi;
}

/* The entry's rules and verdict: firmware/lib/sqe.h (host-native, unit-tested and fuzzed). */
static int32_t validate(const struct nic_sq_entry *e, uint16_t *rnode)
{
    const struct sqe_limits lim = {.me = ncp.me, .nodes = ncp.nodes, .peers = NCP_MAX_PEERS};
    int32_t st = sqe_validate(e, &lim, NULL);

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
static enum xl_result check_local(uint16_t pid, const struct nic_sq_entry *e, uint64_t laddr, int32_t *st)
{
    const struct nic_cbh_entry *b = NULL;
    enum xl_result r;

    *st = NIC_ST_OK;
    if (e->lbuf > PKT_MAX_BUF_ID) {
        *st = NIC_ST_BAD_HANDLE;
        return XL_OK;
    }
    r = xlate_cbh(pid, e->lbuf, &b, LKC_PATH_SEND);
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
    struct ncp_ep *ep = &ncp.ep[epi];
    struct nic_sq_entry e;
    uint16_t rnode = 0;
    const volatile struct nic_sq_entry *slot = (const volatile struct nic_sq_entry *)HAL_SRAM_PTR(
        NIC_SRAM_SENDQ_OFFSET + epi * NIC_SENDQ_STRIDE + (ep->sq_ci % NCP_SQ_N) * sizeof e);
    struct ncp_op *o;
    int32_t st;

    memcpy(&e, (const void *)slot, sizeof e); /* one copy: the process may rewrite the slot */
    uint64_t laddr = (uint64_t)e.laddr_hi << 32 | e.laddr_lo;
    st = validate(&e, &rnode);
    if (st == NIC_ST_OK) {
        enum xl_result r = check_local(ep->pid, &e, laddr, &st);
        if (r != XL_OK)
            return 2;
        if (st != NIC_ST_OK)
            ncp_sat_inc(&ncp.c.s.local_refused);
    }
    if (!(o = op_alloc()))
        return 1; /* all operations in use: the entry stays queued */
    o->ep = epi;
    o->req = ep->sq_ci;
    ep->sq_ci++;
    o->kind = e.op;
    o->flags = e.flags;
    o->wr_id = (uint64_t)e.wr_id_hi << 32 | e.wr_id_lo;
    o->lpid = ep->pid;
    if (st != NIC_ST_OK) {
        if (st == NIC_ST_BAD_DESC)
            ncp_sat_inc(&ncp.c.bad_desc);
        op_finish_early(o, st);
        return 0;
    }
    o->rnode = rnode;
    o->laddr = laddr;
    o->roff = (uint64_t)e.roff_hi << 32 | e.roff_lo;
    o->len = e.len;
    o->rbuf = e.rbuf;
    o->rkey = e.rkey;
    o->rpid = e.rpid;
    ep->cur = (int16_t)(o - ncp.op);
    ep->state = EP_ACTIVE;
    return 0;
}

/* After serve_ep: the endpoint's bits in struct ncp_work from its state. */
static void ep_track(uint8_t e)
{
    const struct ncp_ep *ep = &ncp.ep[e];
    uint32_t b = 1u << e;

    ncp_work.ep_ready &= ~b;
    ncp_work.ep_parked &= ~b;
    if (ep->state == EP_PARKED)
        ncp_work.ep_parked |= b;
    else if (ep->state != EP_CLOSED && (ep->state != EP_IDLE || ep->cur >= 0 || ep->sq_ci != ep->sq_pi))
        ncp_work.ep_ready |= b; /* not idle: served again next pass */
}

/* Sends what it can of the endpoint's current operation. Returns 1 if it made progress. */
static int serve_ep(uint8_t epi)
{
    struct ncp_ep *ep = &ncp.ep[epi];
    int progress = 0;

    if (ep->state == EP_CLOSED)
        return 0;
    if (ep->state == EP_PARKED) {
        if (!ncp.parked_wake)
            return 0;
        ep->state = EP_ACTIVE;
    }
    for (unsigned budget = 0; budget < 4; budget++) {
        if (ep->cur < 0) {
            if (ep->sq_ci == ep->sq_pi) {
                ep->state = EP_IDLE;
                return progress;
            }
            int r = take_entry(epi);
            if (r == 2) {
                ep->state = EP_PARKED; /* its local buffer's CBH line missed: waits for the fill */
                ncp_work.tick = 1;
                return progress;
            }
            if (r == 0)
                progress = 1;
            if (ep->cur < 0)
                return progress; /* failed at once (retired) or no operation free: a malformed
                                    entry ends the endpoint's turn, so a stream of them costs the
                                    others one entry per pass, not four (issue 18, item 7) */
        }
        struct ncp_op *o = &ncp.op[ep->cur];
        struct ncp_peer *pp = &ncp.peer[o->rnode];
        if (o->status != NIC_ST_OK) {
            /* failed before all segments were sent (protection NACK, giveup): skip the rest */
            uint32_t rest = o->kind == NIC_OP_RDMA_WRITE ? o->len - o->sent : 0;
            o->sent = o->len;
            ep->cur = -1;
            if (rest)
                op_progress(o, rest);
            continue;
        }
        if (!xport_has_room(&pp->x))
            return progress;
        ncp_cookie_t cookie;
        if (o->kind == NIC_OP_RDMA_READ)
            cookie = CK_MAKE(CK_READREQ, o->id, 0);
        else
            cookie = CK_MAKE(CK_WRITE, o->id, o->sent / NCP_MTU);
        enum build_result r = emit_new(o->rnode, cookie);
        if (r == B_WAIT) {
            if (!ncp.tx_free || !dmaq_room(MAX_PIECES))
                return progress; /* resources: retried when frames/DMA free up */
            ep->state = EP_PARKED; /* translation miss: the request waits for its fill */
            ncp_work.tick = 1;     /* send_tick arms the retry timer */
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

/* ---- read responses (responder side) ---- */

int resp_start(uint16_t peer, uint16_t pid, uint32_t op, uint64_t va, uint32_t len)
{
    if (ncp.rreq_head == ncp.rreq_tail && resp_alloc(peer, pid, op, va, len) != NCP_RESP)
        return 1;
    if (ncp.rreq_tail - ncp.rreq_head >= NCP_RREQ_N)
        return 0;
    ncp.rreq[ncp.rreq_tail++ % NCP_RREQ_N] = (struct ncp_rreq){peer, pid, op, len, va};
    ncp_sat_inc(&ncp.c.resp_queued);
    return 1;
}

/* A response slot was freed: the oldest queued request takes it. */
static void resp_next(void)
{
    if (ncp.rreq_head != ncp.rreq_tail) {
        const struct ncp_rreq *q = &ncp.rreq[ncp.rreq_head++ % NCP_RREQ_N];
        resp_alloc(q->peer, q->pid, q->op, q->va, q->len);
    }
}

uint32_t resp_alloc(uint16_t peer, uint16_t pid, uint32_t op, uint64_t va, uint32_t len)
{
    for (uint32_t i = 0; i < NCP_RESP; i++) {
        struct ncp_resp *r = &ncp.resp[i];
        if (!r->used) {
            r->used = 1;
            r->failed = 0;
            r->id = i | ++ncp.resp_gen << NCP_ID_SHIFT; /* ncp.h: ids */
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

static void serve_resp(void)
{
    for (uint32_t m = ncp_work.resp; m; m &= m - 1) {
        uint32_t i = ncp_lowest_bit(m);
        struct ncp_resp *r = &ncp.resp[i];
        for (unsigned budget = 0; budget < 4 && r->used && r->sent < r->len; budget++) {
            if (!xport_has_room(&ncp.peer[r->peer].x))
                break;
            ncp_cookie_t ck = CK_MAKE(CK_READRESP, r->id, r->sent / NCP_MTU);
            enum build_result b = emit_new(r->peer, ck);
            if (b == B_WAIT)
                break;
            if (b == B_DENIED) {
                /* the pages are not readable: the rest goes out as void segments, which fail the
                 * initiator's operation */
                r->failed = 1;
                r->fail_status = NIC_ST_RIGHTS;
                ncp_sat_inc(&ncp.c.s.local_denied);
                if (emit(r->peer, ck, 0, 0) != B_SENT)
                    break;
            }
            r->sent += r->len - r->sent < NCP_MTU ? r->len - r->sent : NCP_MTU;
        }
        if (!r->used || r->sent >= r->len)
            ncp_work.resp &= ~(1u << i); /* all segments sent (or freed) */
    }
}

/* ---- acknowledgements and give-ups (called from recv.c / the timer) ---- */

static uint32_t seg_len(uint32_t total, uint32_t seg)
{
    uint32_t off = seg * NCP_MTU;
    return total - off < NCP_MTU ? total - off : NCP_MTU;
}

void send_on_acked(uint32_t peer, ncp_cookie_t cookie)
{
    /* tests in this order, not a switch: a write segment (the common case) pays one compare */
    (void)peer;
    if (CK_KIND(cookie) == CK_WRITE) {
        struct ncp_op *o = &ncp.op[CK_IDX(cookie)];
        if (o->used == 1 && o->id == CK_ID(cookie) && o->kind == NIC_OP_RDMA_WRITE)
            op_progress(o, seg_len(o->len, CK_SEG(cookie)));
    } else if (CK_KIND(cookie) == CK_READRESP) {
        struct ncp_resp *r = &ncp.resp[CK_IDX(cookie)];
        if (r->used && r->id == CK_ID(cookie)) {
            r->done += seg_len(r->len, CK_SEG(cookie));
            if (r->done >= r->len) {
                r->used = 0;
                resp_next();
            }
        }
    } else if (CK_KIND(cookie) == CK_READREQ) {
        /* the responses complete the read; until then the read timer watches it */
        struct ncp_op *o = op_by_cookie(cookie);
        if (o && o->kind == NIC_OP_RDMA_READ)
            op_read_watch(o);
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
_Static_assert(NCP_RESP <= 16, "send_on_giveup marks");
static void send_on_giveup(uint32_t peer, ncp_cookie_t cookie, uint32_t *marks)
{
    switch (CK_KIND(cookie)) {
    case CK_WRITE:
    case CK_READREQ: {
        struct ncp_op *o = op_by_cookie(cookie);
        if (o) {
            op_fail(o, NIC_ST_UNREACHABLE);
            op_progress(o, CK_KIND(cookie) == CK_WRITE ? seg_len(o->len, CK_SEG(cookie)) : o->len - o->done);
        }
        break;
    }
    case CK_READRESP: {
        uint32_t i = CK_IDX(cookie);
        struct ncp_resp *r = &ncp.resp[i];
        if (r->used && r->id == CK_ID(cookie) && !(*marks & 1u << i)) {
            *marks |= 1u << i; /* its first lost segment: the others follow it in the window */
            if (r->rewinds < NCP_RESP_REWINDS) {
                r->rewinds++;
                if (!r->failed) {
                    r->failed = 1;
                    r->fail_status = NIC_ST_UNREACHABLE;
                }
                r->sent = CK_SEG(cookie) * NCP_MTU;
                ncp_work.resp |= 1u << i;
                *marks |= 1u << (16 + i);
            }
        }
        if (!(*marks & 1u << (16 + i)))
            send_on_acked(peer, cookie); /* not sent again: counted as done */
        break;
    }
    default:
        break;
    }
}

/* ---- timer ---- */

void send_tick(void)
{
    uint32_t next = 0;
    int armed = 0;
    struct ncp_work *w = &ncp_work;

    if (!ncp_tick_due())
        return; /* no deadline passed, none moved earlier: nothing to tick */
    w->tick = 0;
    for (uint32_t m = w->peer_tx & ncp_peer_mask(); m; m &= m - 1) { /* the others: una == nxt */
        uint16_t p = (uint16_t)ncp_lowest_bit(m);
        struct xport_peer *x = &ncp.peer[p].x;
        uint32_t timeouts = x->st.timeouts, stalls = x->st.stall_giveups;
        enum xport_tick_action t = xport_tick(x, &ncp_xcfg, ncp.now);
        if (x->st.timeouts != timeouts) /* not a NACK retry delay ending */
            ncp_sat_inc(&ncp.c.s.timeouts);
        if (t == XP_TICK_GIVEUP) {
            uint32_t marks = 0;
            if (x->st.stall_giveups != stalls)
                ncp_sat_inc(&ncp.c.s.stall_giveups); /* the no-progress bound, not the retry limit */
            for (uint32_t s = x->una; s != x->nxt; s++)
                send_on_giveup(p, xport_cookie(x, s), &marks);
            xport_giveup(x);
            ncp_sat_inc(&ncp.c.giveups);
        }
        if (x->una == x->nxt)
            w->peer_tx &= ~(1u << p); /* nothing in flight */
        else if (!armed || seq_lt(x->deadline, next)) {
            next = x->deadline;
            armed = 1;
        }
    }
    for (uint32_t m = w->ep_parked; m && !armed; m &= m - 1) {
        uint32_t e = ncp_lowest_bit(m);
        if (ncp.ep[e].state == EP_PARKED) { /* a lost fill must not strand a request */
            next = ncp.now + NCP_RTO;
            armed = 1;
        }
    }
    /* initiator reads waiting for responses (ops.c "Read timeout"): scanned only when the
     * earliest may have timed out */
    if (w->reads && seq_le(w->read_at, ncp.now))
        ops_read_check();
    if (w->reads && (!armed || seq_lt(w->read_at, next))) {
        next = w->read_at;
        armed = 1;
    }
    /* The timer may fire early (a deadline that moved later: this scan runs again and re-arms it),
     * never late: reprogrammed when the earliest deadline moved earlier or the timer went off. */
    if (armed) {
        if (!w->timer_on || seq_lt(next, w->timer_at) || seq_le(w->timer_at, ncp.now)) {
            hal_timer_at(next);
            w->timer_at = next;
            w->timer_on = 1;
        }
    } else if (w->timer_on) {
        hal_timer_off();
        w->timer_on = 0;
    }
}

void send_poll(void)
{
    uint32_t seq;
    ncp_cookie_t cookie;

    /* tx_reap: called by the loop when the MAC finished frames */
    /* resends first: they hold the window (only peers with packets in flight can have any) */
    for (uint32_t m = ncp_work.peer_tx & ncp_peer_mask(); m; m &= m - 1) {
        uint16_t p = (uint16_t)ncp_lowest_bit(m);
        struct xport_peer *x = &ncp.peer[p].x;
        for (unsigned budget = 0; budget < 8 && xport_rexmit_next(x, &seq, &cookie); budget++) {
            if (emit(p, cookie, 1, seq) == B_WAIT) {
                x->rexmit = seq; /* not now: the cursor goes back */
                break;
            }
            ncp_sat_inc(&ncp.c.s.retransmits);
        }
    }
    if (ncp_work.resp)
        serve_resp();
    /* endpoints with work (struct ncp_work), and the parked ones when a fill arrived; for the
     * others serve_ep would change nothing */
    uint32_t m = ncp_work.ep_ready | (ncp.parked_wake ? ncp_work.ep_parked : 0u);
    for (m &= ~1u; m; m &= m - 1) {
        uint8_t e = (uint8_t)ncp_lowest_bit(m);
        serve_ep(e);
        ep_track(e);
    }
    ncp.parked_wake = 0;
}
