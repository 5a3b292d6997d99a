/*
 * cluster.h - N nodes on a switch, host coroutines, and the simulation loop.
 *
 * Each cycle: host coroutines due at this cycle run (they issue MMIO, touch memory), then every
 * node clocks once (in node-id order), then the stop predicate is asked. When every node is
 * quiescent (cores in wfi, engines idle, nothing in flight at the harness) the loop jumps to the
 * earliest next event of any node, the switch or the coroutines, advancing each NIC's timer and
 * cycle counter by the gap so firmware-visible time stays exact (--no-skip turns this off; the
 * result must be the same, only slower: tests check it).
 *
 * With quanta and ranks (cfg.quanta, cfg.dist) each rank clocks its own nodes and the ranks meet
 * once per quantum (cluster_set_sync); idle skipping is then decided at boundaries only, by all
 * ranks together (a jump when every node of every rank is quiescent), so that the run is the same
 * for any number of ranks.
 *
 * Contract: single-threaded; the cluster owns its nodes, switch and scheduler.
 */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "coro.h"
#include "costs.h"
#include "dist.h"
#include "node.h"
#include "switch.h"

#define CLUSTER_MAX_NODES 256 /* the switch's ports (SWITCH_MAX_PORTS) */

typedef struct cluster cluster_t;

struct cluster_config {
    unsigned nodes;          /* 2..CLUSTER_MAX_NODES (1 allowed: no switch traffic) */
    struct switch_config sw; /* nports is set to nodes */
    struct node_config node; /* template; id, seeds and console are set per node */
    bool skip_idle;          /* default true */
    uint64_t clock_hz;       /* nominal clock for ns figures (default 200 MHz) */
    uint64_t seed;           /* derives the switch and per-node seeds */
    FILE *console;           /* node console lines (default stdout) */
    /* Quanta (docs/simulation-speed.md "Ranks"): the run advances in quanta of the switch's
     * minimum latency; frames handed to the switch are applied at the quantum's end (deferred
     * ingress), the sync hooks (cluster_set_sync) run there and the stop predicate is asked only
     * there. Results are then the same for any number of ranks. Off: every cycle, as before. */
    bool quanta;
    dist_t *dist; /* with quanta: the ranks the nodes are spread over (NULL: one process) */
    /* With quanta: node i lives on rank rank_of[i] (nodes entries, each < the number of ranks,
     * every rank at least one node); NULL: contiguous blocks in node order (cluster_assign_blocks).
     * Copied at cluster_create. The results are the same for any assignment. */
    const uint16_t *rank_of;
};

/* The default assignment: rank r holds nodes [nodes*r/K, nodes*(r+1)/K). */
void cluster_assign_blocks(unsigned nodes, unsigned nranks, uint16_t *rank_of);

struct cluster_stats {
    sim_cycle_t cycles;      /* simulated */
    uint64_t cycles_clocked; /* NIC clocks actually evaluated (per cluster, not per node) */
    uint64_t skips;          /* idle jumps */
    double wall_s;
    double cpu_s;            /* this process's CPU time in cluster_run (waits for other ranks included) */
    /* quantum boundaries of this rank (cluster_run's and cluster_boundary's): how many, and the
     * CPU and wall seconds spent in them (packing, the exchange with its wait, applying); the
     * rest of cpu_s is the clocking of this rank's nodes and its coroutines */
    uint64_t boundaries;
    double boundary_cpu_s, boundary_wall_s;
};

typedef bool (*cluster_stop_fn)(cluster_t *c, void *ctx);

void cluster_config_default(struct cluster_config *cfg, unsigned nodes);
cluster_t *cluster_create(const struct cluster_config *cfg, const costs_t *costs);
void cluster_destroy(cluster_t *c);

/* Runs until stop() returns true (checked every cycle) or until max_cycles have passed in total.
 * Returns 0 when stopped by the predicate, 1 on reaching max_cycles. progress (may be NULL) gets a
 * line every ~second of wall time: simulated time, % of max_cycles, cycles/s. */
int cluster_run(cluster_t *c, sim_cycle_t max_cycles, cluster_stop_fn stop, void *ctx, FILE *progress);

/* The progress line (cluster_run) appends what fn writes into buf (e.g. the workload's own
 * progress); NULL removes it. */
typedef void (*cluster_note_fn)(void *ctx, char *buf, size_t n);
void cluster_set_progress_note(cluster_t *c, cluster_note_fn fn, void *ctx);

/* Quanta: hooks run at every quantum boundary t on every rank. pack appends this rank's data for
 * the boundary to buf (grow it with cluster_buf_put); unpack gets every rank's data in rank order
 * (after the switch has applied every rank's frames). */
struct cluster_buf {
    uint8_t *p;
    size_t n, cap;
};
int cluster_buf_put(struct cluster_buf *b, const void *data, size_t n); /* 0 or -1 (memory) */
struct cluster_sync {
    void (*pack)(void *ctx, sim_cycle_t t, struct cluster_buf *buf);
    /* returns nonzero when it woke something at t (an event signalled: no idle jump there) */
    int (*unpack)(void *ctx, sim_cycle_t t, const uint8_t *const *blocks, const size_t *lens, unsigned n);
};
void cluster_set_sync(cluster_t *c, const struct cluster_sync *ops, void *ctx);
/* One boundary's exchange now, without advancing time (the end of a run): 0, or -1 when the
 * ranks lost each other (reported). */
int cluster_boundary(cluster_t *c);
sim_cycle_t cluster_quantum(const cluster_t *c); /* 0 without quanta */
/* The ranks: node i lives on rank cluster_rank_of(c, i) (cluster_config.rank_of; contiguous
 * blocks in node order by default); cluster_node returns NULL for a node of another rank. */
unsigned cluster_rank_of(const cluster_t *c, unsigned node);
bool cluster_is_local(const cluster_t *c, unsigned node);
dist_t *cluster_dist(const cluster_t *c);
/* Called at the start of every loop iteration of cluster_run (before the cycle): the debugger
 * (sim/node/nodedbg.c) serves GDB here while a core is halted, so no node advances meanwhile.
 * A nonzero return forbids an idle jump in this iteration (a halt or step is under way; with quanta, one rank only:
 * the tools refuse the debugger with several ranks). */
typedef int (*cluster_hook_fn)(cluster_t *c, void *ctx);
void cluster_set_hook(cluster_t *c, cluster_hook_fn fn, void *ctx);

unsigned cluster_nodes(const cluster_t *c);
/* A secret derived from the cluster seed (reproducible runs): purpose CLUSTER_SECRET_FABRIC is the
 * fabric secret every honest node's driver gives its NCP; CLUSTER_SECRET_KEYS + node a node's
 * remote key seed (the node id alone does not determine it: the seed does). */
#define CLUSTER_SECRET_FABRIC 1u
#define CLUSTER_SECRET_KEYS 0x100u
uint64_t cluster_secret(const cluster_t *c, uint64_t purpose);
node_t *cluster_node(cluster_t *c, unsigned i);
switch_t *cluster_switch(cluster_t *c);
coro_sched_t *cluster_sched(cluster_t *c);
sim_cycle_t cluster_now(const cluster_t *c);
const struct cluster_stats *cluster_stats(const cluster_t *c);

#endif /* CLUSTER_H */
