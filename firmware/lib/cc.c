/*
 * cc.c - flow control credits and the ECN-driven AIMD window (see cc.h).
 */
#include "cc.h"

#include <string.h>

static uint32_t clampu(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

uint32_t cc_tx_window(const struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts)
{
    uint32_t w = cfg->win_max;

    if ((opts & CC_OPT_CC) && t->cwnd / CC_FRAC < w)
        w = t->cwnd / CC_FRAC;
    if ((opts & CC_OPT_FC) && t->credit && t->credit < w)
        w = t->credit;
    return w ? w : 1u;
}

void cc_tx_init(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t una, uint32_t opts)
{
    memset(t, 0, sizeof *t);
    t->cwnd = clampu(cfg->win_init, cfg->win_min, cfg->win_max) * CC_FRAC;
    t->credit = cfg->credit_init;
    t->una = una;
    t->win = cc_tx_window(t, cfg, opts);
}

int cc_tx_update(struct cc_tx *t, const struct cc_cfg *cfg, uint32_t opts, uint32_t una, uint32_t nxt, int ece,
                 int credit_valid, uint32_t credit)
{
    uint32_t acked = seq_lt(t->una, una) ? una - t->una : 0;
    int cut = 0;

    t->una = una;
    if (credit_valid)
        t->credit = credit;
    if (t->cut_valid && !seq_lt(una, t->cut_seq))
        t->cut_valid = 0; /* the packets in flight at the cut are acknowledged */
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
    t->win = cc_tx_window(t, cfg, opts);
    return cut;
}

uint32_t cc_credit(struct cc_share *s, uint32_t *peer_epoch, const struct cc_cfg *cfg, uint32_t now)
{
    uint32_t e = (now >> cfg->active_shift) + 1u, n;

    if (e == 0)
        e = 1; /* (0 means never) */
    if (e != s->epoch) {
        s->prev = e == s->epoch + 1u ? s->cur : 0;
        s->cur = 0;
        s->epoch = e;
    }
    if (*peer_epoch != e) {
        *peer_epoch = e;
        s->cur++;
    }
    n = s->cur > s->prev ? s->cur : s->prev;
    n = cfg->rx_slots / (n ? n : 1u);
    return n ? (n > 255u ? 255u : n) : 1u;
}
