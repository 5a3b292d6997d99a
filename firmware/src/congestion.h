/*
 * congestion.h - flow control (receiver credits) and congestion control (ECN-echo AIMD window),
 * the NCP's state and hooks: congestion.c; the rules are firmware/lib/cc.[ch]
 * (docs/wire-protocol.md "Flow and congestion control", docs/firmware.md).
 *
 * Hooks: the send paths' window check (requester.c, responder.c: cc_room), every authenticated
 * frame received (rx.c on_frame: cc_on_frame), every stand-alone ACK frame (tx.c tx_ctl:
 * cc_ack_fields), INIT (cmd.c) and boot (loop.c): cc_setup. Off (options 0), cc_win is XP_WIN for
 * every peer and nothing else runs.
 */
#ifndef NCP_CONGESTION_H
#define NCP_CONGESTION_H

#include "cc.h"
#include "ncp.h"

/* The options INIT gave (CC_OPT_FC | CC_OPT_CC; 0: off). */
extern uint32_t cc_opts;
/* Per peer: the packets the send paths may have in flight (min(XP_WIN, credit, cwnd)). */
extern uint8_t cc_win[NCP_MAX_PEERS];

/* A new packet to this peer is within its flow and congestion window (xport_has_room checked). */
static inline int cc_room(uint16_t peer, const struct xport_peer *x)
{
    return x->nxt - x->una < cc_win[peer];
}
/* A resend (go-back-N from una) of packet `seq` is within the window: a window that shrank since
 * the packets were first sent must not let the resends overrun the receiver either. */
static inline int cc_resend_room(uint16_t peer, const struct xport_peer *x, uint32_t seq)
{
    return seq - x->una < cc_win[peer];
}

/*
 * Flow control: an ACK frame may go to `peer` before its receive DMAs drained (the NCP otherwise
 * acknowledges a peer only when they did): when `ack` (what is in host memory) has moved half the
 * sender's last grant beyond the last ACK frame, so that its credit does not run out while the
 * receiver waits for a stream's last DMA.
 */
int cc_ack_early(uint16_t peer, uint32_t ack);

/*
 * Flow control, receiver: the sum of the senders' outstanding grants the credits are computed from
 * (congestion.c), kept as its terms change. cc_held[p]: what the sum counts for peer p (its limit
 * less its ack_val when positive, it was granted and its context is resident; 0 without flow
 * control). cc_out_sync(p): peer p's part again from its state (its context became resident or
 * left NIC SRAM: peerctx.c). cc_ack_moved(p, ack_val): its ack_val moved forward (conn.c, rx.c; per
 * packet, so inline: a byte load and a branch when it holds nothing, as without flow control).
 */
extern uint8_t cc_held[NCP_MAX_PEERS];
extern uint32_t cc_lim[NCP_MAX_PEERS];
extern uint32_t cc_sum, cc_holders;
void cc_out_sync(uint16_t p);
static inline void cc_ack_moved(uint16_t p, uint32_t ack_val)
{
    uint32_t was = cc_held[p];
    if (__builtin_expect(was != 0u, 0)) {
        uint32_t out = cc_lim[p] - ack_val;
        if (out - 1u < was) { /* still outstanding, that much less */
            cc_sum -= was - out;
            cc_held[p] = (uint8_t)out;
        } else if (!seq_lt(0, out)) { /* used up */
            cc_sum -= was;
            cc_holders--;
            cc_held[p] = 0;
        } else {
            cc_out_sync(p); /* (an ACK that moved back: not done by the NCP) */
        }
    }
}
#ifdef NCP_HOST
/* Tests: the kept sum and holder count (into *sum, *holders) equal a loop over every peer's
 * outstanding grant (1), or not (0). */
int cc_out_audit(uint32_t *sum, uint32_t *holders);
/* Tests: the credit from the table of shares (congestion.c) equals cc_grant's for these terms (1). */
int cc_grant_fast_check(uint32_t others, uint32_t holders);
#endif

/* INIT (and boot, with 0): options; every peer's state reset (the connections were). */
void cc_setup(uint32_t opts);
/* A connection's state from its first sequence numbers (peerctx.c: a peer's context created):
 * the sender's from `una`, and with flow control the receiver's implicit first grant (credit_init
 * beyond `ack_val`, the ACK we could give the peer now). */
void cc_peer_start(uint16_t p, uint32_t una, uint32_t ack_val);
/* An authenticated frame from peer, its ACK fields applied. */
void cc_on_frame(uint16_t peer, const struct pkt_hdr *h);
/* A stand-alone ACK frame to peer carrying `ack`: its echo (PKT_F_ECE into *flags) and credit (into
 * the high byte of the 16-bit *reason). */
void cc_ack_fields(uint16_t peer, uint32_t ack, uint32_t *flags, uint32_t *reason);
/* This module's counters into the statistics (ncp_counters_gather). */
void cc_counters(struct nic_stats *s, struct ncp_counters *k);

#endif /* NCP_CONGESTION_H */
