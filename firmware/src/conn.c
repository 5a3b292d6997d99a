/*
 * conn.c - connections: one per peer, each a transport state (firmware/lib/xport.c) plus what this
 * node advertises to the peer. Their initial sequence numbers and tokens come from the fabric
 * secret; the cumulative ACK we owe a peer goes out piggy-backed on a data packet, else as an ACK
 * frame once the data it covers is in host memory (conn_flush_acks).
 */
#include <string.h>

#include "completer.h"
#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "ops.h"
#include "responder.h"
#include "rx.h"
#include "tx.h"

/* This module's counters (gathered by conn_counters for STATS). */
static struct {
    uint32_t stall_giveups;
    uint32_t timeouts;
    uint32_t giveups;
    uint32_t defers; /* deadlines re-armed, not timeouts: the packet at una had not left (conn_defer) */
} conn_cnt;

const struct xport_cfg ncp_xcfg = {
    .rto = NCP_RTO, .nack_delay = NCP_NACK_DELAY, .miss_hold = NCP_NACK ? NCP_MISS_HOLD : 0u, .backoff_max = 5,
    .max_retries = 8, .jitter_shift = 2};

/*
 * How long the responder of an initiator's read may show no progress on our connections (ops.c,
 * "Read timeout") before the read fails NIC_ST_UNREACHABLE: longer than the responder retries a
 * packet to us before giving up (xport_giveup_span, 72.2 ms), plus one largest timeout for the ACKs
 * in between: a responder that is alive has made progress by then, or given up and sent the lost
 * segments again as void packets, which fail the read (cpl_on_giveup). 78.6 ms at 200 MHz.
 */
uint32_t ncp_read_timeout(void)
{
    return xport_giveup_span(&ncp_xcfg) + (ncp_xcfg.rto << ncp_xcfg.backoff_max);
}

void conn_flush_acks(void)
{
    /* Only the peers in ncp_work.peer_ack (a frame came from them, or their last receive DMA
     * completed, or one completed NCP_ACK_WAIT after the last ACK frame: ack_early) may have an ACK to
     * send now; afterwards none has: the ACK went out, or it waits for DMAs whose completion
     * (rx_dma_done) sets the bit again. */
    for (uint32_t i = 0, nw = pset_nwords(); i < nw; i++) {
        uint32_t m = ncp_work.peer_ack[i];
        ncp_work.peer_ack[i] &= ~m;
        for (; m; m &= m - 1) {
            uint16_t p = (uint16_t)(i * 32u + ncp_lowest_bit(m));
            struct ncp_peer *pp = &conn_peer(p);
            if (!pp->x.ack_pending)
                continue;
            if (pp->rx_dma_pending == 0) {
                uint32_t t0 = fp_now();
                pp->ack_val = pp->x.expected;
                cc_ack_moved(p, pp->ack_val); /* (flow control: its outstanding grant, congestion.c) */
                if (!tx_ack_fast(p))
                    tx_ctl(p, PKT_ACK, 0, 0, 0, 0);
                pp->x.ack_pending = 0;
                pp->ack_t = ncp.now;
                pp->ack_early = 0;
                fp_record(FP_ACK, fp_now() - t0, 0);
            } else if (pp->ack_early || cc_ack_early(p, pp->ack_val)) {
                /* what is in host memory so far: a peer whose packets keep coming, into a host DMA
                 * slower than its link (the DMAs never drain), hears within NCP_ACK_WAIT, not after
                 * its timeout; flow control's credit (congestion.h) */
                if (!tx_ack_fast(p))
                    tx_ctl(p, PKT_ACK, 0, 0, 0, 0);
                pp->ack_t = ncp.now;
                pp->ack_early = 0;
            }
        }
    }
}

/*
 * A timeout measures the network: a deadline that passed while the packet at una had not left this
 * node (its resend waits for a TX frame or DMA queue room, or its frame for its payload's DMA or
 * the frames before it: a node whose host DMA is loaded, by loopback traffic for one, takes longer than a timeout for
 * that), or that left less than a timeout ago, is re-armed (xport_defer), not counted as a
 * timeout. Not a NACK's hold (its end is the resend). Only when a deadline passed: the queue scan
 * is not per packet.
 */
static __attribute__((noinline)) int conn_defer(uint16_t p, struct xport_peer *x, uint32_t now)
{
    if (seq_lt(now, x->deadline) || x->nack_hold || x->una == x->nxt)
        return 0;
    /* the resend from una not built for want of a TX frame or DMA queue room (a resend that waits
     * for its source's translation is the host's wait: a timeout as before), or its frame queued */
    int unsent = tx_unsent(p, x->una);
    if (!unsent && pset_has(ncp_work.peer_rexmit, p) && x->rexmit == x->una) {
        tx_collect();
        unsent = !txs.free || !tx_room() || !dmaq_room(NCP_SEG_PIECES);
    }
    if (!xport_defer(x, &ncp_xcfg, now, unsent))
        return 0;
    ncp_sat_inc(&conn_cnt.defers);
    return 1;
}

/* The transport's timer source (timer.c): timeouts and give-ups of the peers with packets in flight. */
int conn_timer(uint32_t now, uint32_t *at)
{
    int armed = 0;

    if (ncp_work.ack_in)
        rx_ack_apply(); /* what arrived acknowledged is not timed out */

    for (uint32_t i = 0, nw = pset_nwords(); i < nw; i++) {
        for (uint32_t m = ncp_work.peer_tx[i]; m; m &= m - 1) { /* the others: una == nxt */
            uint16_t p = (uint16_t)(i * 32u + ncp_lowest_bit(m));
            struct xport_peer *x = &conn_peer(p).x;
            uint32_t timeouts = x->st.timeouts, stalls = x->st.stall_giveups;
            enum xport_tick_action t = XP_TICK_NONE;
            if (!conn_defer(p, x, now))
                t = xport_tick(x, &ncp_xcfg, now);
            if (x->st.timeouts != timeouts) /* not a NACK retry delay ending */
                ncp_sat_inc(&conn_cnt.timeouts);
            if (t == XP_TICK_GIVEUP) {
                uint32_t marks = 0;
                if (x->st.stall_giveups != stalls)
                    ncp_sat_inc(&conn_cnt.stall_giveups); /* the no-progress bound, not the retry limit */
                for (uint32_t s = x->una; s != x->nxt; s++)
                    cpl_on_giveup(xport_cookie(x, s), &marks);
                xport_giveup(x);
                ncp_sat_inc(&conn_cnt.giveups);
                if (p == ncp.me)
                    rx_loop_unhold(); /* its held loopback frame is of an operation just failed */
            }
            if (xport_rexmit_pending(x))
                pset_add(ncp_work.peer_rexmit, p); /* a timeout: resend from una */
            if (x->una == x->nxt)
                pset_del(ncp_work.peer_tx, p); /* nothing in flight */
            else if (!armed || seq_lt(x->deadline, *at)) {
                *at = x->deadline;
                armed = 1;
            }
        }
    }
    return armed;
}

/* This module's counters into the statistics (loop.c, ncp_counters_gather). */
void conn_counters(struct nic_stats *s, struct ncp_counters *k)
{
    ncp_sat_add(&s->stall_giveups, conn_cnt.stall_giveups);
    ncp_sat_add(&s->timeouts, conn_cnt.timeouts);
    ncp_sat_add(&k->giveups, conn_cnt.giveups);
    ncp_sat_add(&k->defers, conn_cnt.defers);
    _Static_assert(sizeof peer_st == 5 * sizeof(uint32_t), "nic_stats.peer_fills..peer_no_victim");
    for (uint32_t i = 0; i < 5; i++)
        ncp_sat_add(&(&s->peer_fills)[i], (&peer_st.fills)[i]);
}
