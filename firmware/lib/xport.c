/*
 * xport.c - per-peer reliable transport state machine (see xport.h).
 *
 * Sender states per peer, derived from the indices rather than stored: IDLE (una == nxt),
 * IN_FLIGHT (timer armed), RESENDING (rexmit != nxt), and the give-up transition. Timer values
 * are 32-bit timer ticks compared wrap-safely.
 */
#include "xport.h"

#include <string.h>

#include "ncp_util.h"
#include "pkt.h"

void xport_init(struct xport_peer *p, uint32_t tx_isn, uint64_t rx_isn)
{
    memset(p, 0, sizeof *p);
    p->una = p->nxt = p->rexmit = tx_isn;
    p->resync_seq = tx_isn;
    /* the very first packet fixes the receiver's expected value, unless it knows our ISN */
    p->resync_on = rx_isn == XP_ISN_UNKNOWN;
    if (rx_isn != XP_ISN_UNKNOWN) {
        p->expected = (uint32_t)rx_isn;
        p->synced = 1;
    }
    p->rng = tx_isn ^ 0x9E3779B9u; /* distinct per connection (isn is); xorshift needs nonzero */
    if (!p->rng)
        p->rng = 1;
}

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                          \
    do {                                                                                                  \
        v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32);                                   \
        v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2;                                                         \
        v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0;                                                         \
        v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32);                                   \
    } while (0)

uint64_t xport_prf(const uint32_t k[4], uint64_t m)
{
    uint64_t k0 = (uint64_t)k[0] | (uint64_t)k[1] << 32, k1 = (uint64_t)k[2] | (uint64_t)k[3] << 32;
    uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
    uint64_t b = (uint64_t)8 << 56; /* message length 8 */

    v3 ^= m;
    SIPROUND;
    SIPROUND;
    v0 ^= m;
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xFF;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static uint32_t rng_next(struct xport_peer *p)
{
    uint32_t x = p->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return p->rng = x;
}

/* No deadline beyond the no-progress bound: xport_tick gives up there (see xport_giveup_span). */
static void clamp(struct xport_peer *p, const struct xport_cfg *cfg)
{
    uint32_t end = p->stall_at + xport_giveup_span(cfg);

    if (seq_lt(end, p->deadline))
        p->deadline = end;
}

/* Every re-arm is clamped: a RESUME or a gap NACK that re-arms without progress must not move the
 * deadline past the no-progress bound either (found by tests/fuzz/fuzz_rx). */
static void arm(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now)
{
    xport_arm(p, cfg, now);
    clamp(p, cfg);
}

uint32_t xport_on_ack(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t now,
                      uint32_t *first)
{
    uint32_t n;

    *first = p->una;
    if (!seq_in(ack - 1u, p->una, p->nxt)) { /* not in (una, nxt] */
        if (!seq_le(ack, p->una))
            ncp_sat_inc(&p->st.acks_bad); /* beyond anything sent (or 2^31 away) */
        return 0;                         /* else old or repeated */
    }
    n = ack - p->una;
    p->una = ack;
    p->stall_at = now;
    if (seq_lt(p->rexmit, ack))
        p->rexmit = ack;
    if (p->resync_on && seq_lt(p->resync_seq, ack))
        p->resync_on = 0;
    p->backoff = 0;
    p->retries = 0;
    p->probe = 0; /* the peer hears us again: go-back-N from the new una (rexmit is there) */
    if (p->nack_hold && (seq_lt(p->hold_seq, ack) || p->una == p->nxt))
        p->nack_hold = 0; /* the held packet got through: the hold is over */
    if (p->una != p->nxt && !p->nack_hold)
        arm(p, cfg, now); /* (a running hold keeps its deadline: progress before the held packet
                           * does not make the receiver's translation arrive sooner) */
    return n;
}

uint32_t xport_on_nack_gap(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t now,
                           uint32_t *first)
{
    uint32_t n = xport_on_ack(p, cfg, ack, now, first);

    if (p->una != p->nxt && p->una == ack) {
        p->rexmit = p->una;
        ncp_sat_inc(&p->st.nacks_gap);
        arm(p, cfg, now);
    }
    return n;
}

int xport_on_nack_retry(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t seq, uint32_t now,
                        uint32_t delay)
{
    if (!seq_in(seq, p->una, p->nxt)) {
        ncp_sat_inc(&p->st.nacks_stale);
        return 0; /* stale: already acknowledged, or never sent */
    }
    ncp_sat_inc(&p->st.nacks_retry);
    /* the receiver is alive: no backoff, just come back later (resend from seq then); never
     * later than the no-progress bound */
    p->deadline = now + delay;
    clamp(p, cfg);
    p->nack_hold = 1;
    p->hold_seq = seq;
    p->retries = 0;
    p->probe = 0;
    if (seq_lt(seq, p->rexmit))
        p->rexmit = p->nxt; /* hold resends until the short timer fires */
    return 1;
}

int xport_on_resume(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now)
{
    if (!p->nack_hold || p->una == p->nxt) {
        ncp_sat_inc(&p->st.nacks_stale);
        return 0; /* nothing held: the hold expired and the resend went already, or all acked */
    }
    ncp_sat_inc(&p->st.resumes);
    p->nack_hold = 0;
    p->rexmit = p->una;
    arm(p, cfg, now);
    return 1;
}

int xport_on_nack_refused(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t seq, uint32_t now)
{
    if (!seq_in(seq, p->una, p->nxt)) {
        ncp_sat_inc(&p->st.nacks_stale);
        return 0; /* stale (the void resend was acknowledged already), or never sent */
    }
    ncp_sat_inc(&p->st.nacks_refused);
    p->nack_hold = 0;
    p->retries = 0;
    p->probe = 0; /* the receiver is alive */
    if (seq_lt(seq, p->rexmit))
        p->rexmit = seq;
    arm(p, cfg, now);
    clamp(p, cfg);
    return 1;
}

int xport_rexmit_next(struct xport_peer *p, uint32_t *seq, xport_cookie_t *cookie)
{
    if (!seq_lt(p->rexmit, p->nxt) || (p->probe && p->rexmit != p->una))
        return 0; /* nothing to resend, or a timeout probe holds the rest back */
    *seq = p->rexmit;
    *cookie = p->cookie[p->rexmit & (XP_WIN - 1u)];
    p->rexmit++;
    ncp_sat_inc(&p->st.retransmits);
    return 1;
}

enum xport_tick_action xport_tick(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now)
{
    if (p->una == p->nxt || seq_lt(now, p->deadline))
        return XP_TICK_NONE;
    if (seq_le(p->stall_at + xport_giveup_span(cfg), now)) { /* the no-progress bound */
        ncp_sat_inc(&p->st.stall_giveups);
        ncp_sat_inc(&p->st.giveups);
        return XP_TICK_GIVEUP;
    }
    if (p->nack_hold) {
        p->nack_hold = 0;
        arm(p, cfg, now);
        clamp(p, cfg);
        p->rexmit = p->una;
        return XP_TICK_RETRANSMIT;
    }
    if (p->retries >= cfg->max_retries) {
        ncp_sat_inc(&p->st.giveups);
        return XP_TICK_GIVEUP;
    }
    p->retries++;
    ncp_sat_inc(&p->st.timeouts);
    if (p->backoff < cfg->backoff_max)
        p->backoff++;
    arm(p, cfg, now);
    if (cfg->jitter_shift)
        p->deadline += rng_next(p) % (((cfg->rto << p->backoff) >> cfg->jitter_shift) | 1u);
    clamp(p, cfg);
    p->rexmit = p->una;
    p->probe = 1;
    return XP_TICK_RETRANSMIT;
}

void xport_giveup(struct xport_peer *p)
{
    p->una = p->rexmit = p->nxt;
    p->resync_seq = p->nxt;
    p->resync_on = 1;
    p->backoff = 0;
    p->retries = 0;
    p->probe = 0;
}

uint32_t xport_giveup_span(const struct xport_cfg *cfg)
{
    uint32_t t = cfg->rto << cfg->backoff_max;

    if (cfg->jitter_shift)
        t += t >> cfg->jitter_shift;
    return t * (cfg->max_retries + 1u) + (cfg->miss_hold > cfg->nack_delay ? cfg->miss_hold : cfg->nack_delay);
}

enum xport_rx_verdict xport_rx_classify(struct xport_peer *p, uint32_t seq, uint8_t flags, int *nack)
{
    *nack = 0;
    if (flags & PKT_F_RESYNC) {
        if (!p->synced || seq_lt(p->expected, seq)) {
            /* the sender (re)started here: nothing before seq will come again (forward only;
             * the caller authenticated the packet: docs/wire-protocol.md "Threat model") */
            p->expected = seq;
            p->synced = 1;
            p->nack_valid = 0;
            ncp_sat_inc(&p->st.resyncs);
        } else if (seq != p->expected) {
            ncp_sat_inc(&p->st.resyncs_bad); /* backward or 2^31 away: an old packet, ignored */
        }
    }
    if (p->synced && seq == p->expected)
        return XP_RX_NEW;
    if (!p->synced || seq_lt(p->expected, seq)) {
        ncp_sat_inc(&p->st.rx_gap);
        if (p->synced && (!p->nack_valid || p->nacked != p->expected)) {
            p->nacked = p->expected;
            p->nack_valid = 1;
            *nack = 1;
        }
        return XP_RX_GAP;
    }
    /* before expected, or exactly 2^31 away (unordered): never new, dropped as a duplicate */
    ncp_sat_inc(&p->st.rx_dup);
    p->ack_pending = 1;
    return XP_RX_DUP;
}


