/*
 * xport.h - the reliable transport, one connection per peer node: sequence numbers (32-bit,
 * wrap-safe), cumulative ACKs, a go-back-N retransmit window of XP_WIN packets, a retransmission
 * timer with exponential backoff and a retry limit, duplicate suppression, and NACK handling.
 * Portable and passive: it decides, the caller (firmware send/receive paths, or a unit test)
 * moves packets and calls xport_tick() with the time.
 *
 * What a window slot holds is a 32-bit cookie chosen by the caller (the NCP encodes the
 * operation and segment, so a retransmission rebuilds the packet from host memory: no packet
 * data is kept per packet in flight, see docs/firmware.md).
 *
 * Timeout recovery: a timeout resends only the oldest unacknowledged packet (a probe) and holds
 * new packets and the other resends until the peer acknowledges something; then go-back-N
 * resumes from the new `una`. Each timeout's re-arm adds a random jitter (per-connection
 * generator): two nodes streaming at each other time out together, and if both resent their whole
 * windows at the same instant, every frame would again meet the peer's own burst (a receiver that
 * loses frames while it transmits loses them all, every time, until the retry limit).
 *
 * Receiver: only the next expected packet is accepted (go-back-N); older ones are duplicates
 * (dropped, ACK re-sent), newer ones reveal a gap (dropped, one NACK "gap" per expected value).
 * The caller may refuse an accepted packet (translation miss, busy): then it does not call
 * xport_rx_accept() and the sender resends it.
 *
 * Selective repeat (per connection, `sr`, a runtime option: docs/wire-protocol.md "Selective
 * repeat"): the receiver also accepts packets ahead of `expected` within the window (XP_RX_OOO;
 * the caller decides which types it places out of order), records them in `rsack` and advertises
 * them in the `off` field of its ACK and NACK frames (xport_sack_adv); `expected` (and so the
 * cumulative ACK) still moves only over a contiguous run. The sender keeps the latest SACK bitmap
 * (`sack`, advisory: only the cumulative ACK completes anything) and resends only what it does not
 * cover: once per loss recovery (`in_rec` until una passes `rec_end`), the holes below the highest
 * packet the receiver has (`lim`), after a timeout every packet not SACKed.
 *
 * Context: main loop only.
 */
#ifndef XPORT_H
#define XPORT_H

#include <stdint.h>

#include "ncp_util.h"
#include "pkt.h"

#define XP_WIN 32u /* packets in flight per peer (power of two) */

struct xport_cfg {
    uint32_t rto;         /* first retransmission timeout, in timer ticks */
    uint32_t nack_delay;  /* resend delay after a "busy" NACK (much less than rto), and after a
                           * "miss" NACK when the receiver sends no RESUME */
    uint32_t miss_hold;   /* resend delay after a "miss" NACK when the receiver sends RESUME at
                           * its next fill (0: nack_delay); the fallback if the RESUME is lost */
    uint8_t backoff_max;  /* rto doubles per timeout up to rto << backoff_max */
    uint8_t max_retries;  /* timeouts in a row without progress before giving up */
    uint8_t jitter_shift; /* each timeout re-arm adds a random [0, t >> jitter_shift) to its
                           * timeout t (0: no jitter) */
};

struct xport_stats {
    uint32_t sent, retransmits, timeouts, giveups, acks_bad, nacks_gap, nacks_retry, nacks_refused;
    uint32_t rx_new, rx_dup, rx_gap, resyncs, resumes;
    uint32_t nacks_stale;  /* MISS/BUSY/RESUME/refusal NACKs for nothing in flight: ignored */
    uint32_t stall_giveups; /* give-ups on the no-progress bound (xport_giveup_span) */
    uint32_t resyncs_bad;  /* RESYNC flags that would move `expected` backward or 2^31 away */
    uint32_t rx_ooo;       /* packets accepted out of order (selective repeat) */
    uint32_t sack_skips;   /* resends skipped: the packet was SACKed (selective repeat) */
};

/* What a window slot holds: chosen by the caller, 64 bits (the NCP: operation id and segment). */
typedef uint64_t xport_cookie_t;

struct xport_peer {
    /* sender side */
    uint32_t una;        /* oldest unacknowledged sequence number */
    uint32_t nxt;        /* next sequence number to send */
    uint32_t rexmit;     /* next sequence number to resend (== nxt: nothing to resend) */
    uint32_t deadline;   /* timer expiry (valid while una != nxt) */
    uint32_t resync_seq; /* first packet after a give-up: carries PKT_F_RESYNC until acked */
    uint8_t backoff;
    uint8_t retries;
    uint8_t resync_on;
    uint8_t nack_hold; /* the timer is a NACK retry delay (miss/busy hold), not a timeout */
    uint8_t probe;     /* after a timeout: only `una` is resent, nothing new sent, until progress */
    uint8_t sr;        /* selective repeat on this connection (both directions of this end) */
    uint8_t in_rec;    /* SR: a loss recovery runs until una passes rec_end */
    uint8_t hold_probe; /* a miss/busy hold ends in a probe (only `una` until progress): the loopback
                         * connection, whose ends share one pin budget (docs/firmware.md) */
    uint32_t rng;      /* timeout jitter generator (xorshift32, never 0) */
    uint32_t hold_seq; /* the packet a miss/busy NACK refused (valid while nack_hold) */
    uint32_t stall_at; /* last progress: a push into an empty window or an ACK that moved una */
    uint32_t sack;     /* SR: bit i = packet una + i SACKed by the receiver (advisory) */
    uint32_t lim;      /* SR: resends stop here (the holes below the highest SACKed, a NACKed packet) */
    uint32_t rec_end;  /* SR: nxt when the running loss recovery began */
    uint32_t left_t;   /* when the last frame that carried the packet then at una left this node
                        * (pushed into an empty window, or resent from una; the caller records it) */
    xport_cookie_t cookie[XP_WIN];
    /* receiver side */
    uint32_t expected;     /* next sequence number to accept */
    uint32_t nacked;       /* the expected value a gap NACK was last sent for */
    uint8_t nack_valid;
    uint8_t ack_pending;   /* an ACK should go out (piggy-backed or alone) */
    uint8_t synced;        /* the first packet from this peer fixed `expected`: 1, or 2 while packets
                            * accepted out of order are held (rsack != 0: the fast path, which
                            * tests synced == 1, leaves those to the general path) */
    uint8_t reserved1;
    uint32_t rsack;        /* SR: bit i = packet expected + i accepted out of order (bit 0 never) */
    struct xport_stats st;
};

enum xport_rx_verdict {
    XP_RX_NEW,      /* the next expected packet: process it, then xport_rx_accept() */
    XP_RX_DUP,      /* already delivered: drop, re-ACK */
    XP_RX_GAP,      /* ahead of expected: drop; NACK gap if *nack set */
    XP_RX_OOO,      /* SR only: ahead of expected within the window, not yet accepted: the caller
                     * may process it (then xport_rx_accept_seq()) or drop it as a gap (then
                     * xport_rx_ooo_drop()); NACK gap if *nack set, after processing it (so that
                     * the NACK's SACK shows it) */
};

enum xport_tick_action {
    XP_TICK_NONE,
    XP_TICK_RETRANSMIT, /* timer expired: resend from una (xport_rexmit_next(); after a timeout,
                         * as opposed to a NACK retry delay, only una until progress) */
    XP_TICK_GIVEUP,     /* retry limit: fail every cookie in [una, nxt), then call xport_giveup() */
};

/* tx_isn: our first sequence number to this peer; rx_isn: the peer's first to us (known to both
 * ends: the receiver starts synchronised at it), or XP_ISN_UNKNOWN (the peer's first packet carries
 * RESYNC and fixes it). */
#define XP_ISN_UNKNOWN 0xFFFFFFFFFFFFFFFFull
void xport_init(struct xport_peer *p, uint32_t tx_isn, uint64_t rx_isn);

/* A keyed pseudo-random function (SipHash-2-4 of the 64-bit message m under key k): per-connection
 * initial sequence numbers and tokens from a secret (docs/wire-protocol.md "Threat model"). */
uint64_t xport_prf(const uint32_t k[4], uint64_t m);

/* Sender. */
static inline uint32_t xport_in_flight(const struct xport_peer *p)
{
    return p->nxt - p->una;
}

/* A new packet may be pushed: window room, and no timeout probe outstanding. */
static inline int xport_has_room(const struct xport_peer *p)
{
    return p->nxt - p->una < XP_WIN && !p->probe;
}

/* Records a new packet (the caller checked xport_has_room), returns its sequence number. */
static inline void xport_arm(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now)
{
    p->deadline = now + (cfg->rto << p->backoff);
}

/* Inline: on every packet's fast path. Every field is loaded before the first store (a store
 * into the cookie array would otherwise make the compiler reload the fields after it). */
static inline uint32_t xport_tx_push(struct xport_peer *p, const struct xport_cfg *cfg, xport_cookie_t cookie,
                                     uint32_t now)
{
    uint32_t seq = p->nxt, una = p->una, rexmit = p->rexmit, sent = p->st.sent, backoff = p->backoff;

    NCP_ASSERT(NCP_MOD_XPORT, 1, xport_has_room(p));
    p->cookie[seq & (XP_WIN - 1u)] = cookie;
    p->nxt = seq + 1u;
    if (rexmit == seq)
        p->rexmit = seq + 1u;
    if (sent != 0xFFFFFFFFu)
        p->st.sent = sent + 1u;
    if (seq == una) { /* the window was empty: arm the deadline, start the no-progress clock */
        p->deadline = now + (cfg->rto << backoff);
        p->stall_at = now;
    }
    return seq;
}

static inline xport_cookie_t xport_cookie(const struct xport_peer *p, uint32_t seq)
{
    return p->cookie[seq & (XP_WIN - 1u)];
}

/* Flags the sender must put on packet `seq` (PKT_F_RESYNC). */
static inline uint8_t xport_tx_flags(const struct xport_peer *p, uint32_t seq)
{
    return p->resync_on && seq == p->resync_seq ? PKT_F_RESYNC : 0;
}

/*
 * A cumulative ACK `ack` (everything before it delivered). Returns how many packets it newly
 * acknowledged; their cookies are xport_cookie(p, *first + i) until the next push. An ACK beyond
 * nxt is counted as bad and ignored.
 */
uint32_t xport_on_ack(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t now,
                      uint32_t *first);

/* NACK gap: the receiver expects `ack`; resend from there at once (ack processing included). */
uint32_t xport_on_nack_gap(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t now,
                           uint32_t *first);
/*
 * The same with the NACK's SACK bitmap `bits` (relative to `ack`) and `seq`, the packet whose
 * arrival revealed the gap. Go-back-N (sr off, or no SACK bit: a go-back-N receiver): as
 * xport_on_nack_gap. Selective repeat: a loss recovery starts unless one runs (a running one is not
 * restarted: its resends are under way, a lost resend costs a timeout), resending only the packets
 * the SACK does not cover up to the highest the receiver has (and `seq`).
 */
uint32_t xport_on_nack_gap_sack(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t seq,
                                uint32_t bits, uint32_t now, uint32_t *first);
/*
 * SR: the SACK bitmap `bits` of an ACK or NACK frame whose cumulative ACK is `ack` (after that was
 * processed). Used only when ack == una (a current frame); bits for packets not in flight
 * ([una, nxt)) are ignored, so no SACK names a packet never sent; it replaces the previous bitmap (a
 * receiver that lost data, a host DMA error, stops advertising it). A hole below the highest SACKed
 * packet starts a loss recovery (unless one runs or a miss/busy hold does: the hold's end resends).
 * A SACK acknowledges nothing: only the cumulative ACK completes, moves una, or counts as progress.
 */
void xport_on_sack(struct xport_peer *p, uint32_t ack, uint32_t bits);

/*
 * NACK miss/busy for packet `seq`: resend from `seq` after `delay` (cfg->nack_delay, or
 * cfg->miss_hold for a miss when RESUME is in use) instead of a timeout. The receiver is alive, so
 * a hold does not count toward the retry limit; but no NACK moves the no-progress clock
 * (stall_at): whatever NACKs arrive, a connection that makes no progress gives up
 * xport_giveup_span() after its last progress. Returns 0 for a NACK about nothing in flight.
 */
int xport_on_nack_retry(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t seq, uint32_t now,
                         uint32_t delay);

/* RESUME from the receiver (a fill arrived there): if a miss/busy hold is running, it ends now and
 * the resend from `una` starts at once; returns 1 then, 0 when nothing was held (ignored). */
int xport_on_resume(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now);

/*
 * NACK protection/malformed for packet `seq`: the receiver refused it without consuming its
 * sequence number (and dropped what followed as a gap). Returns 1 when `seq` is in flight: the
 * caller fails the operation, and the resend from `seq`, at once, carries no data (PKT_F_VOID),
 * which the receiver accepts. Returns 0 for a stale or forged NACK (nothing changed). A lost
 * refusal NACK costs a timeout: the resent original is refused again (the refusal is idempotent).
 */
int xport_on_nack_refused(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t seq, uint32_t now);

/* Next packet to resend, if any: returns 1 with seq and cookie set, the cursor advanced (SR:
 * SACKed packets skipped, up to `lim`). */
int xport_rexmit_next(struct xport_peer *p, uint32_t *seq, xport_cookie_t *cookie);

/* Resends are due (xport_rexmit_next would return one, or skip SACKed ones to find none). */
static inline int xport_rexmit_pending(const struct xport_peer *p)
{
    return seq_lt(p->rexmit, p->sr ? p->lim : p->nxt);
}

/*
 * The deadline passed, but nothing was measured of the network: the packet at una has not left this
 * node (`unsent`: its resend not built yet, or its frame waiting in this node's queues for its
 * payload's DMA or the MAC), or it left less than a timeout ago (left_t; a departure before the
 * deadline's last arm never defers: deadline >= arm + timeout). The deadline is re-armed, from now or from the departure, within the
 * no-progress bound, instead of a timeout. Returns 0, changing nothing, when the deadline is a
 * NACK's hold (its end is the resend), nothing is in flight, the deadline has not passed, neither
 * holds, or the no-progress bound is reached (xport_tick then decides as before).
 */
int xport_defer(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now, int unsent);
/* Timer: call with the current time; see enum xport_tick_action. */
enum xport_tick_action xport_tick(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now);

/* After XP_TICK_GIVEUP and failing the cookies: drop the window; the next packet resynchronises. */
void xport_giveup(struct xport_peer *p);

/*
 * How long a sender retries without progress before xport_tick gives up, from the last progress
 * (a push into an empty window, an ACK that moved una): a NACK retry delay or miss hold (the
 * longer), plus max_retries + 1 of the largest timeout (rto << backoff_max) with its largest
 * jitter. It is a hard bound: the retry limit counts timeouts in a row, and MISS/BUSY/refusal
 * NACKs (genuine or forged) reset that count, but xport_tick also gives up when this span has
 * passed since stall_at, whatever NACKs came. A peer waiting for this sender (the NCP's
 * initiator-side read timer) sizes its timeout from it.
 */
uint32_t xport_giveup_span(const struct xport_cfg *cfg);

/* Receiver. */
enum xport_rx_verdict xport_rx_classify(struct xport_peer *p, uint32_t seq, uint8_t flags, int *nack);
/* SR: `expected` moves over the packets accepted out of order that now follow it. */
void xport_rx_absorb(struct xport_peer *p);
/* Accepts the next expected packet when no packet is held out of order (synced == 1): the fast
 * path's accept (no call). */
static inline void xport_rx_accept_fast(struct xport_peer *p)
{
    p->expected++;
    p->nack_valid = 0;
    p->ack_pending = 1;
    ncp_sat_inc(&p->st.rx_new);
}
/* Accepts the next expected packet (XP_RX_NEW). */
static inline void xport_rx_accept(struct xport_peer *p)
{
    p->expected++;
    p->nack_valid = 0;
    p->ack_pending = 1;
    ncp_sat_inc(&p->st.rx_new);
    if (__builtin_expect(p->rsack != 0, 0))
        xport_rx_absorb(p);
}
/* Accepts packet `seq`, in order (XP_RX_NEW) or out of order (XP_RX_OOO: recorded in rsack). */
void xport_rx_accept_seq(struct xport_peer *p, uint32_t seq);
/* An XP_RX_OOO packet the caller does not place out of order (a read request): dropped as a gap. */
static inline void xport_rx_ooo_drop(struct xport_peer *p)
{
    ncp_sat_inc(&p->st.rx_gap);
}
/*
 * The cumulative ACK a packet's completion may advertise (docs/firmware.md "Receive"): accepted in
 * order, everything up to it (seq + 1); out of order, only what came before `expected` (every packet
 * before it was accepted, and its data DMA queued, before this one). Call before accepting it.
 */
static inline uint32_t xport_rx_ackpoint(const struct xport_peer *p, uint32_t seq)
{
    return seq == p->expected ? seq + 1u : p->expected;
}
/* SR: packet `seq`, accepted, is to be accepted again (its data did not reach host memory). */
void xport_rx_renege(struct xport_peer *p, uint32_t seq);
/*
 * The SACK bitmap to advertise with cumulative ACK `ack` (<= expected): bit i = packet ack + i
 * accepted (those before `expected`, their data on the way to host memory, and those accepted out of
 * order). 0 without selective repeat. On the wire in the `off` field of ACK and NACK frames.
 */
static inline uint32_t xport_sack_adv(const struct xport_peer *p, uint32_t ack)
{
    uint32_t d = p->expected - ack;

    if (!p->sr || d >= 32u)
        return d >= 32u && d < 0x80000000u && p->sr ? 0xFFFFFFFFu : 0u;
    return (d ? 0xFFFFFFFFu >> (32u - d) : 0u) | p->rsack << d;
}

#endif /* XPORT_H */
