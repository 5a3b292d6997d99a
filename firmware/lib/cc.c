/*
 * cc.c - flow control credits and the ECN-driven AIMD window (see cc.h).
 */
#include "cc.h"

#include <string.h>

static uint32_t clampu(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

uint32_t cc_tx_window(const struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts, uint32_t una)
{
    uint32_t w = cfg->win_max;

    if ((opts & CC_OPT_CC) && t->cwnd / CC_FRAC < w)
        w = t->cwnd / CC_FRAC;
    if ((opts & CC_OPT_FC) && t->lim_on) {
        uint32_t f = seq_lt(una, t->lim) ? t->lim - una : 0;
        if (f < w)
            w = f;
    }
    return w ? w : 1u;
}

void cc_tx_init(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t una, uint32_t opts)
{
    memset(t, 0, sizeof *t);
    t->cwnd = clampu(cfg->win_init, cfg->win_min, cfg->win_max) * CC_FRAC;
    t->una = una;
    t->lim = una + cfg->credit_init;
    t->lim_on = cfg->credit_init != 0;
    t->win = cc_tx_window(t, cfg, opts, una);
}

int cc_tx_update(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts, uint32_t una, uint32_t nxt, int ece,
                 int credit_valid, uint32_t ack, uint32_t credit)
{
    uint32_t acked = seq_lt(t->una, una) ? una - t->una : 0;
    int cut = 0;

    t->una = una;
    if (credit_valid) {
        /* forward only: a reordered older ACK frame does not take back a grant */
        if (!credit || !t->lim_on || seq_lt(t->lim, ack + credit))
            t->lim = ack + credit;
        t->lim_on = credit != 0;
    }
    if (t->cut_valid && seq_lt(t->cut_seq, una))
        t->cut_valid = 0; /* a packet sent after the cut is acknowledged: a round trip later */
    if (opts & CC_OPT_CC) {
        uint32_t lo = cfg->win_min * CC_FRAC, hi = cfg->win_max * CC_FRAC;
        if (ece && !t->cut_valid) {
            t->cwnd = clampu(t->cwnd / 2u, lo, hi);
            t->cut_seq = nxt;
            t->cut_valid = 1;
            cut = 1;
        } else if (!ece && acked) {
            /* one packet per window acknowledged: cwnd/CC_FRAC acks add CC_FRAC (acked is at
             * most XP_WIN: no overflow) */
            t->cwnd += (acked * CC_FRAC * CC_FRAC + t->cwnd - 1u) / t->cwnd;
            if (t->cwnd > hi)
                t->cwnd = hi;
        }
    }
    t->win = cc_tx_window(t, cfg, opts, una);
    return cut;
}

uint32_t cc_grant(const struct cc_cfg *cfg, uint32_t others, uint32_t holders)
{
    uint32_t h = holders ? holders : 1u, g = (cfg->rx_slots + h - 1u) / h; /* rounded up: the free
                                                                         * part bounds the sum */
    uint32_t free = others < cfg->rx_slots ? cfg->rx_slots - others : 0;

    if (free < g)
        g = free;
    return g < 1u ? 1u : g > 255u ? 255u : g;
}
