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
    p->una = p->nxt = p->rexmit = p->lim = p->rec_end = tx_isn;
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
/* Off every per-packet path (keying): compiled for size where the compiler can (GCC: the firmware). */
#if defined(__GNUC__) && !defined(__clang__)
#define XP_SMALL __attribute__((noinline, optimize("Os")))
#else
#define XP_SMALL __attribute__((noinline))
#endif

/* `n` SipHash rounds on v (a loop, not unrolled: keyed only when a connection is created, and the
 * unrolled rounds cost 1.2 KiB of instruction memory on RV32). */
XP_SMALL static void siprounds(uint64_t v[4], uint32_t n)
{
    while (n--) {
        v[0] += v[1]; v[1] = ROTL64(v[1], 13); v[1] ^= v[0]; v[0] = ROTL64(v[0], 32);
        v[2] += v[3]; v[3] = ROTL64(v[3], 16); v[3] ^= v[2];
        v[0] += v[3]; v[3] = ROTL64(v[3], 21); v[3] ^= v[0];
        v[2] += v[1]; v[1] = ROTL64(v[1], 17); v[1] ^= v[2]; v[2] = ROTL64(v[2], 32);
    }
}

XP_SMALL uint64_t xport_prf(const uint32_t k[4], uint64_t m)
{
    uint64_t k0 = (uint64_t)k[0] | (uint64_t)k[1] << 32, k1 = (uint64_t)k[2] | (uint64_t)k[3] << 32;
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull, k0 ^ 0x6c7967656e657261ull,
                     k1 ^ 0x7465646279746573ull};
    uint64_t b = (uint64_t)8 << 56; /* message length 8 */

    v[3] ^= m;
    siprounds(v, 2);
    v[0] ^= m;
    v[3] ^= b;
    siprounds(v, 2);
    v[0] ^= b;
    v[2] ^= 0xFF;
    siprounds(v, 4);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
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
    if (p->sr) { /* the SACK bitmap follows una; a recovery ends when una passes its end */
        p->sack = n < 32u ? p->sack >> n : 0u;
        if (seq_lt(p->lim, ack))
            p->lim = ack;
        if (p->in_rec && seq_le(p->rec_end, ack))
            p->in_rec = 0;
    }
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
        p->lim = p->nxt; /* (SR without SACK information: go-back-N) */
        ncp_sat_inc(&p->st.nacks_gap);
        arm(p, cfg, now);
    }
    return n;
}

/* SR: the highest packet the SACK bitmap covers, plus one (una when empty). */
static uint32_t sack_hi(const struct xport_peer *p)
{
    uint32_t b = p->sack, n = 0;

    while (b) {
        b >>= 1;
        n++;
    }
    return p->una + n;
}

/* SR: resends up to at least `s` (bounded by nxt: nothing beyond what was sent). */
static void raise_lim(struct xport_peer *p, uint32_t s)
{
    if (seq_lt(p->nxt, s))
        s = p->nxt;
    if (seq_lt(p->lim, s))
        p->lim = s;
}

/* SR: a loss recovery starts (unless one runs): the cursor goes back to una, the holes below lim
 * are resent once. A miss/busy hold keeps the cursor: its end resends from una anyway. */
static void recovery(struct xport_peer *p)
{
    if (p->in_rec)
        return;
    p->in_rec = 1;
    p->rec_end = p->nxt;
    if (!p->nack_hold)
        p->rexmit = p->una;
}

void xport_on_sack(struct xport_peer *p, uint32_t ack, uint32_t bits)
{
    uint32_t n = p->nxt - p->una;

    if (!p->sr || ack != p->una)
        return; /* go-back-N, or a stale frame (an ACK before una), or a bad one (beyond nxt) */
    p->sack = bits & (n >= 32u ? 0xFFFFFFFFu : (1u << n) - 1u); /* only packets in flight */
    if (p->sack & (p->sack + 1u)) { /* a hole below the highest SACKed packet: lost */
        recovery(p);
        raise_lim(p, sack_hi(p));
    }
}

uint32_t xport_on_nack_gap_sack(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t ack, uint32_t seq,
                                uint32_t bits, uint32_t now, uint32_t *first)
{
    if (!p->sr || !bits)
        return xport_on_nack_gap(p, cfg, ack, now, first); /* go-back-N */
    uint32_t n = xport_on_ack(p, cfg, ack, now, first);

    if (p->una != p->nxt && p->una == ack) {
        ncp_sat_inc(&p->st.nacks_gap);
        xport_on_sack(p, ack, bits);
        recovery(p); /* the gap at `ack` itself (bit 0 clear) */
        raise_lim(p, ack + 1u);
        if (seq_in(seq, p->una, p->nxt)) /* the packet that revealed the gap arrived there */
            raise_lim(p, seq + 1u);
        if (!p->nack_hold)
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
    if (p->sr)
        raise_lim(p, seq + 1u); /* resent at the hold's end (the others refused meanwhile too) */
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
    p->probe = p->hold_probe;
    raise_lim(p, p->hold_seq + 1u);
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
    raise_lim(p, seq + 1u); /* SR: at least the refused packet goes again (void) */
    arm(p, cfg, now);
    clamp(p, cfg);
    return 1;
}

int xport_rexmit_next(struct xport_peer *p, uint32_t *seq, xport_cookie_t *cookie)
{
    if (p->sr && !p->probe) /* skip what the receiver has (SACKed), stop at lim */
        while (seq_lt(p->rexmit, p->lim) && (p->sack >> (p->rexmit - p->una) & 1u)) {
            p->rexmit++;
            ncp_sat_inc(&p->st.sack_skips);
        }
    if (!seq_lt(p->rexmit, p->sr ? p->lim : p->nxt) || (p->probe && p->rexmit != p->una))
        return 0; /* nothing to resend, or a timeout probe holds the rest back */
    *seq = p->rexmit;
    *cookie = p->cookie[p->rexmit & (XP_WIN - 1u)];
    p->rexmit++;
    ncp_sat_inc(&p->st.retransmits);
    return 1;
}

int xport_defer(struct xport_peer *p, const struct xport_cfg *cfg, uint32_t now, int unsent)
{
    uint32_t from = now;

    if (p->una == p->nxt || p->nack_hold || seq_lt(now, p->deadline) ||
        !seq_lt(now, p->stall_at + xport_giveup_span(cfg)))
        return 0;
    if (!unsent) {
        if (!seq_lt(now, p->left_t + (cfg->rto << p->backoff)))
            return 0;
        from = p->left_t; /* it left less than a timeout ago: its timeout counts from then */
    }
    arm(p, cfg, from);
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
        p->probe = p->hold_probe;
        raise_lim(p, p->hold_seq + 1u);
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
    /* SR: everything not acknowledged may be lost (and a SACK may have been wrong: forgotten, the
     * receiver's next ACK tells again); after the probe's progress every packet not SACKed goes */
    p->sack = 0;
    p->lim = p->nxt;
    p->in_rec = 1;
    p->rec_end = p->nxt;
    return XP_TICK_RETRANSMIT;
}

void xport_giveup(struct xport_peer *p)
{
    p->una = p->rexmit = p->lim = p->nxt;
    p->sack = 0;
    p->in_rec = 0;
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
            p->rsack = 0; /* all it accepted out of order was before seq (the dropped window) */
            p->synced = 1;
            ncp_sat_inc(&p->st.resyncs);
        } else if (seq != p->expected) {
            ncp_sat_inc(&p->st.resyncs_bad); /* backward or 2^31 away: an old packet, ignored */
        }
    }
    if (p->synced && seq == p->expected)
        return XP_RX_NEW;
    if (!p->synced || seq_lt(p->expected, seq)) {
        uint32_t d = seq - p->expected;
        int ooo = p->sr && p->synced && d < XP_WIN;
        if (ooo && (p->rsack >> d & 1u)) { /* accepted out of order already */
            ncp_sat_inc(&p->st.rx_dup);
            p->ack_pending = 1;
            return XP_RX_DUP;
        }
        if (!ooo)
            ncp_sat_inc(&p->st.rx_gap);
        if (p->synced && (!p->nack_valid || p->nacked != p->expected)) {
            p->nacked = p->expected;
            p->nack_valid = 1;
            *nack = 1;
        }
        return ooo ? XP_RX_OOO : XP_RX_GAP;
    }
    /* before expected, or exactly 2^31 away (unordered): never new, dropped as a duplicate */
    ncp_sat_inc(&p->st.rx_dup);
    p->ack_pending = 1;
    return XP_RX_DUP;
}



void xport_rx_absorb(struct xport_peer *p)
{
    uint32_t b = p->rsack >> 1; /* relative to the new expected */

    while (b & 1u) {
        p->expected++;
        b >>= 1;
    }
    p->rsack = b;
    if (!b)
        p->synced = 1; /* nothing held: the fast path may take the next one */
}

void xport_rx_accept_seq(struct xport_peer *p, uint32_t seq)
{
    uint32_t d = seq - p->expected;

    if (!d) {
        xport_rx_accept(p);
        return;
    }
    NCP_ASSERT(NCP_MOD_XPORT, 2, p->sr && d > 0u && d < XP_WIN);
    p->rsack |= 1u << d;
    p->synced = 2; /* packets held out of order: the general path's accept absorbs them */
    p->ack_pending = 1;
    ncp_sat_inc(&p->st.rx_ooo);
}

void xport_rx_renege(struct xport_peer *p, uint32_t seq)
{
    if (seq_lt(seq, p->expected)) { /* accepted in order: go back to it, forget what followed */
        p->expected = seq;
        p->rsack = 0;
    } else if (seq - p->expected < XP_WIN) {
        p->rsack &= ~(1u << (seq - p->expected));
    }
    if (!p->rsack)
        p->synced = 1;
    p->nack_valid = 0;
    p->ack_pending = 1;
}
