/*
 * tx.h - the TX frame pools, the MAC feed and control frames: tx.c.
 */
#ifndef NCP_TX_H
#define NCP_TX_H

#include "ncp.h"

#define TXQ_N 32u

/*
 * The frames in MAC order (owned by tx.c; the builder, segment.c, takes and queues data frames
 * through the inlines below): ids < NCP_TX_N are data frames, others control frames to this node
 * itself (loopback); control frames to other nodes go to the MAC's control queue at once (cq).
 */
struct tx_state {
    uint32_t free, ctl_free;       /* free data / control frames (bitmaps) */
    uint32_t ready, sub, done;     /* frames appended >= submitted to the MAC >= freed */
    uint16_t mac_done;             /* the MAC's count of frames sent, as last seen */
    uint32_t credit;               /* MAC submission slots known free: a lower bound (tx_feed) */
    uint8_t q[TXQ_N];              /* frame ids in MAC order */
    uint8_t qloop[TXQ_N];          /* the entry went to rx.c's loopback, not the MAC (tx_collect) */
    uint32_t nloop;                /* such entries not yet passed by tx_collect */
    uint8_t data_ready[NCP_TX_N];  /* data DMA'd in: may go to the MAC */
    uint16_t len[NCP_TX_N];        /* frame bytes */
    uint32_t cyc[NCP_TX_N];        /* fast-path cycles of the frame's build (0: not a sample) */
    struct xport_peer *una[NCP_TX_N]; /* the frame carries the packet at una of this connection:
                                       * its departure time is recorded (tx_left) */
    uint16_t gtag[NCP_TX_N];       /* 0x100 | its payload's DMA tag: the frame may go to the MAC
                                    * gated on that DMA before its data is in (tx_gate) */
    uint8_t gated[NCP_TX_N];       /* handed to the MAC gated on its payload's DMA (tx_gate):
                                    * 1 until that DMA's completion is seen, 2 when the MAC passed
                                    * it first (freed at the completion) */
    uint32_t gated_packets;        /* frames handed to the MAC gated (tx_packets) */
    /* control frames in the MAC's control queue (hal_mac_tx_submit_ctl), in its order: they leave
     * before data frames, so they are counted out apart (tx_collect) */
    uint8_t cq[NCP_CTL_N];         /* control frame numbers (0..NCP_CTL_N-1) */
    uint32_t csub, cdone;          /* submitted >= freed */
    uint16_t mac_cdone;            /* the MAC's count of control frames out, as last seen */
};
extern struct tx_state txs;
extern uint8_t tx_frame[NCP_TX_N][NCP_FRAME_BYTES];
extern const uint8_t tx_low_bit[256]; /* lowest set bit of a nonzero byte (RV32IM has no ctz) */

/* Index of the lowest set bit of a nonzero pool. */
static inline uint32_t tx_frame_lowest(uint32_t p)
{
    uint32_t i = 0;
    while (!(p & 0xFFu)) {
        p >>= 8;
        i += 8;
    }
    return i + tx_low_bit[p & 0xFFu];
}

/* Room for one more frame in MAC order. */
static inline int tx_room(void)
{
    return txs.ready - txs.done < TXQ_N;
}

/* Data frame f (its header written, `len` bytes with the payload) taken from the pool and queued
 * in MAC order; it goes to the MAC once its data is in (tx_dma_done, tx_ready). */
static inline void tx_frame_queue(uint32_t f, uint32_t len)
{
    txs.free &= ~(1u << f);
    txs.len[f] = (uint16_t)len;
    txs.q[txs.ready++ % TXQ_N] = (uint8_t)f;
}

/*
 * Data frame f (just queued, tx_frame_queue; `len` bytes) whose payload comes in one DMA request
 * (tag), just submitted, may go to the MAC gated on that DMA (hal_mac_tx_submit_gated: the MAC
 * holds it until the payload is in and voids it if the DMA failed): now, when nothing waits before
 * it in MAC order and a MAC slot is free, else when the MAC feed reaches it (tx.c). Its DMA
 * completion then only retires it (tx_dma_done). Not a loopback frame (rx.c takes those).
 */
static inline __attribute__((always_inline)) void tx_gate(uint32_t f, uint32_t len, uint32_t w_nodes, uint8_t tag)
{
    if (!NCP_TX_GATE || w_nodes == ncp.w_loop)
        return;
    if (txs.sub + 1u != txs.ready || (!txs.credit && !(txs.credit = hal_mac_tx_free()))) {
        txs.gtag[f] = (uint16_t)(0x100u | tag); /* the feed hands it over gated */
        return;
    }
    txs.credit--;
    txs.gated[f] = 1;
    txs.sub++;
    hal_mac_tx_submit_gated(tx_frame[f], len, tag);
    txs.gated_packets++;
}

void tx_init(void);
/* rx.c is done with loopback frame id (rx_loop_push): back to its pool. */
void tx_loop_release(uint32_t id);
void tx_collect(void); /* frees the frames the MAC finished */
void tx_reap(void);    /* tx_collect, then feed the MAC */
void tx_ready(uint32_t f); /* frame f has no payload to wait for: it may go */
/* tx_ready for a frame that goes at once when nothing waits before it: an inline write's (the
 * latency path; in a read stream the same shortcut for its requests cost the initiator ~10 cycles
 * per packet) */
void tx_ready_now(uint32_t f);
void tx_dma_done(uint32_t f);
/* Frame f goes to the MAC or the loopback now: when it carries a connection's packet at una, the
 * time is recorded (xport_defer: a timeout counts from the departure). */
static inline void tx_left(uint32_t f)
{
    struct xport_peer *x = txs.una[f];
    if (__builtin_expect(x != 0, 0)) {
        txs.una[f] = 0;
        x->left_t = ncp.now;
    }
}
/* 1 when the data frame carrying packet `seq` to `peer` is queued here and not yet handed to the MAC
 * (its payload's DMA, or frames before it, still pending): the transport's timer (conn.c) does not
 * count that wait as the network's. A scan of the queue: for the timer, not per packet. */
int tx_unsent(uint16_t peer, uint32_t seq);
void tx_dma_failed(uint32_t f);
/* A control frame (ACK, NACK) to `peer`; dropped and counted when no control frame is free (the
 * transport recovers a lost ACK or NACK). */
void tx_ctl(uint16_t peer, uint8_t type, uint16_t reason, uint32_t seq, uint32_t op, int32_t status);
/* tx_ctl(peer, PKT_ACK, 0, 0, 0, 0) in a straight line (a control frame free, not loopback, not
 * selective repeat): 1; else 0 with nothing changed (the caller uses tx_ctl). conn.c's ACK frames. */
int tx_ack_fast(uint16_t peer);

/* This module's counters into the statistics (ncp_counters_gather). */
void tx_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_TX_H */
