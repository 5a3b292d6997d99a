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

void xport_init(struct xport_peer *p, uint32_t isn)
{
    memset(p, 0, sizeof *p);
    p->una = p->nxt = p->rexmit = isn;
    p->resync_seq = isn;
    p->resync_on = 1; /* the very first packet fixes the receiver's expected value */
    p->rng = isn ^ 0x9E3779B9u; /* distinct per connection (isn is); xorshift needs nonzero */
    if (!p->rng)
        p->rng = 1;
}

static uint32_t rng_next(struct xport_peer *p)
{
    uint32_t x = p->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return p->rng = x;
}

static void arm(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now)
{
    xport_arm(p, cfg, now);
}

uint32_t xport_on_ack(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t now,
                      uint32_t *first)
{
    uint32_t n;

    *first = p->una;
    if (seq_lt(p->nxt, ack)) {
        ncp_sat_inc(&p->st.acks_bad);
        return 0;
    }
    if (!seq_lt(p->una, ack))
        return 0; /* old or repeated ACK */
    n = ack - p->una;
    p->una = ack;
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

void xport_on_nack_retry(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t seq, uint32_t now,
                         uint32_t delay)
{
    (void)cfg;
    if (seq_lt(seq, p->una) || !seq_lt(seq, p->nxt))
        return; /* stale: already acknowledged, or never sent */
    ncp_sat_inc(&p->st.nacks_retry);
    /* the receiver is alive: no backoff, just come back later (resend from seq then) */
    p->deadline = now + delay;
    p->nack_hold = 1;
    p->hold_seq = seq;
    p->retries = 0;
    p->probe = 0;
    if (seq_lt(seq, p->rexmit))
        p->rexmit = p->nxt; /* hold resends until the short timer fires */
}

int xport_on_resume(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now)
{
    if (!p->nack_hold || p->una == p->nxt)
        return 0; /* nothing held: the hold expired and the resend went already, or all acked */
    ncp_sat_inc(&p->st.resumes);
    p->nack_hold = 0;
    p->rexmit = p->una;
    arm(p, cfg, now);
    return 1;
}

int xport_on_nack_refused(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t seq, uint32_t now)
{
    if (seq_lt(seq, p->una) || !seq_lt(seq, p->nxt))
        return 0; /* stale (the void resend was acknowledged already), or never sent */
    ncp_sat_inc(&p->st.nacks_refused);
    p->nack_hold = 0;
    p->retries = 0;
    p->probe = 0; /* the receiver is alive */
    if (seq_lt(seq, p->rexmit))
        p->rexmit = seq;
    arm(p, cfg, now);
    return 1;
}

int xport_rexmit_next(struct xport_peer *p, uint32_t *seq, uint32_t *cookie)
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
    if (p->nack_hold) {
        p->nack_hold = 0;
        arm(p, cfg, now);
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
    if ((flags & PKT_F_RESYNC) && (!p->synced || seq_lt(p->expected, seq))) {
        /* the sender (re)started here: nothing before seq will come again */
        p->expected = seq;
        p->synced = 1;
        p->nack_valid = 0;
        ncp_sat_inc(&p->st.resyncs);
    }
    if (!p->synced || seq_lt(p->expected, seq)) {
        ncp_sat_inc(&p->st.rx_gap);
        if (p->synced && (!p->nack_valid || p->nacked != p->expected)) {
            p->nacked = p->expected;
            p->nack_valid = 1;
            *nack = 1;
        }
        return XP_RX_GAP;
    }
    if (seq_lt(seq, p->expected)) {
        ncp_sat_inc(&p->st.rx_dup);
        p->ack_pending = 1;
        return XP_RX_DUP;
    }
    return XP_RX_NEW;
}


