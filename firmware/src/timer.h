/*
 * timer.h - the timer service and the transport timeouts: timer.c.
 */
#ifndef NCP_TIMER_H
#define NCP_TIMER_H

#include "ncp.h"

/* timer_poll has work: the programmed deadline passed, or a deadline may have moved earlier. */
static inline int timer_due(void)
{
    return ncp_work.tick || (ncp_work.timer_on && seq_le(ncp_work.timer_at, ncp.now));
}

void timer_poll(void);

#endif /* NCP_TIMER_H */
