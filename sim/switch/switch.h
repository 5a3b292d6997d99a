/*
 * switch.h - the switch joining the nodes of a simulated cluster.
 *
 * Role map: one instance per cluster; port p is node p's link. A frame handed in at an input
 * port (switch_ingress, when the node's MAC has finished sending it) goes to the output port
 * named by its link-layer header, waits in that port's output queue, is serialized at the port's
 * bandwidth, and is handed out (switch_egress) the port's latency after its first bit leaves:
 * the receiving PHY (the node harness) clocks the frame in at the port's rate, so its last bit
 * arrives latency after its serialization on the output link ends. Store-and-forward, output
 * queued; each link serializes a frame once (the sender's MAC on the input link, the receiver's
 * PHY on the output link).
 *
 * Link-layer header (the only bytes the switch reads): bytes 0-1 are the destination node id,
 * big-endian; 0xFFFF is broadcast (a copy to every other port). The rest of the frame, including
 * the 4-byte CRC-32 FCS the MAC appends, is opaque. Frames are SWITCH_MIN_FRAME..SWITCH_MAX_FRAME
 * bytes (16 KiB payload plus headers and FCS).
 *
 * Timing of a frame of len bytes to port o, accepted at cycle now:
 *   start = max(now, when o's link is free); o's link is busy until start + (len + gap_bytes)*8 /
 *   bits_per_cycle (exact, kept in bit-time units; gap_bytes: Ethernet's preamble, start delimiter
 *   and inter-frame gap, 20); handed out at ceil(start) + latency[o] (+ an injected delay, see
 *   below), to be clocked in over its serialization time.
 * Output queue: the line bytes (frames and their gaps) not yet serialized at o. A frame that would
 * push them above queue_bytes is dropped (drop-tail, counted as queue_drops). Delivered frames wait in per-port
 * slots until the harness pops them; if all slots_per_port slots are taken the frame is dropped
 * too (slot_drops: the harness is not draining the port).
 *
 * Fault injection (deterministic, seeded): three fault sets apply to each frame copy: the global
 * set, the input port's link set and the output port's link set (link sets default to none).
 * Each set has a probability per frame for each kind:
 *   drop       the frame vanishes (counted)
 *   duplicate  a second copy is delivered (each copy then draws its own corruption and delay)
 *   corrupt    a burst of 1..32 bit flips within a 32-bit window at a random position in the
 *              frame (FCS included); CRC-32 detects every burst of 32 bits or less, so the RX MAC
 *              must catch every corrupted frame
 *   delay      extra delay uniform in [1, delay_max] cycles added after serialization, so later
 *              frames can overtake (reorder); the output link is not held up
 * Each port has its own generator stream (seed, port), used for the global and input-link sets
 * (draws at the input port) and the output-link set (draws at the output port); a rate of 0 or 1
 * draws nothing. Same seed and same sequence of calls -> the same run, bit for bit.
 *
 * Congestion marking (cfg.ecn_bytes, ECN-like; docs/wire-protocol.md "Flow and congestion control"):
 * a frame enqueued while its output queue holds more than ecn_bytes line bytes gets the bits
 * ecn_mask set in its byte ecn_offset (the NCP header's flags: PKT_F_CE), and its FCS updated
 * so that it stays exactly as right or wrong as it was (a corrupted frame still fails the MAC's
 * check); counted in ecn_marked. 0 (default): no marking. Frames too short for the offset, or
 * already marked, are left alone.
 *
 * Source check (cfg.check_src, docs/wire-protocol.md "Threat model"): the fabric knows which node
 * is on which port (port p = node p), as an InfiniBand switch knows its ports' LIDs. With the
 * check on, a unicast frame whose source field (bytes 2-3, big-endian) is not its ingress port is
 * dropped and counted (src_spoofed): no node can send a frame in another node's name. Off by
 * default in the switch model; the cluster turns it on unless told not to.
 *
 * Pause (cfg.pause, 802.3x-style link flow control; docs/wire-protocol.md "Link pause"): a port's
 * receiver (the node's MAC, whose receive ring is nearly full) asks the switch to stop sending to it
 * (switch_pause on) and to go on (off). From the cycle of the request on no frame starts on that
 * output link: frames whose serialization started earlier are delivered; frames that were to
 * start at or after it (queued behind others) are taken back and wait, with every frame accepted
 * meanwhile, in acceptance order, counted in the queue's backlog (queue_bytes: a paused port's
 * queue still drops its tail when full) and its slots. At "off" they start in that order, the
 * first at once or when the link is free. The harness makes the request the link's latency after
 * the MAC's signal changes (at the next quantum boundary: sim/node/cluster.c). Off (the default):
 * requests change nothing.
 *
 * Tap (switch_set_tap): a harness callback that sees every frame handed in, before routing (a
 * test's wiretap: the malicious-node test records real frames to replay them).
 *
 * Contract: single-threaded; create/destroy; all storage bounded (slots allocated on first use,
 * SWITCH_MAX_FRAME bytes each). Counters saturate.
 */
#ifndef SWITCH_H
#define SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_err.h"
#include "sim_time.h"

#define SWITCH_MAX_PORTS 256
#define SWITCH_MIN_FRAME 6 /* destination (2) + FCS (4) */
#define SWITCH_MAX_FRAME (16384 + 128)
#define SWITCH_BROADCAST 0xFFFFu
#define SWITCH_GAP_BYTES 20 /* Ethernet: preamble 7, start delimiter 1, inter-frame gap 12 */

typedef struct sim_switch switch_t;

struct switch_faults {
    double drop, duplicate, corrupt, delay; /* probability per frame, 0..1 */
    sim_cycle_t delay_max;                  /* extra delay bound (default 2000 = 10 us) */
};

struct switch_port_config {
    uint32_t bits_per_cycle; /* default 50: 10 Gb/s at 200 MHz */
    sim_cycle_t latency;     /* cycles from end of serialization to delivery (default 100) */
};

struct switch_config {
    uint32_t nports;                /* 2..SWITCH_MAX_PORTS */
    struct switch_port_config port; /* every port starts with this */
    uint32_t queue_bytes;           /* output queue bound per port, line bytes (default 65536) */
    uint32_t gap_bytes;             /* line bytes per frame beyond its own (default 20; 0..1024) */
    uint32_t slots_per_port;        /* delivered-but-not-popped plus queued frames (default 64) */
    uint64_t seed;
    struct switch_faults faults; /* global set (default none) */
    bool check_src;              /* drop frames whose source field is not their ingress port */
    uint32_t ecn_bytes;          /* mark frames queued above this many line bytes (0: never) */
    uint16_t ecn_offset;         /* the byte marked (default 5: the NCP header's flags) */
    uint8_t ecn_mask;            /* the bits set (default 0x10: PKT_F_CE) */
    bool pause;                  /* honour the receivers' pause requests (switch_pause; default off) */
};

struct switch_port_counters {
    uint64_t rx_frames, rx_bytes; /* handed in at this port */
    uint64_t tx_frames, tx_bytes; /* delivered out of this port */
    uint64_t rx_bad;              /* rejected: length out of range */
    uint64_t bad_dest;            /* destination is not a port */
    uint64_t queue_drops, slot_drops;
    uint64_t src_spoofed;         /* handed in here with another port's source id: dropped */
    uint64_t ecn_marked;          /* queued to this port above cfg.ecn_bytes: marked (delivered) */
    uint64_t pauses, paused_cycles; /* pause requests honoured at this output port, cycles paused (counted
                                     * at each resume: a pause still on at the end is not) */
    /* faults on frames headed to this port */
    uint64_t fault_drop, fault_duplicate, fault_corrupt, fault_delay;
};

void switch_config_default(struct switch_config *cfg, uint32_t nports);
/* NULL if cfg is invalid or memory is short. */
switch_t *switch_create(const struct switch_config *cfg);
void switch_destroy(switch_t *sw); /* NULL is fine */

/* SIM_OK or SIM_EINVAL (port, zero bandwidth, rates outside 0..1, delay_max 0 with delay > 0). */
int switch_set_port(switch_t *sw, uint32_t port, const struct switch_port_config *pc);
int switch_set_link_faults(switch_t *sw, uint32_t port, const struct switch_faults *f);
int switch_set_global_faults(switch_t *sw, const struct switch_faults *f);

/* Hand in a frame (copied) at cycle now; time must not go backwards. SIM_OK once the frame is
 * taken, whatever then happens to it (delivery, drop: see the counters), SIM_EINVAL for a bad
 * port or length (counted as rx_bad). */
int switch_ingress(switch_t *sw, sim_cycle_t now, uint32_t port, const void *frame, size_t len);
/* Pop the next frame delivered to port by now (earliest delivery first, ties in acceptance
 * order). SIM_OK, SIM_EAGAIN (none due), SIM_EINVAL (port, or cap < the frame: it stays). */
int switch_egress(switch_t *sw, sim_cycle_t now, uint32_t port, void *buf, size_t cap, size_t *len);
sim_cycle_t switch_port_next_event(const switch_t *sw, uint32_t port);
/* The receiver on port asks the switch to stop (on) or resume (off) sending to it from cycle now
 * on (see "Pause" above); now must not go backwards. SIM_OK (nothing when cfg.pause is off, the
 * port is not this process's, or the state is already so), SIM_EINVAL for a bad port. */
int switch_pause(switch_t *sw, sim_cycle_t now, uint32_t port, bool on);
bool switch_paused(const switch_t *sw, uint32_t port);
bool switch_pause_enabled(const switch_t *sw);
sim_cycle_t switch_port_latency(const switch_t *sw, uint32_t port); /* SIM_CYCLE_NEVER: bad port */
sim_cycle_t switch_next_event(const switch_t *sw);

typedef void (*switch_tap_fn)(void *ctx, sim_cycle_t now, uint32_t port, const uint8_t *frame, size_t len);
void switch_set_tap(switch_t *sw, switch_tap_fn fn, void *ctx); /* NULL: none */
void switch_set_check_src(switch_t *sw, bool on);

/* ---- one switch over several processes (docs/simulation-speed.md "Ranks") ----
 * Every process holds a replica of the whole switch and owns some ports (its nodes' links).
 * Deferred ingress: switch_ingress only records the frame (time, port, bytes); the records of every
 * process are applied together by switch_apply in the order one process would have handed them in
 * (cycle, then port, then as recorded), so the routing, faults and their generator draws are the
 * same in every replica and for any number of processes. A frame is enqueued and delivered only
 * by the process that owns its output port (switch_set_local); the counters of port p are those of
 * p's owner. A frame handed in at cycle t is delivered at t + latency or later, so records applied
 * within the minimum latency (switch_min_latency, the lookahead) of their time are never late. */
void switch_set_deferred(switch_t *sw, bool on);
int switch_set_local(switch_t *sw, uint32_t port, bool local); /* default: every port local */
bool switch_port_local(const switch_t *sw, uint32_t port);
/* The records handed in since the last clear (bytes; frames may be NULL). */
const uint8_t *switch_pending(const switch_t *sw, size_t *bytes, size_t *frames);
void switch_pending_clear(switch_t *sw);
/* Applies the records of nblocks processes: SIM_OK, SIM_EINVAL (a malformed record: nothing
 * applied), SIM_ENOMEM. */
int switch_apply(switch_t *sw, const uint8_t *const *blocks, const size_t *lens, unsigned nblocks);
sim_cycle_t switch_min_latency(const switch_t *sw);

const struct switch_port_counters *switch_port_counters(const switch_t *sw, uint32_t port);
void switch_totals(const switch_t *sw, struct switch_port_counters *sum);
uint32_t switch_nports(const switch_t *sw);

#endif /* SWITCH_H */
