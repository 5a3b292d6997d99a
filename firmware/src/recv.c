/*
 * recv.c - the receive path: frames from the MAC RX ring are validated (pkt_parse), their
 * piggy-backed ACK processed, then sequenced packets go through the transport (duplicates
 * re-ACKed, gaps NACKed) and the per-type state machines:
 *
 *   WRITE      PCH + CBH lookups, protection (owner, key, rights, bounds), VMH per page,
 *              DMA SRAM -> host, ACK when the data is in host memory
 *   READ_REQ   PCH + CBH lookups and checks, a response slot; send.c streams the data back
 *   READ_RESP  the initiator's op, VMH per page with the local write right, DMA, op progress
 *   ACK/NACK   transport; NACK protection/malformed fail the operation
 *
 * Translation miss on this path: the packet is dropped (no NIC buffering), counted in
 * drops_miss, a miss request posted, and (NCP_NACK) the sender told "translation miss, wait for
 * my RESUME" (sent at the next fill). A protection violation writes nothing, is counted, does not
 * consume the sequence number and NACKs with the status the initiator reports (which resends the
 * packet as VOID). RX buffers return to the MAC in ring order once
 * their DMA (if any) completed.
 */
#include <string.h>

#include "ncp.h"
#include "ncp_rt.h"

#define RX_N (1u << NCP_RX_LOG2)
static volatile uint32_t rx_ring[RX_N][NIC_RXDESC_WORDS] __attribute__((section(".pktbuf"), aligned(16)));
static uint8_t rx_buf[RX_N][NCP_FRAME_BYTES] __attribute__((section(".pktbuf"), aligned(16)));
static struct {
    uint32_t op, len, seq;
    uint32_t cyc; /* fast-path cycles of the packet's handling up to its DMA queued */
} rx_meta[RX_N];

/*
 * Connection secrets (docs/wire-protocol.md "Threat model"): from the 128-bit key `k` (the fabric
 * secret INIT gives every honest node; zero at boot), per ordered pair (a -> b) an initial
 * sequence number and a token, PRF(k, purpose | a | b); both ends compute both directions, so the
 * receiver starts synchronised at the sender's ISN and checks the sender's token on every frame.
 * The generations of operation and response ids start at random values too. Resets every
 * connection: called at boot and by INIT (before any traffic).
 */
enum { PRF_ISN = 1, PRF_TOKEN = 2, PRF_GEN = 3 };
static uint64_t prf(uint32_t purpose, uint32_t a, uint32_t b)
{
    return xport_prf(ncp.secret, (uint64_t)purpose << 48 | (uint64_t)(a & 0xFFFFu) << 16 | (b & 0xFFFFu));
}

void ncp_secure(const uint32_t k[4])
{
    uint16_t me = ncp.me;

    memcpy(ncp.secret, k, sizeof ncp.secret);
    for (uint32_t p = 0; p < NCP_MAX_PEERS; p++) {
        struct ncp_peer *pp = &ncp.peer[p];
        uint32_t rx_isn = (uint32_t)prf(PRF_ISN, p, me);
        xport_init(&pp->x, (uint32_t)prf(PRF_ISN, me, p), rx_isn);
        pp->ack_val = rx_isn;
        pp->tx_token = (uint32_t)prf(PRF_TOKEN, me, p);
        pp->rx_token = (uint32_t)prf(PRF_TOKEN, p, me);
        pp->w_nodes = pkt_w_nodes((uint16_t)p, me);
        pp->rx_dma_pending = 0;
        pp->rx_err = 0;
    }
    /* a different start per boot when the secret differs (the host's entropy): an op id of an
     * earlier incarnation of this node is unlikely to name a live op */
    ncp.op_gen = (uint32_t)prf(PRF_GEN, me, 0);
    ncp.resp_gen = (uint32_t)prf(PRF_GEN, me, 1);
}

void recv_init(void)
{
    hal_mac_rx_init(&rx_ring[0][0], NCP_RX_LOG2, &rx_buf[0][0], NCP_FRAME_BYTES);
    ncp.rx_next = ncp.rx_tail = hal_mac_rx_head();
}

static void drop_bad(enum pkt_err e)
{
    ncp_sat_inc(&ncp.c.s.drops_bad);
    ncp_sat_inc(&ncp.c.drop_reason[e]);
}

/* The packet missed a translation: drop it, and tell the sender unless seed-faithful. */
static void drop_miss(uint16_t peer, const struct pkt_hdr *h)
{
    ncp_sat_inc(&ncp.c.s.drops_miss);
    if (NCP_NACK) {
        send_ctl(peer, PKT_NACK, PKT_NACK_MISS, h->seq, h->op, 0);
        ncp.resume_peers |= 1u << peer; /* told to wait: RESUME at the next fill */
    }
}

/*
 * A fill arrived (xlate_fill): every peer told MISS since the last fill may resend now, instead of
 * waiting out its hold (NCP_MISS_HOLD). One RESUME per peer per fill, whichever line the fill
 * was for: a peer whose packet still misses gets another MISS (and waits for the next fill); a
 * lost RESUME costs the hold.
 */
void recv_send_resumes(void)
{
    uint32_t m = ncp.resume_peers;

    ncp.resume_peers = 0;
    ncp_work.resume = 0;
    for (; m; m &= m - 1) {
        uint16_t p = (uint16_t)ncp_lowest_bit(m);
        send_ctl(p, PKT_NACK, PKT_NACK_RESUME, ncp.peer[p].x.expected, 0, 0);
        ncp_sat_inc(&ncp.c.resumes_sent);
    }
}

/*
 * A protection violation: nothing is written and the sequence number is NOT consumed, so the
 * refusal is as reliable as data: the initiator fails the operation on this NACK and resends the
 * packet without data (PKT_F_VOID), which is accepted; if the NACK is lost, the resent original is
 * refused again. (Consuming it here would let a lost NACK turn into a success at the initiator:
 * the cumulative ACK covering the packet cannot say it was refused.)
 */
static void protection(uint16_t peer, const struct pkt_hdr *h, int32_t status)
{
    ncp_sat_inc(&ncp.c.s.protection_errors); /* = PROTECTION NACKs sent (docs: "Counters") */
    send_ctl(peer, PKT_NACK, PKT_NACK_PROTECTION, h->seq, h->op, status);
}

/* Checks of a remote access against the target buffer; returns NIC_ST_OK or the violation. */
static inline __attribute__((always_inline)) int32_t check_cbh(const struct pkt_hdr *h, uint32_t len, uint32_t right, enum xl_result *res,
                         uint64_t *va)
{
    const struct nic_cbh_entry *e = NULL;

    *res = xlate_target(h->pid, h->buf, &e, LKC_PATH_RECV);
    if (*res == XL_MISS)
        return NIC_ST_OK;
    if (*res == XL_DENIED || e->owner_pid != h->pid)
        return NIC_ST_BAD_HANDLE;
    if (e->key != h->key)
        return NIC_ST_KEY;
    if (!(e->flags & right))
        return NIC_ST_RIGHTS;
    uint64_t blen = (uint64_t)e->len_hi << 32 | e->len_lo;
    if (h->off > blen || len > blen - h->off)
        return NIC_ST_BOUNDS;
    *va = ((uint64_t)e->va_hi << 32 | e->va_lo) + h->off;
    return NIC_ST_OK;
}

#define MAX_PIECES (NCP_MTU / NCP_PAGE + 2u)

/*
 * Translates [va, va + len) of pid for writing into host memory and posts the DMAs from `src`;
 * the last one carries the continuation. Nothing is posted unless every page translates.
 */
static __attribute__((noinline)) enum xl_result write_pages(uint16_t pid, uint64_t va, uint32_t len, uint32_t right,
                                                            const uint8_t *src, uint8_t kind, uint32_t a, uint16_t b)
{
    uint64_t pa[MAX_PIECES];
    uint32_t plen[MAX_PIECES], n = 0;
    uint64_t v = va;

    for (uint32_t left = len; left;) {
        uint32_t chunk = NCP_PAGE - (uint32_t)(v & (NCP_PAGE - 1u));
        if (chunk > left)
            chunk = left;
        enum xl_result r = xlate_vmh(pid, v, right, LKC_PATH_RECV, &pa[n]);
        if (r != XL_OK)
            return r;
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

static inline enum xl_result write_host(uint16_t pid, uint64_t va, uint32_t len, uint32_t right, const uint8_t *src,
                                        uint8_t kind, uint32_t a, uint16_t b)
{
    uint64_t pa;

    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE)
        return write_pages(pid, va, len, right, src, kind, a, b);
    /* one page: the aligned MTU case */
    enum xl_result r = xlate_vmh(pid, va, right, LKC_PATH_RECV, &pa);
    if (r != XL_OK)
        return r;
    if (!dmaq_room(1))
        return XL_WAIT;
    dmaq_post(HAL_SRAM_OFF(src), pa, len, 1, kind, a, b);
    return XL_OK;
}

/* Returns 1 when the RX buffer is now owned by a DMA (released by recv_dma_done). */
static int on_write(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx)
{
    struct ncp_peer *pp = &ncp.peer[peer];
    enum xl_result res;
    uint64_t va = 0;

    if (h->flags & PKT_F_VOID) {
        xport_rx_accept(&pp->x);
        return 0;
    }
    int32_t st = check_cbh(h, h->len, NIC_RIGHT_REMOTE_WRITE, &res, &va);
    NCP_PROF(9);
    if (res == XL_MISS) {
        drop_miss(peer, h);
        return 0;
    }
    if (st != NIC_ST_OK) {
        protection(peer, h, st);
        return 0;
    }
    rx_meta[ridx].seq = h->seq;
    res = write_host(h->pid, va, h->len, NIC_RIGHT_REMOTE_WRITE, payload, DK_RX, ridx, peer);
    if (res == XL_MISS) {
        drop_miss(peer, h);
        return 0;
    }
    if (res == XL_WAIT) {
        send_ctl(peer, PKT_NACK, PKT_NACK_BUSY, h->seq, h->op, 0);
        return 0;
    }
    if (res == XL_DENIED) {
        protection(peer, h, NIC_ST_RIGHTS);
        return 0;
    }
    NCP_PROF(10);
    pp->rx_dma_pending++;
    xport_rx_accept(&pp->x);
    NCP_PROF(12);
    return 1;
}

static void on_read_req(uint16_t peer, const struct pkt_hdr *h)
{
    enum xl_result res;
    uint64_t va = 0;

    if (h->flags & PKT_F_VOID) { /* the initiator failed the read (refused before): no response */
        xport_rx_accept(&ncp.peer[peer].x);
        return;
    }
    int32_t st = check_cbh(h, h->xlen, NIC_RIGHT_REMOTE_READ, &res, &va);

    if (res == XL_MISS) {
        drop_miss(peer, h);
        return;
    }
    if (st != NIC_ST_OK) {
        protection(peer, h, st);
        return;
    }
    if (!resp_start(peer, h->pid, h->op, va, h->xlen)) {
        ncp_sat_inc(&ncp.c.resp_full);
        send_ctl(peer, PKT_NACK, PKT_NACK_BUSY, h->seq, h->op, 0);
        return;
    }
    xport_rx_accept(&ncp.peer[peer].x);
}

/* The status a void READ_RESP fails the read with: the responder's reason when it is one a void
 * response carries for it (its host DMA failed; its connection to us gave up and lost segments of
 * the response), else (its pages not readable, the response gone; 0 from an NCP that did not fill
 * the field; any other value) a rights error, as before the field was used. */
static int32_t void_resp_status(int32_t st)
{
    return st == NIC_ST_HOST_ERROR || st == NIC_ST_UNREACHABLE ? st : NIC_ST_RIGHTS;
}

static int on_read_resp(uint16_t peer, const struct pkt_hdr *h, const uint8_t *payload, uint32_t ridx)
{
    struct ncp_peer *pp = &ncp.peer[peer];
    struct ncp_op *o = op_by_id(h->op);
    uint32_t off = (uint32_t)h->off; /* < NIC_MAX_XFER: pkt_parse */

    /* The response must match its request: a live read of ours, to this peer, at a segment
     * boundary inside it, with that segment's length (a void one: no data). */
    if (!o || o->kind != NIC_OP_RDMA_READ || o->rnode != peer || off % NCP_MTU != 0 || off >= o->len ||
        ((h->flags & PKT_F_VOID) ? h->len != 0 : h->len != seg_bytes(o->len, off))) {
        /* the operation is gone (flushed, failed, timed out: ops_read_check), or this is not its
         * response: the sequence number is consumed, the data discarded */
        xport_rx_accept(&pp->x);
        ncp_sat_inc(&ncp.c.s.stale_resps);
        return 0;
    }
    if ((h->flags & PKT_F_VOID) || o->status != NIC_ST_OK) {
        xport_rx_accept(&pp->x);
        if (!(h->flags & PKT_F_VOID))
            ncp_sat_inc(&ncp.c.s.stale_resps); /* data for a read that failed already: dropped */
        if (h->flags & PKT_F_VOID)
            op_fail(o, void_resp_status(h->status));
        op_progress(o, (h->flags & PKT_F_VOID) ? seg_bytes(o->len, (uint32_t)h->off) : h->len);
        return 0;
    }
    rx_meta[ridx].op = op_id(o);
    rx_meta[ridx].len = h->len;
    rx_meta[ridx].seq = h->seq;
    enum xl_result res = write_host(o->lpid, o->laddr + h->off, h->len, NIC_RIGHT_LOCAL_WRITE, payload, DK_RXRESP,
                                    ridx, peer);
    if (res == XL_MISS) {
        drop_miss(peer, h);
        return 0;
    }
    if (res == XL_WAIT) {
        send_ctl(peer, PKT_NACK, PKT_NACK_BUSY, h->seq, h->op, 0);
        return 0;
    }
    xport_rx_accept(&pp->x);
    if (res == XL_DENIED) {
        ncp_sat_inc(&ncp.c.s.local_denied);
        op_fail(o, NIC_ST_RIGHTS);
        op_progress(o, h->len);
        return 0;
    }
    pp->rx_dma_pending++;
    return 1;
}

static void on_ack_fields(uint16_t peer, const struct pkt_hdr *h)
{
    struct xport_peer *x = &ncp.peer[peer].x;
    uint32_t first, n;

    if (h->type != PKT_NACK && !seq_lt(x->una, h->ack))
        return; /* old or repeated: nothing new acknowledged (xport_on_ack would change nothing) */
    ncp_work.tick = 1; /* the deadline may move (re-armed, NACK retry delay, window empty) */
    if (h->type == PKT_NACK && h->reason == PKT_NACK_GAP) {
        n = xport_on_nack_gap(x, &ncp_xcfg, h->ack, ncp.now, &first);
    } else {
        n = xport_on_ack(x, &ncp_xcfg, h->ack, ncp.now, &first);
    }
    for (uint32_t i = 0; i < n; i++)
        send_on_acked(peer, xport_cookie(x, first + i));
    if (h->type != PKT_NACK)
        return;
    ncp_sat_inc(&ncp.c.s.nacks_received);
    switch (h->reason) {
    case PKT_NACK_MISS:
        if (!xport_on_nack_retry(x, &ncp_xcfg, h->seq, ncp.now,
                                 ncp_xcfg.miss_hold ? ncp_xcfg.miss_hold : ncp_xcfg.nack_delay))
            ncp_sat_inc(&ncp.c.s.nacks_ignored);
        break;
    case PKT_NACK_BUSY:
        if (!xport_on_nack_retry(x, &ncp_xcfg, h->seq, ncp.now, ncp_xcfg.nack_delay))
            ncp_sat_inc(&ncp.c.s.nacks_ignored);
        break;
    case PKT_NACK_RESUME:
        if (!xport_on_resume(x, &ncp_xcfg, ncp.now))
            ncp_sat_inc(&ncp.c.s.nacks_ignored);
        break;
    case PKT_NACK_PROTECTION:
    case PKT_NACK_MALFORMED: {
        /* Only a refusal of a packet in flight that belongs to operation h->op counts (a stale,
         * duplicated or forged NACK changes nothing); the packet is resent at once as VOID. */
        ncp_cookie_t ck = xport_cookie(x, h->seq);
        struct ncp_op *o = op_by_id(h->op);
        if (!o || !seq_in(h->seq, x->una, x->nxt) || (CK_KIND(ck) != CK_WRITE && CK_KIND(ck) != CK_READREQ) ||
            CK_ID(ck) != h->op || !xport_on_nack_refused(x, &ncp_xcfg, h->seq, ncp.now)) {
            ncp_sat_inc(&ncp.c.s.nacks_stale);
            break;
        }
        if (o->status == NIC_ST_OK)
            ncp_sat_inc(&ncp.c.s.refused_ops);
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

/* Handles one frame; returns 1 when its buffer is now owned by a DMA. */
static int on_frame(const uint8_t *f, uint32_t len, uint32_t ridx)
{
    struct pkt_hdr h;
    NCP_PROF_START();
    enum pkt_err e = pkt_parse(f, len, ncp.me, ncp.nodes, NCP_MTU, &h);
    int nack;

    NCP_PROF(6);
    if (e == PKT_OK && h.src >= NCP_MAX_PEERS)
        e = PKT_E_SRC;
    if (e != PKT_OK) {
        drop_bad(e);
        return 0;
    }
    if (h.token != ncp.peer[h.src].rx_token) {
        /* not from the node its source names (forged or from a node without the fabric secret):
         * nothing of it is used, nothing answers it */
        ncp_sat_inc(&ncp.c.s.auth_drops);
        return 0;
    }
    ncp_sat_inc(&ncp.c.s.rx_packets);
    ncp_work.peer_ack |= 1u << h.src; /* send_flush_acks looks at this peer */
    on_ack_fields(h.src, &h);
    NCP_PROF(7);
    if (!pkt_is_sequenced(h.type))
        return 0;
    struct xport_peer *x = &ncp.peer[h.src].x;
    uint32_t resyncs_bad = x->st.resyncs_bad;
    enum xport_rx_verdict v = xport_rx_classify(x, h.seq, h.flags, &nack);
    if (x->st.resyncs_bad != resyncs_bad)
        ncp_sat_inc(&ncp.c.s.resyncs_bad);
    switch (v) {
    case XP_RX_DUP:
        ncp_sat_inc(&ncp.c.s.dup_packets);
        return 0;
    case XP_RX_GAP:
        if (nack)
            send_ctl(h.src, PKT_NACK, PKT_NACK_GAP, h.seq, 0, 0);
        return 0;
    case XP_RX_NEW:
        break;
    }
    NCP_PROF(8);
    switch (h.type) {
    case PKT_WRITE:
        return on_write(h.src, &h, f + PKT_HDR_BYTES, ridx);
    case PKT_READ_REQ:
        on_read_req(h.src, &h);
        return 0;
    default:
        return on_read_resp(h.src, &h, f + PKT_HDR_BYTES, ridx);
    }
}

/*
 * The common case of on_frame() in a straight line, without calls: a WRITE with data, well formed
 * (pkt_parse's checks, on the header words in place), from a synced peer, the next expected
 * sequence number, acknowledging nothing new, its target (pid, buffer) memoised with every
 * protection check passed, one page that translates, a free DMA engine slot. Returns 1 when the
 * packet is delivered (its DMA posted); 0 when any condition fails, having changed nothing that
 * matters (at most the VMH memo and LRU stamp of a page it found): on_frame() then handles the
 * frame the general way and reaches the same verdicts.
 */
static __attribute__((noinline)) int rx_fast(const uint8_t *f, uint32_t flen, uint32_t ridx)
{
    const uint32_t *w = (const uint32_t *)(const void *)f;
    uint32_t w0 = pkt_bswap16x2(w[PKT_W_NODES]), w1 = w[PKT_W_TYPE];
    uint32_t src = w0 >> 16, len = w1 >> 16, flags = (w1 >> 8) & 0xFFu;
    uint32_t pid = w[PKT_W_PID] & 0xFFFFu, buf = w[PKT_W_BUF];
    uint64_t off = (uint64_t)w[PKT_W_OFF_HI] << 32 | w[PKT_W_OFF_LO];
    uint64_t pa;

    NCP_PROF_START();
    /* pkt_parse: header, WRITE fields; on_frame: source within the peers */
    if (flen < PKT_HDR_BYTES || (w0 & 0xFFFFu) != ncp.me || src == ncp.me || src >= ncp.nodes ||
        src >= NCP_MAX_PEERS || (w1 & 0xFFu) != PKT_WRITE || len != flen - PKT_HDR_BYTES || len > NCP_MTU ||
        len == 0 || (flags & (PKT_F_VOID | PKT_F_RESYNC)) || buf > PKT_MAX_BUF_ID || off + len < off ||
        w[PKT_W_XLEN] >= NIC_MAX_XFER)
        return 0;
    /* on_ack_fields: nothing new acknowledged; xport_rx_classify: the next expected packet */
    struct ncp_peer *pp = &ncp.peer[src];
    uint32_t seq = w[PKT_W_SEQ];
    if (w[PKT_W_TOKEN] != pp->rx_token || seq_lt(pp->x.una, w[PKT_W_ACK]) || !pp->x.synced ||
        seq != pp->x.expected)
        return 0;
    /* check_cbh on the memoised target (its PCH and CBH entries valid) */
    if (xlate_tmemo.pid != (pid | LKC_KEY_VALID) || xlate_tmemo.buf != buf)
        return 0;
    const struct nic_cbh_entry *e = xlate_tmemo.e;
    uint64_t blen = (uint64_t)e->len_hi << 32 | e->len_lo;
    if (e->owner_pid != pid || e->key != w[PKT_W_KEY] || !(e->flags & NIC_RIGHT_REMOTE_WRITE) || off > blen ||
        len > blen - off)
        return 0;
    /* write_host, one page */
    uint64_t va = ((uint64_t)e->va_hi << 32 | e->va_lo) + off;
    if ((uint32_t)(va & (NCP_PAGE - 1u)) + len > NCP_PAGE || !dmaq_direct() ||
        !xlate_vmh_hit((uint16_t)pid, va, NIC_RIGHT_REMOTE_WRITE, LKC_PATH_RECV, &pa, 0))
        return 0;
    ncp_sat_inc(&ncp.c.s.rx_packets);
    ncp_sat_inc(&xlate_fast_hits.target);
    rx_meta[ridx].seq = seq;
    dmaq_post_direct(HAL_SRAM_OFF(f + PKT_HDR_BYTES), pa, len, 1, DK_RX, ridx, (uint16_t)src);
    pp->rx_dma_pending++;
    xport_rx_accept(&pp->x);
    NCP_PROF(14);
    return 1;
}

static void release(void)
{
    uint32_t t = ncp.rx_tail;
    while (t != ncp.rx_next && !ncp.rx_busy[t % RX_N])
        t++;
    if (t != ncp.rx_tail) {
        ncp.rx_tail = t;
        hal_mac_rx_release(t);
    }
}

void recv_poll(void)
{
    uint32_t head = hal_mac_rx_head();

    for (uint32_t budget = 0; ncp.rx_next != head && budget < RX_N; budget++) {
        uint32_t i = ncp.rx_next % RX_N, t0 = ncp_rdcycle();
        uint32_t len = nic_field(rx_ring[i][NIC_RXDESC_STATUS_IDX], NIC_RXDESC_STATUS_LEN);
        ncp.rx_busy[i] = (uint8_t)((NCP_FASTPATH && rx_fast(rx_buf[i], len, i)) || on_frame(rx_buf[i], len, i));
        if (ncp.rx_busy[i]) { /* a data packet delivered: every lookup hit */
            rx_meta[i].cyc = ncp_rdcycle() - t0;
            rx_meta[i].len = len - PKT_HDR_BYTES;
        }
        ncp.rx_next++;
    }
    if (ncp.rx_next != head)
        hal_raise_events(HAL_EV_RX); /* budget: the rest in the next pass */
    release();
}

/* A read response's data is in host memory: the operation progresses (out of line: a call here
 * would make the common write path of recv_dma_done save registers). */
static __attribute__((noinline)) void resp_data_done(uint32_t ridx, uint8_t err)
{
    struct ncp_op *o = op_by_id(rx_meta[ridx].op);
    if (err)
        op_fail(o, NIC_ST_HOST_ERROR);
    op_progress(o, rx_meta[ridx].len);
}

/*
 * A received write's data did not reach host memory (a host DMA error at this node): the packet
 * must not be acknowledged. The receiver goes back to it (`expected` = its number, so it and what
 * followed are accepted again when resent: rewritten with the same data), and ack_val, which only
 * counts packets before `expected`, stays before it. The sender resends it on the GAP NACK or
 * timeout; a DMA that keeps failing ends in the sender's give-up (NIC_ST_UNREACHABLE), never in a
 * completion that counts the bytes.
 */
static __attribute__((noinline)) void rx_data_failed(struct ncp_peer *pp, uint32_t seq, uint8_t kind, uint8_t err)
{
    if (err && kind == DK_RX) {
        ncp_sat_inc(&ncp.c.s.rx_dma_errors);
        if (seq_lt(seq, pp->x.expected)) {
            pp->x.expected = seq;
            pp->x.nack_valid = 0;
            pp->x.ack_pending = 1;
        }
        pp->rx_err = 1;
    }
    /* nothing from the failed packet on counts until it is accepted again */
    if (seq_lt(pp->ack_val, seq + 1u) && seq_lt(seq, pp->x.expected))
        pp->ack_val = seq + 1u;
    if (pp->rx_dma_pending == 0)
        pp->rx_err = 0; /* drained: ack_val = expected from here (recv_dma_done) */
}

void recv_dma_done(uint8_t kind, uint32_t ridx, uint16_t peer, uint8_t err)
{
    struct ncp_peer *pp = &ncp.peer[peer];
    uint32_t seq = rx_meta[ridx].seq;

    __asm__("" : "+r"(pp)); /* kept in a register, not recomputed (a multiply) per access */
    NCP_PROF_START();
    NCP_ASSERT(NCP_MOD_RECV, 1, ridx < RX_N && ncp.rx_busy[ridx] && pp->rx_dma_pending > 0);
    ncp.rx_busy[ridx] = 0;
    pp->rx_dma_pending--;
    /* DMAs complete in order: everything up to this packet is in host memory (unless a DMA
     * before it failed: then `expected` went back to that one, and nothing from there counts
     * until the packets are accepted again: rx_data_failed, while pp->rx_err) */
    if (__builtin_expect(err | pp->rx_err, 0))
        rx_data_failed(pp, seq, kind, err);
    else if (seq_lt(pp->ack_val, seq + 1u))
        pp->ack_val = seq + 1u;
    if (pp->rx_dma_pending == 0) {
        pp->ack_val = pp->x.expected;
        ncp_work.peer_ack |= 1u << peer; /* send_flush_acks: the ACK may go now */
    }
    if (kind == DK_RXRESP)
        resp_data_done(ridx, err);
    release();
    NCP_PROF(11);
    fp_record(FP_RX, rx_meta[ridx].cyc + ncp.fp_acc + (ncp_rdcycle() - ncp.fp_t0), rx_meta[ridx].len);
}
