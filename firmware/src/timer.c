/*
 * timer.c - the timer service (timer.h): the core's one timer, shared by the modules that have
 * deadlines. Each source runs what is due and tells its earliest deadline left; the earliest of
 * them programs the hardware timer, which is reprogrammed only when that moved earlier or the
 * timer went off (a timer that fires early costs one pass over the sources).
 *
 * Sources, in the order they run:
 *   conn_timer  the transport: retransmission timeouts and give-ups (conn.c)
 *   req_timer   parked endpoints: a wake-up, so that a lost fill does not strand a request
 *               (requester.c)
 *   ops_timer   the initiator's read timeout (ops.c, "Read timeout")
 */
#include "conn.h"
#include "ncp.h"
#include "ops.h"
#include "requester.h"
#include "timer.h"

uint8_t timer_kicked;
uint32_t timer_at;
uint8_t timer_on;

typedef int (*timer_source_fn)(uint32_t now, uint32_t *at);
static const timer_source_fn sources[] = {conn_timer, req_timer, ops_timer};

void timer_poll(void)
{
    uint32_t next = 0, at;
    int armed = 0;

    if (!timer_due())
        return; /* no deadline passed, none moved earlier: nothing to do */
    timer_kicked = 0;
    for (unsigned i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (sources[i](ncp.now, &at) && (!armed || seq_lt(at, next))) {
            next = at;
            armed = 1;
        }
    if (armed) {
        if (!timer_on || seq_lt(next, timer_at) || seq_le(timer_at, ncp.now)) {
            hal_timer_at(next);
            timer_at = next;
            timer_on = 1;
        }
    } else if (timer_on) {
        hal_timer_off();
        timer_on = 0;
    }
}
