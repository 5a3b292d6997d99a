/*
 * evlog.h - the JSON-lines event log (nicsim --events FILE): one object a line,
 *   {"cycle":C,"ns":T,"node":N,"event":"...", ...}
 * from what the harness observes without the firmware's help:
 *   the driver (nicdrv_config.observe): "miss", "fill", "fill_rejected", "invalidate" with
 *     "cache" (pch/cbh/vmh), "pid", "key"; node = the driver's node
 *   the switch (frames as the NICs hand them in): "nack" with "reason" (GAP, MISS, PROTECTION,
 *     MALFORMED, BUSY) and "resume" (a NACK RESUME), node = the NACK's sender, "peer", "seq";
 *     "retransmit": a sequenced frame (WRITE, READ_REQ, READ_RESP) whose sequence number its
 *     sender already used towards that peer, node = sender; "giveup": the first RESYNC-flagged
 *     frame after a give-up (the sender restarted its sequence towards "peer": the give-up
 *     itself is inside the NCP and shows on the wire only then)
 *
 * Contract: single-threaded; lines in simulated-time order (kept and sorted: the switch's tap sees a
 * quantum's frames at its end, the driver's observations come as they happen; equal cycles in call
 * order); evlog_close writes them (-1: a write failed).
 */
#ifndef EVLOG_H
#define EVLOG_H

#include <stddef.h>
#include <stdint.h>

#include "sim_time.h"

typedef struct evlog evlog_t;

evlog_t *evlog_open(const char *path, uint64_t clock_hz); /* NULL with errno */
/* A frame handed to the switch at `now` (call it from the switch tap). */
void evlog_frame(evlog_t *e, sim_cycle_t now, const uint8_t *frame, size_t len);
/* A driver observation (nicdrv_config.observe) on node `node` at `now`. */
void evlog_driver(evlog_t *e, sim_cycle_t now, unsigned node, const char *kind, unsigned cache, uint16_t pid,
                  uint32_t key);
uint64_t evlog_lines(const evlog_t *e);
int evlog_close(evlog_t *e);

#endif /* EVLOG_H */
