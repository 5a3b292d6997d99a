/*
 * cc.h - the rules of flow control (receiver credits) and congestion control (an ECN-driven AIMD
 * window per connection), docs/wire-protocol.md "Flow and congestion control". Portable and
 * passive, as xport: the NCP (firmware/src/congestion.c) keeps the state and calls these with the
 * frames' fields and the time; tests/unit/ncp_test_cc.c calls them with fake inputs.
 *
 * Flow control: a receiver advertises on every ACK frame a credit, the number of packets beyond
 * that ACK the sender may have in flight: its receive buffers (the MAC RX ring less a reserve for
 * control frames) shared among the peers that sent it data lately (counted per epoch of
 * 2^active_shift ticks: the peers it acknowledged this epoch or the last, whichever is more). A
 * single sender is given the whole ring; none is ever given less than 1 (a sender always has a
 * packet to send that brings the next ACK). A sender's window is min(XP_WIN, credit, cwnd).
 *
 * Congestion control: the switch marks frames (PKT_F_CE) enqueued on an output queue above its
 * threshold; the receiver echoes a mark (PKT_F_ECE on its next ACK frame); the sender halves its
 * window on an echo, at most once per window of packets (not again until the packets in flight
 * at the cut are acknowledged), and grows it by one packet per window acknowledged without an
 * echo, between win_min and win_max.
 */
#ifndef NCP_CC_H
#define NCP_CC_H

#include <stdint.h>

#include "ncp_util.h"

#define CC_FRAC 256u /* the congestion window's fixed point: 1/256 packet */

/* Runtime options (INIT's `ep` field, nic_abi.h NIC_CMD_INIT): */
#define CC_OPT_FC 0x1u /* flow control: advertise credits, obey the peer's */
#define CC_OPT_CC 0x2u /* congestion control: echo marks, window per connection */

struct cc_cfg {
    uint32_t rx_slots;     /* receive buffers shared among the active senders */
    uint32_t credit_init;  /* a sender's credit before the receiver's first advertisement */
    uint32_t win_init;     /* congestion window at start, packets */
    uint32_t win_min;      /* packets, >= 1 */
    uint32_t win_max;      /* packets, <= XP_WIN */
    uint8_t active_shift;  /* epoch of the active-sender count: 2^shift ticks */
};

/* Sender side, per connection. */
struct cc_tx {
    uint32_t cwnd;      /* congestion window, 1/CC_FRAC packets */
    uint32_t credit;    /* the receiver's last credit, packets beyond its ACK (0: none: no limit) */
    uint32_t cut_seq;   /* no further cut before una passes this (valid while cut_valid) */
    uint32_t una;       /* the una the last update saw (packets acknowledged since: the increase) */
    uint8_t cut_valid;
    uint8_t reserved[3];
    uint32_t win;       /* the window the send paths obey: min(win_max, credit, cwnd), >= 1 */
};

/* Receiver side: the active-sender count. */
struct cc_share {
    uint32_t epoch;     /* current epoch + 1 (0: none yet) */
    uint32_t cur, prev; /* peers acknowledged in this epoch, the last one */
};

void cc_tx_init(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t una, uint32_t opts);

/*
 * A frame from the peer was handled (its ACK fields applied: `una`, `nxt` are the connection's
 * now). `ece`: the frame echoed a mark; `credit_valid`: it carries a credit (an ACK frame), with
 * `credit` (0: the receiver advertises none). Returns 1 when the window was cut.
 */
int cc_tx_update(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts, uint32_t una, uint32_t nxt, int ece,
                 int credit_valid, uint32_t credit);

/* The window in packets for the given state (what cc_tx_update leaves in t->win). */
uint32_t cc_tx_window(const struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts);

/*
 * The credit to advertise to a peer in an ACK frame at time `now`; *peer_epoch is that peer's
 * last epoch + 1 (0: never), updated. Counts the peer as active in the current epoch.
 */
uint32_t cc_credit(struct cc_share *s, uint32_t *peer_epoch, const struct cc_cfg *cfg, uint32_t now);

#endif /* NCP_CC_H */
