/*
 * timer.c - the timer service and the transport's timeouts. The core has one timer; every module
 * that has a deadline says so through timer_kick (a deadline may have moved earlier), and
 * timer_poll scans the sources, runs what is due (retransmission timeouts and give-ups, the retry
 * of parked endpoints, the initiator's read timeout) and programs the earliest deadline.
 */
#include "completer.h"
#include "conn.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "ops.h"
#include "timer.h"

void timer_poll(void)
{
    uint32_t next = 0;
    int armed = 0;
    struct ncp_work *w = &ncp_work;

    if (!timer_due())
        return; /* no deadline passed, none moved earlier: nothing to tick */
    w->tick = 0;
    for (uint32_t m = w->peer_tx & ncp_peer_mask(); m; m &= m - 1) { /* the others: una == nxt */
        uint16_t p = (uint16_t)ncp_lowest_bit(m);
        struct xport_peer *x = &ncp.peer[p].x;
        uint32_t timeouts = x->st.timeouts, stalls = x->st.stall_giveups;
        enum xport_tick_action t = xport_tick(x, &ncp_xcfg, ncp.now);
        if (x->st.timeouts != timeouts) /* not a NACK retry delay ending */
            ncp_sat_inc(&ncp.c.s.timeouts);
        if (t == XP_TICK_GIVEUP) {
            uint32_t marks = 0;
            if (x->st.stall_giveups != stalls)
                ncp_sat_inc(&ncp.c.s.stall_giveups); /* the no-progress bound, not the retry limit */
            for (uint32_t s = x->una; s != x->nxt; s++)
                cpl_on_giveup(xport_cookie(x, s), &marks);
            xport_giveup(x);
            ncp_sat_inc(&ncp.c.giveups);
        }
        if (x->una == x->nxt)
            w->peer_tx &= ~(1u << p); /* nothing in flight */
        else if (!armed || seq_lt(x->deadline, next)) {
            next = x->deadline;
            armed = 1;
        }
    }
    for (uint32_t m = w->ep_parked; m && !armed; m &= m - 1) {
        uint32_t e = ncp_lowest_bit(m);
        if (ncp.ep[e].state == EP_PARKED) { /* a lost fill must not strand a request */
            next = ncp.now + NCP_RTO;
            armed = 1;
        }
    }
    /* initiator reads waiting for responses (ops.c "Read timeout"): scanned only when the
     * earliest may have timed out */
    if (w->reads && seq_le(w->read_at, ncp.now))
        ops_read_check();
    if (w->reads && (!armed || seq_lt(w->read_at, next))) {
        next = w->read_at;
        armed = 1;
    }
    /* The timer may fire early (a deadline that moved later: this scan runs again and re-arms it),
     * never late: reprogrammed when the earliest deadline moved earlier or the timer went off. */
    if (armed) {
        if (!w->timer_on || seq_lt(next, w->timer_at) || seq_le(w->timer_at, ncp.now)) {
            hal_timer_at(next);
            w->timer_at = next;
            w->timer_on = 1;
        }
    } else if (w->timer_on) {
        hal_timer_off();
        w->timer_on = 0;
    }
}
