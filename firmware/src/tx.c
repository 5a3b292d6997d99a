/*
 * tx.c - the TX side of the MAC: the frame pools (data frames built by segment.c, control frames
 * built here), the queue of frames in MAC order, feeding the MAC as frames become ready and
 * freeing them as it finishes. Control frames: ACK and NACK (tx_ctl).
 */
#include <string.h>

#include "completer.h"
#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "rx.h"
#include "tx.h"

/* This module's counters (gathered by tx_counters for STATS). */
static struct {
    uint32_t nacks_sent;
    uint32_t tx_packets;
    uint32_t ctl_drops;
    uint32_t loop_frames; /* frames to this node itself, handed to rx.c (rx_loop_push) */
} tx_cnt;

uint8_t tx_frame[NCP_TX_N][NCP_FRAME_BYTES] __attribute__((section(".pktbuf"), aligned(16)));
static uint8_t ctl_frame[NCP_CTL_N][64] __attribute__((section(".pktbuf"), aligned(16)));
struct tx_state txs;

_Static_assert(NCP_TX_N + NCP_CTL_N <= TXQ_N && NCP_TX_N <= 32 && NCP_CTL_N <= 32, "frame pools");
_Static_assert(PKT_HDR_BYTES <= sizeof ctl_frame[0], "a control frame holds a VOID data header (tx_void_gated)");

/*
 * Cut-through (mac.tx_ct, docs/nic.md "Cut-through"): a gated frame starts on the wire once
 * tx_ct.thresh bytes of it are in SRAM, before its payload's DMA completes; the MAC reads it no
 * faster than the DMA writes it, and its FCS waits for the DMA's completion (a failed DMA poisons
 * the frame: the void copy follows as before, tx_void_gated). On a line up to 50 bits per cycle
 * (10 Gb/s at 200 MHz: 6.25 bytes per cycle) the DMA engine writes a payload faster than the line
 * sends it (8 bytes per cycle once its first burst arrived), so the header and the payload's first
 * 512 bytes (two bursts) are margin enough: a 4 KiB frame then leaves ~500 cycles earlier. On a
 * faster line the MAC sends a beat (8 bytes) every cycle, as fast as the DMA writes one at best:
 * the frame starts when half its largest payload is in, and trails the DMA by that much. A host
 * slower than assumed (its read latency) makes the line catch up: the MAC poisons that frame (an
 * underrun: the receiver drops it, the transport resends it) and doubles the threshold itself,
 * up to store-and-forward.
 */
static uint32_t tx_ct_thresh(uint32_t link_bits)
{
    if (!NCP_TX_GATE)
        return 0;
    return link_bits <= 50u ? PKT_HDR_BYTES + 512u : PKT_HDR_BYTES + NCP_MTU / 2u;
}

void tx_init(void)
{
    memset(&txs, 0, sizeof txs);
    txs.free = (1u << NCP_TX_N) - 1u;
    txs.ctl_free = (1u << NCP_CTL_N) - 1u;
    txs.mac_done = hal_mac_tx_done();
    txs.mac_cdone = hal_mac_tx_ctl_done();
    /* every control frame may be in the MAC's control queue at once: it never refuses one */
    NCP_ASSERT(NCP_MOD_TX, 5, hal_mac_tx_ctl_free() >= NCP_CTL_N);
    hal_mac_tx_ct(tx_ct_thresh(hal_mac_link_bits()));
}

const uint8_t tx_low_bit[256] = {
#define LB1(n) ((n) & 1 ? 0 : (n) & 2 ? 1 : (n) & 4 ? 2 : (n) & 8 ? 3 : (n) & 16 ? 4 : (n) & 32 ? 5 : (n) & 64 ? 6 : 7)
#define LB4(n) LB1(n), LB1((n) + 1), LB1((n) + 2), LB1((n) + 3)
#define LB16(n) LB4(n), LB4((n) + 4), LB4((n) + 8), LB4((n) + 12)
#define LB64(n) LB16(n), LB16((n) + 16), LB16((n) + 32), LB16((n) + 48)
    LB64(0), LB64(64), LB64(128), LB64(192)};

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
    i += tx_low_bit[p & 0xFFu];
    NCP_ASSERT(NCP_MOD_TX, 1, (uint32_t)i < n);
    *pool &= ~(1u << i);
    return i;
}

/* The MAC has finished data frame id: free, unless it went gated and its DMA completion is still
 * to be seen (tx_dma_done or tx_dma_failed free it then: the failure path reads its header). */
static inline void tx_passed(uint8_t id)
{
    if (NCP_TX_GATE && __builtin_expect(txs.gated[id] != 0, 0))
        txs.gated[id] = 2;
    else
        txs.free |= 1u << id;
}

/* Frees the frames the MAC has finished (one register read, only when frames are out); the
 * loopback entries it passes (txs.nloop of them outstanding) are not the MAC's: rx.c frees their
 * frames (tx_loop_release). */
static __attribute__((noinline)) void tx_collect_loop(uint16_t done)
{
    while (txs.done != txs.sub) {
        uint32_t slot = txs.done % TXQ_N;
        uint8_t id = txs.q[slot];
        if (txs.qloop[slot]) {
            txs.qloop[slot] = 0;
            txs.nloop--;
            txs.done++;
            continue;
        }
        if (txs.mac_done == done)
            break;
        txs.mac_done++;
        if (id < NCP_TX_N)
            tx_passed(id);
        else
            txs.ctl_free |= 1u << (id - NCP_TX_N);
        txs.done++;
    }
}

/* Frees the control frames the MAC's control queue has finished. */
static __attribute__((noinline)) void tx_collect_ctl(void)
{
    uint16_t done = hal_mac_tx_ctl_done();
    while (txs.mac_cdone != done && txs.cdone != txs.csub) {
        txs.ctl_free |= 1u << txs.cq[txs.cdone++ % NCP_CTL_N];
        txs.mac_cdone++;
    }
}

void tx_collect(void)
{
    if (txs.cdone != txs.csub)
        tx_collect_ctl();
    if (txs.done == txs.sub)
        return;
    uint16_t done = hal_mac_tx_done();

    if (__builtin_expect(txs.nloop != 0, 0)) {
        tx_collect_loop(done);
        return;
    }
    while (txs.mac_done != done && txs.done != txs.sub) {
        uint8_t id = txs.q[txs.done++ % TXQ_N];
        if (id < NCP_TX_N)
            tx_passed(id);
        else
            txs.ctl_free |= 1u << (id - NCP_TX_N);
        txs.mac_done++;
    }
}

/* Control frame i (built, PKT_HDR_BYTES, not to this node) into the MAC's control queue: it leaves
 * ahead of every data frame still queued there (a gated one waiting for its payload too). */
static void tx_ctl_submit(uint32_t i)
{
    txs.cq[txs.csub++ % NCP_CTL_N] = (uint8_t)i;
    hal_mac_tx_submit_ctl(ctl_frame[i], PKT_HDR_BYTES);
    ncp_sat_inc(&tx_cnt.tx_packets);
}

/* A free control frame's number, or -1 (after collecting the ones the MAC finished). */
static int ctl_alloc(void)
{
    int i = frame_alloc(&txs.ctl_free, NCP_CTL_N);
    if (i < 0 && txs.cdone != txs.csub) {
        tx_collect_ctl();
        i = frame_alloc(&txs.ctl_free, NCP_CTL_N);
    }
    return i;
}

/*
 * Loopback (docs/wire-protocol.md "Loopback"): a frame to this node itself does not go to the MAC
 * (a switch does not send a frame back out of the port it came in on); rx.c handles it in place as
 * a received frame and gives it back (tx_loop_release). 0 when no loopback entry is free (rx.c has
 * one per frame: not expected): the frame then waits at the head of MAC order.
 */
static int tx_loop(uint8_t id)
{
    const uint8_t *f = id < NCP_TX_N ? tx_frame[id] : ctl_frame[id - NCP_TX_N];
    uint32_t len = id < NCP_TX_N ? txs.len[id] : PKT_HDR_BYTES;

    if (!rx_loop_push(f, len, id))
        return 0;
    txs.qloop[txs.sub % TXQ_N] = 1;
    txs.nloop++;
    ncp_sat_inc(&tx_cnt.loop_frames);
    hal_raise_events(HAL_EV_TX); /* tx_collect passes it as the MAC's HAL_EV_TX would (none comes) */
    return 1;
}

static int is_loop(uint8_t id)
{
    const uint32_t *hw = (const uint32_t *)(const void *)(id < NCP_TX_N ? tx_frame[id] : ctl_frame[id - NCP_TX_N]);
    return hw[PKT_W_NODES] == ncp.w_loop;
}

/*
 * Data frame id (at the head of what is not yet submitted) to the MAC: its data in (data_ready), or
 * gated on its payload's DMA (gtag: tx_gate). 0 when the MAC has no free slot.
 */
static inline __attribute__((always_inline)) int tx_submit_data(uint8_t id)
{
    if (!txs.credit && !(txs.credit = hal_mac_tx_free()))
        return 0;
    txs.credit--;
    if (!NCP_TX_GATE || txs.data_ready[id]) {
        txs.data_ready[id] = 0;
        tx_left(id);
        hal_mac_tx_submit(tx_frame[id], txs.len[id]);
        ncp_sat_inc(&tx_cnt.tx_packets);
    } else {
        txs.gated[id] = 1; /* its DMA completion retires it (tx_dma_done) */
        hal_mac_tx_submit_gated(tx_frame[id], txs.len[id], (uint8_t)txs.gtag[id]);
        txs.gated_packets++;
    }
    if (NCP_TX_GATE)
        txs.gtag[id] = 0;
    return 1;
}

/* tx_feed_inline with loopback frames: where it goes once it meets one. */
static __attribute__((noinline)) void tx_feed_loop(void)
{
    while (txs.sub != txs.ready) {
        uint8_t id = txs.q[txs.sub % TXQ_N];
        if (id < NCP_TX_N && !txs.data_ready[id] && !(NCP_TX_GATE && txs.gtag[id]))
            break;
        if (NCP_TX_GATE && id < NCP_TX_N && !txs.data_ready[id]) { /* gated (never a loopback frame: tx_gate) */
            if (!tx_submit_data(id))
                break;
        } else if (is_loop(id)) {
            if (id < NCP_TX_N)
                tx_left(id); /* (a control frame has no departure to record: txs.una is per data frame) */
            if (!tx_loop(id))
                break;
            if (id < NCP_TX_N)
                txs.data_ready[id] = 0;
        } else if (id < NCP_TX_N) {
            if (!tx_submit_data(id))
                break;
        } else {
            if (!txs.credit && !(txs.credit = hal_mac_tx_free()))
                break;
            txs.credit--;
            hal_mac_tx_submit(ctl_frame[id - NCP_TX_N], PKT_HDR_BYTES);
            ncp_sat_inc(&tx_cnt.tx_packets);
        }
        txs.sub++;
    }
}

/*
 * Feeds the MAC the next ready frames in order. MAC submission slots are counted in software:
 * txs.credit is a lower bound of the MAC's free slots (only we take them), re-read when used up.
 * A loopback frame (its header addressed to this node) hands the rest to tx_feed_loop.
 */
static inline __attribute__((always_inline)) void tx_feed_inline(void)
{
    while (txs.sub != txs.ready) {
        uint8_t id = txs.q[txs.sub % TXQ_N];
        if (id < NCP_TX_N) {
            if (!txs.data_ready[id] && !(NCP_TX_GATE && txs.gtag[id]))
                break; /* its data is still coming in: frames leave in window order */
            if (__builtin_expect(((const uint32_t *)(const void *)tx_frame[id])[PKT_W_NODES] == ncp.w_loop, 0)) {
                tx_feed_loop();
                return;
            }
            if (!tx_submit_data(id))
                break;
        } else {
            if (__builtin_expect(is_loop(id), 0)) {
                tx_feed_loop();
                return;
            }
            if (!txs.credit && !(txs.credit = hal_mac_tx_free()))
                break;
            txs.credit--;
            hal_mac_tx_submit(ctl_frame[id - NCP_TX_N], PKT_HDR_BYTES);
            ncp_sat_inc(&tx_cnt.tx_packets);
        }
        txs.sub++;
    }
}

static void tx_feed(void)
{
    tx_feed_loop(); /* the general feed (tx_dma_done inlines the fast one) */
}

void tx_ready(uint32_t f)
{
    txs.data_ready[f] = 1;
    tx_feed();
}

void tx_ready_now(uint32_t f)
{
    txs.data_ready[f] = 1;
    /* straight to the MAC when f is the only frame not yet submitted and not a loopback frame
     * (tx_feed_loop cost ~79 cycles for it) */
    if (txs.sub + 1u == txs.ready && txs.q[txs.sub % TXQ_N] == f &&
        ((const uint32_t *)(const void *)tx_frame[f])[PKT_W_NODES] != ncp.w_loop) {
        if (tx_submit_data((uint8_t)f))
            txs.sub++;
        return;
    }
    tx_feed();
}

void tx_loop_release(uint32_t id)
{
    if (id < NCP_TX_N)
        txs.free |= 1u << id;
    else
        txs.ctl_free |= 1u << (id - NCP_TX_N);
    hal_raise_events(HAL_EV_TX); /* tx_reap: a frame may wait for a loopback entry; builders for a frame */
}

void tx_reap(void)
{
    tx_collect();
    tx_feed();
}

int tx_unsent(uint16_t peer, uint32_t seq)
{
    for (uint32_t i = txs.done; i != txs.ready; i++) {
        uint8_t id = txs.q[i % TXQ_N];
        if (id >= NCP_TX_N || (seq_lt(i, txs.sub) && !(NCP_TX_GATE && txs.gated[id] == 1)))
            continue; /* a control frame (not sequenced), or handed to the MAC and not waiting in it
                       * for its payload's DMA (a gated frame whose completion is still to come) */
        const uint32_t *w = (const uint32_t *)(const void *)tx_frame[id];
        if (w[PKT_W_SEQ] == seq && w[PKT_W_NODES] == conn_peer(peer).w_nodes)
            return 1;
    }
    return 0;
}

void tx_dma_done(uint32_t idx)
{
    NCP_PROF_START();
    if (NCP_TX_GATE && __builtin_expect(txs.gated[idx] != 0, 1)) {
        /* with the MAC already (tx_gate), which sends it now: its departure, and its frame back
         * to the pool if the MAC passed it */
        tx_left(idx);
        if (txs.gated[idx] == 2)
            txs.free |= 1u << idx;
        txs.gated[idx] = 0;
    } else {
        txs.data_ready[idx] = 1;
        tx_feed_inline(); /* on the fast path: no call */
    }
    NCP_PROF(5);
    if (NCP_FP_SAMPLES && txs.cyc[idx]) {
        fp_record(FP_TX, txs.cyc[idx] + dmaq.fp_acc + (fp_now() - dmaq.fp_t0), txs.len[idx] - PKT_HDR_BYTES);
        txs.cyc[idx] = 0;
    }
}

/*
 * The host DMA of a data frame's payload failed (dmaq_complete: an error on any of its pieces), so
 * the frame holds whatever its buffer held before. Its sequence number is taken: it still goes, as
 * VOID without data (what seg_build() sends for a failed operation), and the operation fails
 * NIC_ST_HOST_ERROR: a write completes with it once its segments are acknowledged (the receiver
 * accepts the void segment and writes nothing); a read response is marked failed, so this and the
 * rest of its segments, resent or new, go void carrying the status, which fails the initiator's read.
 * Which operation: the frame's sequence number in the window (a retransmission whose original was
 * acknowledged meanwhile is no longer there: the data arrived, the void copy is a duplicate).
 */
static void tx_void_gated(uint32_t f);

void tx_dma_failed(uint32_t f)
{
    if (NCP_TX_GATE && txs.gated[f]) {
        tx_void_gated(f);
        return;
    }
    uint32_t *w = (uint32_t *)(void *)tx_frame[f];
    uint32_t type = w[PKT_W_TYPE] & 0xFFu, flags = (w[PKT_W_TYPE] >> 8) & 0xFFu, seq = w[PKT_W_SEQ];
    uint32_t peer = pkt_bswap16x2(w[PKT_W_NODES]) & 0xFFFFu;

    NCP_ASSERT(NCP_MOD_TX, 3, f < NCP_TX_N && peer < NCP_MAX_PEERS);
    cpl_on_host_error(peer, seq);
    if (type == PKT_READ_RESP)
        w[PKT_W_STATUS] = (uint32_t)(int32_t)NIC_ST_HOST_ERROR;
    w[PKT_W_TYPE] = pkt_w_type(type, flags | PKT_F_VOID, 0);
    txs.len[f] = (uint16_t)PKT_HDR_BYTES;
    if (NCP_FP_SAMPLES)
        txs.cyc[f] = 0; /* not a fast-path sample */
    txs.data_ready[f] = 1;
    tx_feed();
}

/*
 * tx_dma_failed for a frame handed to the MAC gated (tx_gate): the MAC voids it (sends nothing),
 * so its VOID copy, the header alone (as tx_dma_failed sends), goes in a control frame, appended
 * in MAC order; the operation fails as there. With no control frame free the packet is lost, which
 * the transport recovers (the resend finds the operation failed: VOID). The frame goes back to the
 * pool once the MAC has passed it (tx_passed).
 */
static void tx_void_gated(uint32_t f)
{
    const uint32_t *w = (const uint32_t *)(const void *)tx_frame[f];
    uint32_t type = w[PKT_W_TYPE] & 0xFFu, flags = (w[PKT_W_TYPE] >> 8) & 0xFFu, seq = w[PKT_W_SEQ];
    uint32_t peer = pkt_bswap16x2(w[PKT_W_NODES]) & 0xFFFFu;

    NCP_ASSERT(NCP_MOD_TX, 4, f < NCP_TX_N && peer < NCP_MAX_PEERS);
    cpl_on_host_error(peer, seq);
    tx_left(f);
    int i = ctl_alloc();
    if (i >= 0) {
        uint32_t *c = (uint32_t *)(void *)ctl_frame[i];
        memcpy(c, w, PKT_HDR_BYTES);
        if (type == PKT_READ_RESP)
            c[PKT_W_STATUS] = (uint32_t)(int32_t)NIC_ST_HOST_ERROR;
        c[PKT_W_TYPE] = pkt_w_type(type, flags | PKT_F_VOID, 0);
        tx_ctl_submit((uint32_t)i); /* (a gated frame is never to this node: tx_gate) */
    } else {
        ncp_sat_inc(&tx_cnt.ctl_drops);
    }
    if (txs.gated[f] == 2)
        txs.free |= 1u << f;
    txs.gated[f] = 0;
    if (NCP_FP_SAMPLES)
        txs.cyc[f] = 0; /* not a fast-path sample */
    tx_reap();
}

/*
 * A control frame (ACK, NACK) to peer, its header words written in place (as segment.c writes a
 * data frame's): no header struct to fill and encode. The ACK it carries is piggy-backed
 * (ack_pending cleared) unless a SACK is owed (an ACK frame carries that).
 */
void tx_ctl(uint16_t peer, uint8_t type, uint16_t reason, uint32_t seq, uint32_t op, int32_t status)
{
    struct ncp_peer *pp = &conn_peer(peer);
    int loop = pp->w_nodes == ncp.w_loop;
    int i = ctl_alloc();

    if (i < 0 || (loop && txs.ready - txs.done >= TXQ_N)) {
        if (i >= 0)
            txs.ctl_free |= 1u << i;
        ncp_sat_inc(&tx_cnt.ctl_drops); /* the transport recovers a lost ACK or NACK */
        return;
    }
    uint32_t ack = pp->ack_val, flags = 0, rsn = reason, off = 0;
    if (ack == pp->x.expected && !pp->x.rsack)
        pp->x.ack_pending = 0; /* piggy-backed (not a SACK: an ACK frame carries that) */
    if (__builtin_expect(pp->x.sr, 0))
        off = xport_sack_adv(&pp->x, ack); /* SR: the SACK bitmap (else 0) */
    if (type == PKT_ACK && cc_opts)
        cc_ack_fields(peer, ack, &flags, &rsn); /* credit, echo (congestion.c) */
    uint32_t *w = (uint32_t *)(void *)ctl_frame[i];
    w[PKT_W_NODES] = pp->w_nodes;
    w[PKT_W_TYPE] = pkt_w_type(type, flags, 0);
    w[PKT_W_SEQ] = seq;
    w[PKT_W_ACK] = ack;
    w[PKT_W_OP] = op;
    w[PKT_W_PID] = pkt_w_pid(0, (uint16_t)rsn);
    w[PKT_W_BUF] = 0;
    w[PKT_W_KEY] = 0;
    w[PKT_W_TOKEN] = pp->tx_token;
    w[PKT_W_OFF_LO] = off;
    w[PKT_W_OFF_HI] = 0;
    w[PKT_W_STATUS] = (uint32_t)status;
    if (type == PKT_NACK)
        ncp_sat_inc(&tx_cnt.nacks_sent);
    if (__builtin_expect(!loop, 1)) {
        /* the MAC's control queue: ahead of every data frame, those waiting for their payload's
         * DMA here (not yet handed over) or in the MAC (gated) too. A control frame is not
         * sequenced, and an ACK or NACK that waits for other packets' host DMA (a loaded host: it
         * may take longer than the peer's timeout) is a late one; control frames keep their order */
        tx_ctl_submit((uint32_t)i);
        return;
    }
    /* to this node itself (loopback, rx.c): in MAC order, ahead of the data frames at the tail still waiting for their payload's DMA: a control frame is
     * not sequenced, and an ACK or NACK that waits for other packets' host DMA (a loaded host: it
     * may take longer than the peer's timeout) is a late one; control frames stay in their order */
    uint32_t at = txs.ready++;
    for (uint8_t prev; at != txs.sub && (prev = txs.q[(at - 1u) % TXQ_N]) < NCP_TX_N && !txs.data_ready[prev]; at--)
        txs.q[at % TXQ_N] = prev;
    txs.q[at % TXQ_N] = (uint8_t)(NCP_TX_N + i);
    tx_reap();
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void tx_counters(struct nic_stats *s, struct ncp_counters *k)
{
    ncp_sat_add(&s->nacks_sent, tx_cnt.nacks_sent);
    ncp_sat_add(&s->tx_packets, tx_cnt.tx_packets);
    ncp_sat_add(&s->tx_packets, txs.gated_packets);
    ncp_sat_add(&k->ctl_drops, tx_cnt.ctl_drops);
    ncp_sat_add(&s->loop_frames, tx_cnt.loop_frames);
}

/*
 * tx_ctl(peer, PKT_ACK, 0, 0, 0, 0) in a straight line (conn.c, conn_flush_acks; issue 12: an ACK
 * frame cost an 8-to-1 incast's receiver ~420 cycles): a control frame free, not a loopback frame,
 * not selective repeat (its SACK: tx_ctl). The same header words, ACK and credit as tx_ctl, into the
 * MAC's control queue. Frames the MAC finished are collected lazily (loop.c, tx_reap_due; ctl_alloc
 * when none is free). Returns 0, having changed nothing, when any condition fails: the caller then
 * sends it with tx_ctl.
 */
int tx_ack_fast(uint16_t peer)
{
    struct ncp_peer *pp = &conn_peer(peer);
    uint32_t cf = txs.ctl_free, w_nodes = pp->w_nodes;

    if (!cf && txs.cdone != txs.csub) {
        tx_collect_ctl();
        cf = txs.ctl_free;
    }
    if (!cf || w_nodes == ncp.w_loop || pp->x.sr)
        return 0;
    uint32_t i = tx_frame_lowest(cf), ack = pp->ack_val, flags = 0, rsn = 0;
    txs.ctl_free = cf & ~(1u << i);
    if (ack == pp->x.expected && !pp->x.rsack)
        pp->x.ack_pending = 0; /* (as tx_ctl) */
    if (cc_opts)
        cc_ack_fields(peer, ack, &flags, &rsn); /* credit, echo (congestion.c) */
    uint32_t *w = (uint32_t *)(void *)ctl_frame[i];
    w[PKT_W_NODES] = w_nodes;
    w[PKT_W_TYPE] = pkt_w_type(PKT_ACK, flags, 0);
    w[PKT_W_SEQ] = 0;
    w[PKT_W_ACK] = ack;
    w[PKT_W_OP] = 0;
    w[PKT_W_PID] = pkt_w_pid(0, (uint16_t)rsn);
    w[PKT_W_BUF] = 0;
    w[PKT_W_KEY] = 0;
    w[PKT_W_TOKEN] = pp->tx_token;
    w[PKT_W_OFF_LO] = 0;
    w[PKT_W_OFF_HI] = 0;
    w[PKT_W_STATUS] = 0;
    tx_ctl_submit(i);
    return 1;
}
