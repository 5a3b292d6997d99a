/*
 * timer.h - the timer service: the NCP's one hardware timer shared by every module with a deadline.
 *
 * A module with deadlines is a source (timer.c, `sources`): `X_timer(now, &at)` runs what is due at
 * `now` and returns 1 with its earliest deadline left in *at, or 0 when it has none. A module whose
 * deadline may have moved earlier than the programmed one (a packet into an empty window, an ACK or
 * NACK, an endpoint parking, a read put under its timer) calls timer_kick(): the next pass asks every
 * source again and programs the earliest. The timer may fire early (a deadline that moved later:
 * the sources are asked again and it is re-armed), never late.
 */
#ifndef NCP_TIMER_H
#define NCP_TIMER_H

#include "ncp.h"

/* Owned by timer.c: set by timer_kick, cleared by timer_poll. One byte, so that the fast paths'
 * kick is one store. */
extern uint8_t timer_kicked;
/* Owned by timer.c: the deadline the hardware timer is programmed to, and whether it is. */
extern uint32_t timer_at;
extern uint8_t timer_on;

/* A deadline may have moved earlier (or appeared): the sources are asked again in this pass. */
static inline void timer_kick(void)
{
    timer_kicked = 1;
}

/* timer_poll has work: the programmed deadline passed, or a deadline may have moved earlier. */
static inline int timer_due(void)
{
    return timer_kicked || (timer_on && seq_le(timer_at, ncp.now));
}

/* Runs the due sources and programs the earliest deadline (the loop calls it when timer_due). */
void timer_poll(void);

#endif /* NCP_TIMER_H */
