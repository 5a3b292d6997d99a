/*
 * cc.h - the rules of flow control (receiver credits) and congestion control (an ECN-driven AIMD
 * window per connection), docs/wire-protocol.md "Flow and congestion control". Portable and
 * passive, as xport: the NCP (firmware/src/congestion.c) keeps the state and calls these with the
 * frames' fields; tests/unit/ncp_test_cc.c calls them with fake inputs.
 *
 * Flow control: a receiver grants each sender, on every ACK frame, a credit: the sender may send
 * packets up to (not including) ack + credit, an absolute limit it keeps until the next ACK frame.
 * The receiver's buffers (the MAC RX ring less a reserve for control frames, rx_slots) are a pool:
 * a sender's outstanding grant is its limit less the ACK the receiver can give it now (its
 * packets from there on are in the ring, on the wire, or not sent yet), and a grant is at most
 * the pool's free part (rx_slots less the others' outstanding grants) and at most an equal share
 * (rx_slots / the senders holding a grant). Never below 1: a sender must always be able to send
 * the packet that brings its next ACK; so while no more senders than rx_slots are active, the
 * ring holds everything granted, and a single sender can never overrun it.
 *
 * Congestion control: the switch marks frames (PKT_F_CE) enqueued on an output queue above its
 * threshold; the receiver echoes a mark (PKT_F_ECE on its next ACK frame); the sender halves its
 * window on an echo, at most once per round trip (not again until a packet sent after the cut is
 * acknowledged), and grows it by about one packet per window acknowledged without an echo
 * (1/cwnd per packet), between win_min and win_max.
 *
 * A sender's window is min(win_max, the flow limit less una, cwnd), never below 1.
 */
#ifndef NCP_CC_H
#define NCP_CC_H

#include <stdint.h>

#include "ncp_util.h"

#define CC_FRAC 256u /* the congestion window's fixed point: 1/256 packet */

/* Runtime options (INIT's `cache` field, nic_abi.h NIC_CMD_INIT, NIC_XOPT_*): */
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
    uint32_t lim;       /* flow control: packets before this may be sent (valid while lim_on) */
    uint32_t cut_seq;   /* nxt at the last cut: no further cut before una passes it (while cut_valid) */
    uint32_t una;       /* the una the last update saw (packets acknowledged since: the increase) */
    uint8_t cut_valid;
    uint8_t lim_on;     /* a limit is known (from credit_init, then every ACK frame with a credit) */
    uint8_t reserved[2];
    uint32_t win;       /* the window the send paths obey: min(win_max, lim - una, cwnd), >= 1 */
};

void cc_tx_init(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t una, uint32_t opts);

/*
 * A frame from the peer was handled (its ACK fields applied: `una`, `nxt` are the connection's
 * now). `ece`: the frame echoed a mark; `credit_valid`: it is an ACK frame, with its `ack` and
 * `credit` (0: the receiver grants none: no limit). Returns 1 when the window was cut.
 */
int cc_tx_update(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts, uint32_t una, uint32_t nxt, int ece,
                 int credit_valid, uint32_t ack, uint32_t credit);

/* The window in packets for the given state and una (what cc_tx_update leaves in t->win). */
uint32_t cc_tx_window(const struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts, uint32_t una);

/*
 * The credit a receiver grants a sender: `others` = the other senders' outstanding grants,
 * `holders` = the senders holding a grant, this one included (>= 1). 1..255.
 */
uint32_t cc_grant(const struct cc_cfg *cfg, uint32_t others, uint32_t holders);

#endif /* NCP_CC_H */
