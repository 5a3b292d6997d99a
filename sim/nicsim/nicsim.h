/*
 * nicsim.h - the cluster simulation tool's shared state: options, the per-node runtime every
 * workload runs on, and the results the report is made of.
 *
 * Role map:
 *   nicsim.c     options, firmware image choice, cluster and host software set-up, the run loop
 *                with progress, the firmware handshake check
 *   ns_report.c  the summary table, the JSON report (cJSON, sim/node/report.h) and the CSV rows
 *   ns_rt.c      the per-node runtime: probe, process, endpoint, registration, the out-of-band
 *                directory and barrier, posting with a window, verification, latency samples
 *   wl_micro.c   pingpong, stream, missratio
 *   wl_apps.c    the SPLASH-2-like page-granularity patterns fft, radix, lu, ocean, water
 *
 * Every node runs --procs user programs (coroutines; one by default), each a rank of the workload:
 * the node's first probes its driver; each opens the device and its endpoint, let the workload register and publish buffers, barrier, run, barrier, collect the
 * NCP's counters, close. The directory and barrier are out of band (simulator memory, no
 * simulated link), like an MPI bootstrap; the data path is only the NIC.
 *
 * Ranks (ns_dist.c, docs/simulation-speed.md "Ranks"): the nodes may be spread over MPI ranks, and
 * what the nodes share out of band goes through the quantum boundaries, for one rank as for many:
 * a published buffer (ns_reg, ns_publish) is visible to everyone from the next boundary; a barrier
 * releases everyone at the first boundary after the last arrival; a failure (ns_fail) counts
 * (w->failed) from the next boundary; a verification (ns_verify) is checked at the next boundary,
 * by the rank that holds the target's memory. So every simulated figure is the same for any number
 * of ranks.
 *
 * Verification: after each completed RDMA write the target range is compared with the source
 * (and after each read the local range with the remote source) by reading the simulated hosts'
 * memory directly (no simulated time). Mismatches are counted, and the run fails.
 *
 * Contract: single-threaded (the cluster's coroutines are cooperative).
 */
#ifndef NICSIM_H
#define NICSIM_H

#include <stdint.h>
#include <stdio.h>

#include "cluster.h"
#include "costs.h"
#include "hostsw.h"
#include "nic.h"
#include "nodedbg.h"

#define NS_MAX_NODES 256 /* the simulator's and switch's limit; the firmware's is its max_peers */
#define NS_MAX_BUFS 64 /* published buffers per process */
#define NS_MAX_RANKS 1024 /* processes in the run (--nodes x --procs) */
#define NS_PAGE 4096u
#define NS_LAT_MAX (1u << 24) /* latency samples kept (beyond: counted, not kept) */
/* The simulated host's memory (hostmem_config_default: 65536 frames, 256 MiB) minus what the
 * driver, the rings and the process need besides a pattern's working set (measured: ocean on 2
 * nodes runs at --ws-pages 32700, fails at 32760). */
#define NS_HOST_RESERVE_PAGES 256u

/* Exit status (docs/nicsim.md); a run stopped by SIGINT/SIGTERM exits 128 + the signal. */
enum { NS_EXIT_PASS = 0, NS_EXIT_FAIL = 1, NS_EXIT_TIMEOUT = 2, NS_EXIT_SETUP = 3 };

struct ns_opts {
    unsigned nodes;
    unsigned procs;   /* --procs: user processes per node (each its own pid, endpoint, registrations) */
    unsigned ranks;   /* nodes x procs: the workload's participants; rank r runs on node r % nodes */
    const char *workload;
    /* firmware */
    const char *fw;       /* explicit image (the next three are then only checked, when given) */
    int lookup_set, cache_set, nack_set; /* given on the command line */
    int lookup_static;    /* --lookup static */
    unsigned cache[3];    /* C, L, A; 0 = the default build */
    int nack;             /* 1 = NACK build (default), 0 = seed-faithful timeout build */
    /* link and faults */
    uint32_t link_bpc;    /* bits per cycle (50 = 10 Gb/s at 200 MHz) */
    uint64_t link_latency;
    double drop, duplicate, corrupt, delay;
    /* host */
    const char *host_cost; /* costs_set_list string */
    uint64_t pin_hwm;      /* driver pin high-water mark, pages (0 = driver default) */
    unsigned miss_threads; /* driver miss threads per node */
    uint64_t mem_pressure; /* --mem-pressure: OS pressure period, cycles (0: off); the driver's MMU notifier on */
    int prefill;           /* driver installs PCH/CBH lines at EP_OPEN / registration (nicdrv cfg) */
    unsigned prefetch;     /* prefetch on a miss: VMH lines per miss request (nicdrv cfg; 0: one) */
    unsigned peer_slots;   /* --peer-slots: resident peer contexts in each NCP (nicdrv cfg; 0: all) */
    unsigned pin_mode;     /* enum nicdrv_pin_mode (nicdrv cfg): on-miss, at-reg, overlap */
    unsigned pin_async;    /* overlap-async: no line pinned at registration (nicdrv pin_sync_lines 0) */
    unsigned evict;        /* enum nicdrv_evict (nicdrv cfg): lrf, lru */
    int sr;                /* --sr: selective repeat in every NCP (nicdrv cfg xport_opts NIC_XOPT_SR) */
    int boot_nic;          /* --bootstrap nic: handles and keys published by message-queue sends
                            * (ns_boot.c) in simulated time, not through the zero-cost directory */
    /* transport options (issue 14) and the switch's queue */
    int flow, cc;          /* --flow, --cc on|off: NIC_XOPT_FLOW / NIC_XOPT_CONGESTION in INIT */
    uint32_t ecn_bytes;    /* --ecn-kb: switch marking threshold (default: 16 KiB with --cc on, else 0) */
    int ecn_set;
    uint32_t queue_bytes;  /* --queue-kb: switch output queue per port (0: the switch's default) */
    int pause;             /* --pause: the switch honours the MACs' pause requests (switch_pause) */
    /* run */
    uint64_t seed, max_cycles;
    int trace_node;
    const char *fst;
    struct nodedbg_opts dbg; /* --gdb, --trace-insn, --fst-start/stop/scope (sim/node/nodedbg.h) */
    const char *json, *csv;
    const char *pcap; /* --pcap: frames at the switch (sim/node/pcap.h) */
    double mpi_timeout; /* --mpi-timeout: seconds a rank waits for the others (0: 120) */
    const char *rank_map; /* --rank-map: which MPI rank simulates which node (NULL: block) */
    const char *events; /* --events: JSON-lines event log (sim/node/evlog.h) */
    int breakdown;      /* --breakdown: the latency breakdown of pingpong's writes (ns_bd.c) */
    int quiet, progress; /* progress: 1 on, 0 off, -1 auto (a terminal) */
    int no_skip;
    int eval_all, pin_hash; /* --eval-all, --pin-hash (node_config; docs/simulation-speed.md) */
    int console;
    /* workload parameters */
    uint64_t size_min, size_max; /* pingpong sweep / stream / missratio message size */
    unsigned iters, warmup, window;
    unsigned cq_mod;             /* stream: every cq_mod-th request (and the last) signalled (--cq-mod) */
    int no_inline;               /* --inline off: nic_dev_attr.no_inline (every write's data by DMA) */
    int no_ct;                   /* --cut-through off: the MACs' strap (node_config.tx_ct_off) */
    uint32_t pcie_rd_lat;        /* --pcie-read-latency (0: the PCIe model's default) */
    int op_read, bidir;
    unsigned senders;            /* incast: senders to node 0 (0: every other node) */
    double miss_ratio;
    uint64_t ws_pages; /* application patterns: working set per node, pages */
    unsigned phases;
    uint64_t compute_ns; /* application patterns: host compute per page per phase */
};

/* One point of a size sweep (pingpong), or the whole run for the other workloads. */
struct ns_point {
    uint64_t size;
    uint64_t ops, bytes;
    sim_cycle_t t0, t1;       /* measured interval */
    double lat_p50_ns, lat_p99_ns, lat_mean_ns;
    double lat_min_ns, lat_max_ns, lat_stdev_ns, lat_p999_ns; /* perftest's figures (ns_lat_stats) */
    double mbps;
};

/* Latency figures of a set of samples (perftest's t_min, t_max, typical = median, average,
 * stdev, 99 %, 99.9 %), in ns. */
struct ns_lat_stats {
    uint64_t n;
    double min, max, p50, mean, stdev, p99, p999;
};

struct ns_world;

/* One process of the run (a rank: the workloads' participant), on node `nid`. The node's own state
 * (driver, counters, halt) is kept in its first process, rank nid (lp 0): the report reads
 * w->node[0 .. nodes-1]. */
struct ns_node {
    struct ns_world *w;
    unsigned id;                  /* rank */
    unsigned nid, lp;             /* its node, and its index among the node's processes */
    int probe;                    /* lp 0: 1 the driver probed, -1 failed (the node's other processes wait) */
    costs_t *costs; /* this node's host cost draws and miss-penalty samples */
    unsigned sim_rank;          /* after ns_dist_gather: the MPI rank that simulated this node */
    uint64_t cycles_evaluated;  /* after ns_dist_gather: its NIC's evaluated clocks (node_status) */
    hostsw_t *hs;
    nicdrv_t *drv;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
    int ok;                       /* set up */
    struct nic_stats stats;       /* NCP counters at the end */
    struct nicdrv_stats dstats;   /* driver counters at the end */
    struct { uint32_t rx_ok, rx_bad_crc, rx_nobuf, rx_overflow, tx_ok, tx_underruns; } mac; /* the MAC's own counters */
    uint64_t pinned_after_close;  /* pages still pinned after the process closed (must be 0) */
    int halt_seen;                /* its NCP's halt has been reported (ns_dist.c) */
    uint64_t nlocal;
    struct nic_mr local[NS_MAX_BUFS]; /* this node's registered buffers, by slot */
    uint64_t posted, completed, errors;
    uint64_t next_wr;
    sim_cycle_t *msg_post, *msg_done; /* stream: per message (wr_id), when posted and completed
                                       * (0: not yet); the first nmsg messages (the peak figures) */
    uint64_t nmsg;
    int bd_warmup; /* --breakdown: the writes posted now are warm-up rounds (not in the breakdown) */
    void *wl; /* workload's per-node state */
    /* --bootstrap nic (ns_boot.c): entries published since the last exchange, what it cost */
    uint64_t boot_pend;               /* slots to send */
    struct nic_mr boot_pub[NS_MAX_BUFS];
    uint64_t boot_own;                /* this process's cycles in exchanges */
    /* the node's processes (on its first, rank nid): cycles in exchanges (sum, the most of one),
     * messages sent, sends resent after NIC_WC_RNR */
    uint64_t boot_cycles, boot_cycles_max, boot_msgs, boot_rnr;
};

struct ns_workload {
    const char *name;
    const char *help;
    unsigned min_nodes, max_nodes;
    int (*check)(const struct ns_opts *o, char *err, size_t n); /* option checks before the run */
    void (*run)(struct ns_node *n);                             /* the node's program body */
};

/* One MPI rank's share of the simulation (JSON sim.per_rank; docs/simulation-speed.md "Ranks"). */
struct ns_rank_stat {
    uint32_t rank, nodes;
    uint64_t cycles_evaluated; /* its nodes' evaluated NIC clocks (deterministic) */
    double cpu_s;              /* CPU seconds in cluster_run */
    double boundary_cpu_s;     /* of which in quantum boundaries (pack, exchange and wait, apply) */
    double wall_s, boundary_wall_s;
    double wait_s;             /* wall seconds waiting in collectives (dist_wait_s) */
    uint64_t boundaries;
    uint64_t exchanges; /* MPI exchanges (dist_exchanges: 1 per boundary, 2 when its data is long) */
};

struct ns_world {
    const struct ns_opts *o;
    const struct ns_workload *wl;
    cluster_t *cl;
    costs_t *costs;
    uint64_t clock_hz;
    struct ns_node node[NS_MAX_RANKS]; /* by rank; ranks 0 .. nodes-1 are each node's first process */
    /* out-of-band directory: rank -> slot -> buffer (every rank's copy, updated at boundaries) */
    struct nic_mr dir[NS_MAX_RANKS][NS_MAX_BUFS];
    /* barrier: arrivals counted at boundaries */
    unsigned bar_count;
    uint64_t bar_gen;
    coro_event_t bar_ev;
    /* ranks (ns_dist.c): what this rank's nodes did since the last boundary */
    struct cluster_buf out;
    uint64_t fail_seq;
    /* results */
    unsigned done, failed;
    sim_cycle_t fail_at; /* the first failure */
    int stopping; /* set when the run ended: later failures are the shutdown's */
    int bd;       /* --breakdown is recording (ns_bd.c) */
    const char *img_path; /* the flash image (its ELF, X.elf, symbolises a trap) */
    unsigned halted;      /* NCPs that halted (trap or fatal): the run's failure, explained */
    uint64_t suppressed;  /* failures reported after a halt: its consequences, not printed */
    char fail_msg[256];
    uint64_t ops, bytes;
    uint64_t ops_expected;       /* measured operations the run will make, for the progress line
                                  * (0: the workload does not know) */
    sim_cycle_t t0, t1;          /* the measured phase (first post to last completion) */
    sim_cycle_t t_first;         /* patterns: end of the first phase (its barrier), 0 if none;
                                  * t1 - t_first is the time without the cold first phase */
    uint64_t *lat;               /* latency samples, cycles (grows up to NS_LAT_MAX) */
    uint64_t nlat, lat_cap, lat_dropped;
    uint64_t verify_bytes, verify_mismatch;
    uint64_t reg_pages;   /* reglimit: pages registered before the first failure */
    char reg_error[64];   /* reglimit: why registration stopped ("" = the cap) */
    struct ns_point pts[32];
    unsigned npts;
    /* after ns_dist_gather: every MPI rank's work (the simulator's, not the simulated cluster's) */
    struct ns_rank_stat *rank_stats;
    unsigned nrank_stats;
};

/* ---- ns_dist.c: the world across quantum boundaries and ranks ---- */
void ns_dist_attach(struct ns_world *w); /* cluster_set_sync */
/* One more boundary's exchange at the end of the run (what the last one left to check). */
void ns_dist_flush(struct ns_world *w);
/* The results of every rank's nodes into rank 0's world (sums, samples, per-node counters);
 * merged_costs gets every node's miss-penalty samples in node order. */
void ns_dist_gather(struct ns_world *w, costs_t *merged_costs, struct switch_port_counters *sw_total,
                    uint64_t *violations);
/* Publish an entry in the directory (seen by everyone from the next boundary). */
void ns_publish(struct ns_node *n, unsigned slot, const struct nic_mr *mr);
void ns_done(struct ns_node *n); /* the node's program has ended */

/* ---- ns_boot.c: --bootstrap nic ---- */
/* After the endpoint opened: the process's notify event queue, the endpoint not bound to it (0 or an
 * API error). */
int ns_boot_eq(struct ns_node *n);
/* After it opened: the receive buffers registered and posted to its queue (0 or -1, reported). */
int ns_boot_open(struct ns_node *n);
/* At a barrier, before the arrival: every rank sends every other one the entries it published
 * since the last exchange and takes theirs into the directory (every rank takes part). */
void ns_boot_exchange(struct ns_node *n);

/* ---- ns_rt.c: the per-node runtime workloads use ---- */
/* A node's NCP halted (sim/node/fwdiag.h): records it as the run's failure the first time;
 * nonzero when some NCP has halted. */
int ns_check_halt(struct ns_world *w);
void ns_fail(struct ns_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ns_barrier(struct ns_node *n);
/* Register [va, va+len) filled with a deterministic pattern of (node, slot) and publish it as slot. */
int ns_reg(struct ns_node *n, unsigned slot, uint64_t va, uint64_t len, uint32_t access);
const struct nic_mr *ns_peer(struct ns_node *n, unsigned node, unsigned slot);
/* Post one request (write or read) of len bytes from the local address to (peer mr, offset),
 * signalled or not (an unsignalled request completes with no entry unless it failed); returns 0 or
 * an API error (already reported with ns_fail). ns_post: signalled. */
int ns_post_sig(struct ns_node *n, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                uint64_t wr_id, int signaled);
int ns_post(struct ns_node *n, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
            uint64_t wr_id);
/* Wait for one completion (fails the run on an error status or a timeout): 0 or -1. */
int ns_wait(struct ns_node *n, struct nic_wc *wc);
/* Compare [lva, lva+len) of node a's process with [rva, rva+len) of node b's (zero simulated time);
 * counts verified bytes and mismatches. */
void ns_verify(struct ns_node *a, uint64_t lva, unsigned b, uint64_t rva, uint64_t len);
/* Fill the local range with a pattern that depends on seq (so every transfer moves new bytes). */
int ns_fill(struct ns_node *n, uint64_t va, uint64_t len, uint64_t seq);
void ns_lat(struct ns_world *w, sim_cycle_t cycles);
double ns_cyc_to_ns(const struct ns_world *w, double cycles);
/* perftest's latency figures of n samples (cycles, any order; v is sorted in place), in ns */
void ns_lat_stats(const struct ns_world *w, uint64_t *v, uint64_t n, struct ns_lat_stats *st);
void ns_point_lat(struct ns_point *p, const struct ns_lat_stats *st);
void ns_compute(struct ns_node *n, uint64_t ns); /* host compute time */

/* ---- ns_bd.c: --breakdown (docs/nicsim.md "Latency breakdown"); observers only ---- */
int ns_bd_attach(struct ns_world *w, FILE *err); /* probes on nodes 0 and 1, the image's symbols */
void ns_bd_detach(struct ns_world *w);
/* the workload's events, at coro_now(): a write posted (before the post), its last byte seen by
 * the target's poll, its completion returned by the initiator's poll */
void ns_bd_post(struct ns_node *n, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff, uint64_t wr_id);
void ns_bd_seen(struct ns_node *n);
void ns_bd_done(struct ns_node *n, uint64_t wr_id);
void ns_bd_print(FILE *f);   /* the table */
void ns_bd_json(void *root); /* the report's "breakdown" object (a cJSON *) */
void ns_bd_free(void);

/* ---- ns_report.c: the summary and the reports ---- */
struct ns_mem_cats {
    uint64_t code, buffers, lookup, queues, other;
    int ok;
};

struct ns_report {
    const struct ns_world *w;
    const struct cluster_stats *cs;
    const uint64_t *lat;  /* the run's latency samples, sorted */
    uint64_t nl;
    const char *img_path;
    const uint8_t *img;
    size_t img_len;
    struct ns_mem_cats mem;
    const struct nic_info *info; /* the firmware's handshake; NULL when no driver got that far */
    struct costs_stats miss;
    struct switch_port_counters sw;
    uint64_t violations;
    int rc; /* NS_EXIT_* or 128 + signal */
    /* the ranks (docs/simulation-speed.md "Ranks"): how many, their transport, the quantum, the
     * boundaries crossed and the time this rank waited at them */
    unsigned ranks;
    const char *transport;
    uint64_t quantum, boundaries;
    double wait_s;
};

const char *ns_verdict(int rc);
void ns_summary(FILE *f, const struct ns_report *r);
int ns_write_json(FILE *f, const char *path, const struct ns_report *r); /* closes f */
int ns_write_csv(FILE *f, const char *path, const struct ns_report *r);  /* closes f */
/* "dynamic C16384 L64 A4, miss NACKs" or "static tables", from the handshake */
void ns_fw_desc(char *buf, size_t n, const struct nic_info *info, const char *img_path);

/* ---- workloads ---- */
extern const struct ns_workload ns_wl_pingpong, ns_wl_stream, ns_wl_missratio, ns_wl_reglimit, ns_wl_incast;
extern const struct ns_workload ns_wl_fft, ns_wl_radix, ns_wl_lu, ns_wl_ocean, ns_wl_water;

#endif /* NICSIM_H */
