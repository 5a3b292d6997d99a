/*
 * congestion.c - flow control and congestion control per connection (congestion.h; the rules:
 * firmware/lib/cc.c).
 *
 * Receiver: a frame marked CE by the switch (a sequenced packet) is counted and owed an echo; the
 * next stand-alone ACK frame to its sender carries PKT_F_ECE and, with flow control, the credit
 * (cc_credit: the RX ring less a reserve, shared among the peers acknowledged lately). Sender:
 * each frame from a peer updates its window (cc_tx_update) from the ACK it carried, its echo and
 * its credit. None of this is on the fast paths: rx_fast leaves CE-marked frames to on_frame, and
 * ACK frames always take it.
 */
#include "congestion.h"

#include <string.h>

#include "conn.h"

#define RX_SLOTS (1u << NCP_RX_LOG2)
#define CC_RX_RESERVE 2u /* ring entries kept for control frames (ACKs, NACKs) */

static const struct cc_cfg cc_cfg = {
    /* (a 32-entry ring with a pool of 30 was tried: the senders' bursts exceeded the switch's
     * 16-frame output queue, docs/nicsim.md "Incast") */
    .rx_slots = RX_SLOTS - CC_RX_RESERVE,
    .credit_init = 1u, /* until the first ACK frame: several senders may start at once */
    .win_init = 1u, /* 8 senders starting together must fit the switch queue (2 x 8 x 4 KiB did not) */
    .win_min = 1u,
    .win_max = XP_WIN,
};
_Static_assert(XP_WIN <= 255u, "cc_win is 8-bit");

uint32_t cc_opts;
uint8_t cc_win[NCP_MAX_PEERS];
static struct cc_tx cc_tx[NCP_MAX_PEERS];
uint32_t cc_lim[NCP_MAX_PEERS];             /* receiver: the limit granted to each sender */
static uint8_t cc_granted[NCP_MAX_PEERS];   /* receiver: cc_lim was granted (may be outstanding) */
static uint32_t cc_acked[NCP_MAX_PEERS];    /* receiver: the ACK of the last grant */
static uint8_t cc_echo[NCP_MAX_PEERS];      /* a CE mark from this peer not yet echoed */
/*
 * receiver: the outstanding grants' sum, kept as they change (grant() was a loop over the senders
 * holding a grant, ~240 cycles per ACK frame in an 8-to-1 incast, ~140 per packet). A sender's
 * outstanding grant is cc_lim less its ack_val (the ACK we could give it now), counted when it is
 * positive, it was granted and its context is resident (one that is not is quiet: not counted, as
 * before). cc_held is what the sum holds for each peer; cc_out_sync brings a peer's part up to date
 * wherever its terms change: a grant (cc_lim), its ack_val (conn.c, rx.c), its context becoming
 * resident or leaving (peerctx.c), INIT (zero). (congestion.h: cc_ack_moved, inline.)
 */
uint8_t cc_held[NCP_MAX_PEERS];
/*
 * receiver: cc_grant's equal share of the pool per number of holders (cc_grant(&cc_cfg, 0, h): the
 * pool rounded up over h), so that a credit costs no divide (33 cycles on the core, once per ACK
 * frame: cc_grant_fast). Beyond RX_SLOTS holders the share is 1 (cc_grant's rounding).
 */
static uint8_t cc_share[RX_SLOTS + 1u];
uint32_t cc_sum;     /* sum of cc_held */
uint32_t cc_holders; /* peers with cc_held > 0 */

static struct {
    uint32_t ce_received;
    uint32_t cc_cuts;
} cc_cnt;

void cc_setup(uint32_t opts)
{
    cc_opts = opts;
    memset(cc_granted, 0, sizeof cc_granted);
    memset(cc_echo, 0, sizeof cc_echo);
    memset(cc_held, 0, sizeof cc_held);
    cc_sum = cc_holders = 0;
    for (uint32_t h = 0; h <= RX_SLOTS; h++)
        cc_share[h] = (uint8_t)cc_grant(&cc_cfg, 0, h);
    /* (no connection exists yet: INIT reset them; peerctx.c calls cc_peer_start as each is created) */
}

void cc_peer_start(uint16_t p, uint32_t una, uint32_t ack_val)
{
    cc_tx_init(&cc_tx[p], &cc_cfg, una, cc_opts);
    cc_win[p] = (uint8_t)cc_tx[p].win; /* XP_WIN when off (cc_granted, cc_echo: zero since INIT) */
    if (cc_opts & CC_OPT_FC) {
        /* receiver: the peer may send credit_init packets before our first ACK frame (its sender
         * side starts there, cc_tx_init): a grant like any other, outstanding until its packet is
         * in host memory. Without it, 12 senders' first packets were not counted while the first
         * ACK frame granted one of them the whole pool, and the ring overran (rx_nobuf). */
        cc_lim[p] = ack_val + cc_cfg.credit_init;
        cc_acked[p] = ack_val;
        cc_granted[p] = 1; /* (counted by the cc_out_sync of the context becoming resident) */
    }
}

void cc_on_frame(uint16_t peer, const struct pkt_hdr *h)
{
    if ((h->flags & PKT_F_CE) && pkt_is_sequenced(h->type)) {
        ncp_sat_inc(&cc_cnt.ce_received);
        cc_echo[peer] = 1;
    }
    if (!cc_opts)
        return;
    const struct xport_peer *x = &conn_peer(peer).x;
    int is_ack = h->type == PKT_ACK;
    if (cc_tx_update(&cc_tx[peer], &cc_cfg, cc_opts, x->una, x->nxt, is_ack && (h->flags & PKT_F_ECE), is_ack,
                     h->ack, PKT_CREDIT(h->reason)))
        ncp_sat_inc(&cc_cnt.cc_cuts);
    cc_win[peer] = (uint8_t)cc_tx[peer].win;
}

/* Peer p's outstanding grant, as the sum counts it (a limit granted at most 255 beyond an ACK). */
static uint32_t outstanding(uint16_t p)
{
    uint32_t out = cc_lim[p] - conn_pp[p]->ack_val;
    if (!cc_granted[p] || !conn_resident(p) || !seq_lt(0, out))
        return 0;
    return out < 255u ? out : 255u;
}

void cc_out_sync(uint16_t p)
{
    uint32_t was = cc_held[p], now = outstanding(p);
    cc_held[p] = (uint8_t)now;
    cc_sum += now - was;
    cc_holders += (uint32_t)(now != 0) - (uint32_t)(was != 0);
}

/* cc_grant(&cc_cfg, others, holders) from the table of shares: the same rule (lib/cc.c), no divide. */
static uint32_t cc_grant_fast(uint32_t others, uint32_t holders)
{
    uint32_t g = holders <= RX_SLOTS ? cc_share[holders] : 1u;
    uint32_t free = others < cc_cfg.rx_slots ? cc_cfg.rx_slots - others : 0;

    if (free < g)
        g = free;
    return g < 1u ? 1u : g;
}

/*
 * The credit for an ACK frame `ack` to `peer`: the other senders' outstanding grants (their limit
 * less the ACK we could give them now: their packets from there on may be in our ring) and the
 * senders holding one go to cc_grant; a grant never moves a sender's limit back (it may have sent
 * up to it). O(1): the sum is kept as its terms change (cc_out_sync).
 */
static uint32_t grant(uint16_t peer, uint32_t ack)
{
    uint32_t own = cc_held[peer];
    uint32_t others = cc_sum - own, holders = cc_holders - (uint32_t)(own != 0) + 1u, c;

    c = cc_grant_fast(others, holders);
    if (cc_granted[peer] && seq_lt(ack + c, cc_lim[peer]) && cc_lim[peer] - ack <= 255u)
        c = cc_lim[peer] - ack;
    cc_lim[peer] = ack + c;
    cc_acked[peer] = ack;
    cc_granted[peer] = 1;
    /* its part of the sum: c (ack is its ack_val, tx_ctl's; resident; 1 <= c <= 255) */
    cc_sum += c - own;
    cc_holders += (uint32_t)(own == 0);
    cc_held[peer] = (uint8_t)c;
    return c;
}

#ifdef NCP_HOST
int cc_grant_fast_check(uint32_t others, uint32_t holders)
{
    return cc_grant_fast(others, holders) == cc_grant(&cc_cfg, others, holders);
}

int cc_out_audit(uint32_t *sum, uint32_t *holders)
{
    uint32_t s = 0, h = 0;
    for (uint16_t p = 0; p < NCP_MAX_PEERS; p++) {
        uint32_t out = cc_lim[p] - conn_pp[p]->ack_val;
        if (cc_granted[p] && conn_resident(p) && seq_lt(0, out)) { /* (the loop grant() was) */
            s += out;
            h++;
        }
    }
    *sum = cc_sum;
    *holders = cc_holders;
    return s == cc_sum && h == cc_holders;
}
#endif

int cc_ack_early(uint16_t peer, uint32_t ack)
{
    uint32_t half = (cc_lim[peer] - cc_acked[peer]) / 2u;
    /* (not for grants below 4: with many senders the receiver's core pays an ACK frame per packet) */
    return (cc_opts & CC_OPT_FC) && cc_granted[peer] && half >= 2u && seq_lt(cc_acked[peer], ack) &&
           ack - cc_acked[peer] >= half;
}

void cc_ack_fields(uint16_t peer, uint32_t ack, uint32_t *flags, uint32_t *reason)
{
    if ((cc_opts & CC_OPT_CC) && cc_echo[peer])
        *flags |= PKT_F_ECE;
    cc_echo[peer] = 0;
    if (cc_opts & CC_OPT_FC)
        *reason = (*reason | grant(peer, ack) << 8) & 0xFFFFu;
}

void cc_counters(struct nic_stats *s, struct ncp_counters *k)
{
    (void)k;
    ncp_sat_add(&s->ce_received, cc_cnt.ce_received);
    ncp_sat_add(&s->cc_cuts, cc_cnt.cc_cuts);
}

_Static_assert(CC_OPT_FC == NIC_XOPT_FLOW && CC_OPT_CC == NIC_XOPT_CONGESTION, "INIT's option bits are cc.h's");
