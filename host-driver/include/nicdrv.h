/*
 * nicdrv.h - the host driver stub: probe/remove, the interrupt top half, the miss thread's work,
 * the host tables (VMH page tables, CBH registry, PCH contexts), pinning with a high-water mark,
 * and the calls the user library makes (endpoints, registration). Protocol: docs/host-interface.md;
 * layouts: nic_abi.h; the library on top: nic.h and docs/api.md.
 *
 * Execution contexts (all cooperative, single-threaded; a call may block in the host services):
 *   nicdrv_intr            the interrupt top half (after the MSI and the interrupt latency)
 *   nicdrv_miss_pop/resolve the miss thread (one per driver)
 *   everything else        process context (the library's "system calls") or the probe thread
 */
#ifndef NICDRV_H
#define NICDRV_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "nicdrv_bus.h"

enum nicdrv_err {
    NICDRV_OK = 0,
    NICDRV_EBUS = -1,       /* an MMIO access failed */
    NICDRV_ENODEV = -2,     /* a register block's ID or major version is not the expected one */
    NICDRV_EIMAGE = -3,     /* the firmware image is invalid (the message says why) */
    NICDRV_EVERIFY = -4,    /* instruction memory does not read back what was written */
    NICDRV_ETIMEDOUT = -5,  /* the firmware did not reach the expected state in time */
    NICDRV_EPROTO = -6,     /* the firmware's info block or an answer breaks the protocol (ABI major) */
    NICDRV_ENOMEM = -7,     /* a host-side bounded table or kernel memory is exhausted */
    NICDRV_EINVAL = -8,     /* bad argument (range, rights, pid) */
    NICDRV_ENORES = -9,     /* the NIC has no room (endpoints, static tables: NIC_ST_NO_RESOURCES) */
    NICDRV_ESTATE = -10,    /* the driver is not probed, or the firmware stopped (fatal error) */
    NICDRV_ENOENT = -11,    /* no such buffer, endpoint or process */
    NICDRV_EFAULT = -12,    /* memory could not be pinned or translated */
    NICDRV_ECANCELED = -13, /* the host is shutting down */
    NICDRV_EBUSY = -14,     /* already open / in use */
    NICDRV_EFW = -15,       /* the firmware answered a command with an error status */
};

struct nicdrv_fw_info {
    uint32_t fw_version, length, entry, payload_crc, flags;
};

/*
 * Loads a flash image into instruction memory through the BAR2 window and starts the core.
 * Steps: check the hostif block's ID and major version; validate the image (nic_fwimg_parse,
 * against the NIC's instruction memory; required_major 0 accepts any firmware); hold the core in
 * reset and point the window at IMEM; write the payload; read back one word in every 256 plus the
 * last one; point the window back at SRAM and release the core. On error the core stays in reset
 * and `err` holds a one-line message. `info` (may be NULL) receives the image's header fields.
 */
int nicdrv_fw_load(const struct nicdrv_bus *bus, const void *image, size_t len, uint32_t required_major,
                   struct nicdrv_fw_info *info, char *err, size_t errlen);

const char *nicdrv_strerror(int err);

/* ---- the driver instance ---- */

#include "nic_abi.h"
#include "nicdrv_host.h"

typedef struct nicdrv nicdrv_t;

struct nicdrv_config {
    uint16_t node_id, nodes;    /* this node and the cluster size, given to the NCP by INIT */
    uint32_t max_procs;         /* processes with host tables (default 64) */
    uint32_t max_bufs;          /* registered buffers per process = buffer ids 0..max_bufs-1 (256) */
    uint64_t pin_hwm_pages;     /* high-water mark on pages pinned for VMH fills; 0 = none (4096) */
    uint32_t miss_queue;        /* misses queued for the miss thread (64); beyond: counted, dropped
                                   (the NCP re-posts: its request is still parked or retransmitted) */
    uint32_t miss_threads;      /* miss threads the host runs, 1..NICDRV_MAX_MISS_THREADS (1: the seed's
                                   single kernel thread); nicdrv_miss_resolve is safe to call from
                                   several at once (tbl_lock orders the table work and the FILLs) */
    uint32_t ev_log2;           /* event ring entries, log2 (7: 128 entries, one page) */
    uint32_t cq_log2;           /* completion queue entries per endpoint, log2 (7: one page) */
    uint64_t boot_timeout;      /* cycles to wait for fw_state ready (default 4,000,000 = 20 ms) */
    uint64_t cmd_timeout;       /* cycles to wait for a command's answer (default 40,000,000) */
    uint64_t key_seed;          /* the per-node secret remote keys are drawn from: 0 (default) = host
                                   entropy (getrandom); a simulation passes a seed of its own per node
                                   to be reproducible. Keys are a keyed permutation of the
                                   registration count with the node id in the low 5 bits: never
                                   repeated on a node (2^27 registrations) or across nodes 0..31,
                                   unpredictable without the secret (docs/wire-protocol.md) */
    uint64_t fabric_secret;     /* the secret every honest node of the cluster is given out of band
                                   (as an MPI launcher or subnet manager would): keys every
                                   connection's ISN and token (INIT). 0: none (tokens derived from
                                   a public key: no protection against forged frames) */
    uint32_t required_fw_major; /* 0 = any firmware version (the ABI major is always checked) */
    uint32_t xport_opts;        /* transport options given to the NCP in INIT (nic_abi.h NIC_XOPT_*:
                                   flow control, congestion control, selective repeat; 0, the
                                   default: none, go-back-N) */
    bool prefill;               /* dynamic build: install a process's PCH line at EP_OPEN and a
                                   buffer's CBH line at registration (FILL, NIC_FILL_CURRENT), so the
                                   first packet to a new buffer misses only its VMH line (true;
                                   false: every line on demand, as the seed) */
    uint32_t evict_policy;      /* enum nicdrv_evict: the victim at the high-water mark (seed 001) */
    uint64_t upcall_grace;      /* eviction upcalls (seed 001; 0 = off, the default): before taking
                                   back a line's pinned pages at the high-water mark the driver posts
                                   NIC_EQE_UPCALL into the owner's event queue (if it has one) and
                                   waits up to this many cycles for nicdrv_upcall_done, then evicts */
    uint64_t fill_residency;    /* cycles a VMH line filled for a miss is kept from eviction at the
                                   high-water mark, so the packet waiting for it can use it (issue 18,
                                   item 5: evictions undid fills before they were used); when every
                                   pinned line is that young, the miss thread waits for the oldest
                                   to age (default 200,000 = 1 ms; 0 = no protection) */
    uint32_t prefetch_lines;    /* prefetch on a miss (issue 14, item 2; INIT's ep): a VMH miss request
                                   covers up to this many lines, from the missed one to the end of its
                                   message, and the miss thread fills them all in order, so a large
                                   transfer pays one host miss, not one per line. 0 (default): one
                                   line per miss, the seed. At most NIC_PREFETCH_MAX */
    uint32_t peer_slots;        /* peer contexts the NCP keeps resident in NIC SRAM (NIC_CMD_PEER_TABLE's
                                   d; issue 13): 0 (default) = all it has (nic_info.peer_slots); fewer
                                   is a test setting that makes it fill and evict with a small cluster.
                                   The driver gives the NCP its host table of peer contexts whenever
                                   the cluster has more nodes than that */
    uint32_t pin_mode;          /* enum nicdrv_pin_mode (issue 14, item 3), dynamic build: when a
                                   registered buffer's pages are pinned (default NICDRV_PIN_ON_MISS) */
    uint32_t pin_sync_lines;    /* NICDRV_PIN_OVERLAP: the buffer's first VMH lines pinned and filled
                                   before nicdrv_mem_reg returns, the rest in the background (default
                                   1: a first packet sent right after the registration finds its line;
                                   0: registration returns at once, seed 004) */
    /* Observer of the driver's cache work, for tools (nicsim --events); NULL (default): none.
     * kind: "miss" (a miss event taken from the ring, merged or not), "fill" (a FILL answered OK),
     * "fill_rejected" (still NO_RESOURCES after the retries), "invalidate" (an INVALIDATE the NCP
     * answered). Called synchronously in the calling thread; must not call the driver. */
    void (*observe)(void *ctx, const char *kind, unsigned cache, uint16_t pid, uint32_t key);
    void *observe_ctx;
    /* MMU notifier (issue 15, seed 004): the host subscribes nicdrv_mmu_release to its OS's
     * invalidate-before-move hook (sim/hostsw: os_set_mmu_release), so the OS may move or reclaim
     * pages the driver pinned for the NIC. Default off (pinned pages are never moved). */
    bool mmu_notifier;
    /* Test only: the notifier unpins without invalidating the NIC's line first (the bug the
     * mechanism prevents; the unpinned-DMA oracle must catch it). Default false. */
    bool mmu_skip_invalidate;
};

#define NICDRV_MAX_MISS_THREADS 16

/* When the pages of a registered buffer are pinned (dynamic build; the static build pins and loads
 * everything at registration whatever the mode). Whatever the mode, a VMH miss on a page not
 * pinned yet pins it (and a page pinned by the driver can be evicted at the high-water mark). */
enum nicdrv_evict {
    NICDRV_EVICT_LRF = 0, /* the least recently filled line (the driver's own record; the default) */
    NICDRV_EVICT_LRU = 1, /* the least recently used on the NIC: NIC_CMD_USAGE (its LRU stamps) before
                             each eviction; a line the NIC does not hold goes first; for a cache of
                             more than 256 ways only the first 256 are seen (one page) */
    NICDRV_EVICT_LFU = 2, /* the least frequently used on the NIC (ABI 2.3, NIC_CAP_USAGE_COUNTS): two
                             NIC_CMD_USAGE before each eviction, the ways and their access counts (hits
                             since the line's fill into the NIC's cache; a line the NIC does not hold
                             counts 0), with dynamic aging (LFU-DA: priority = the priority of the
                             last victim when the line was filled + its hits), lines filled less than
                             fill_residency ago last; ties: the least recently filled; an NCP without
                             the counts, or a failed USAGE: the least recently filled */
};

enum nicdrv_pin_mode {
    NICDRV_PIN_ON_MISS = 0, /* when a miss on it is served (seed 000: pin on demand) */
    NICDRV_PIN_AT_REG = 1,  /* nicdrv_mem_reg pins the buffer's pages and fills their VMH lines before
                               it returns (as a classic RDMA registration), up to the high-water mark */
    NICDRV_PIN_OVERLAP = 2, /* seed 004's overlapped pinning: nicdrv_mem_reg pins and fills the
                               buffer's first cfg.pin_sync_lines lines (default 1; 0: returns at
                               once, as the seed) and the driver the rest in the background
                               (nicdrv_pin_step), in order, up to the high-water mark; a packet that
                               arrives before its page is pinned misses (NACKed as any miss) and is
                               counted (pin_early) */
};

struct nicdrv_stats {
    uint64_t cmds, cmd_errors, events, irqs;
    uint64_t misses, misses_merged, misses_dropped, fills, fills_rejected;
    uint64_t pins, unpins;              /* page references taken / dropped by the driver */
    uint64_t pinned_pages, pinned_peak; /* now (VMH lines + completion queues), peak */
    uint64_t evictions, invalidations;  /* lines evicted at the high-water mark; INVALIDATEs sent */
    uint64_t static_loads;
    uint64_t prefills;                  /* PCH/CBH lines installed without a miss (cfg.prefill) */
    uint64_t fill_retries;              /* FILLs sent again after NIC_ST_NO_RESOURCES */
    uint64_t evict_waits;               /* evictions that waited for a line's fill_residency */
    uint64_t unbacked_pages;            /* pages a fill could not pin (the OS cannot back them):
                                           installed invalid, so the NCP answers a protection error */
    uint64_t close_retries;             /* EP_CLOSE asked again: answered BUSY (packets in flight) */
    uint64_t prefetch_fills;            /* VMH lines filled beyond the missed one (cfg.prefetch_lines) */
    uint64_t bg_lines;                  /* VMH lines pinned and filled ahead of traffic (NICDRV_PIN_AT_REG
                                           at registration, NICDRV_PIN_OVERLAP in the background) */
    uint64_t pin_early;                 /* NICDRV_PIN_OVERLAP: VMH misses on a line the background had not
                                           pinned yet (its packets arrived before their pages were pinned) */
    uint64_t eq_arms, eq_wakeups;       /* EQ_ARMs sent by nicdrv_eq_wait; NIC_EV_EQ events taken */
    uint64_t eq_counts;                 /* consumer counts sent by nicdrv_eq_consumed */
    uint64_t mmu_releases;              /* pages the OS asked back (nicdrv_mmu_release) */
    uint64_t mmu_invalidations;         /* ... whose VMH line was invalidated (NCP answered) and unpinned */
    uint64_t mmu_refused;               /* ... kept: a queue page, a line younger than fill_residency
                                           (also counted in mmu_young), or the INVALIDATE not answered OK */
    uint64_t mmu_young;
    uint64_t upcalls;                   /* eviction upcalls posted (cfg.upcall_grace) */
    uint64_t upcalls_answered;          /* ... answered within the grace period: evicted at once */
    uint64_t upcalls_ignored;           /* ... not answered: evicted when the grace period ended */
    uint64_t upcalls_late;              /* answers after the grace period (NICDRV_ETIMEDOUT) */
    uint64_t upcalls_unposted;          /* victims whose owner had no queue, or no room in it */
    uint64_t upcall_wait;               /* cycles evictions waited for upcall answers, in all */
    uint64_t fill_wait;                 /* cycles in FILL commands (the line image and the command
                                           written, the NCP's DMA of the image and its answer, back-offs
                                           of a refused FILL), in all */
    uint64_t usage_reads;               /* NIC_CMD_USAGE answered (NICDRV_EVICT_LRU: one per eviction,
                                           NICDRV_EVICT_LFU: two, the ways and their counts) */
    uint32_t procs, bufs, eps; /* live */
};

/* A miss event queued by the top half for the miss thread. raised_at = when the interrupt that
 * brought it reached the host (the start of the seed's "miss delay"). */
struct nicdrv_miss {
    uint8_t cache, path;
    uint16_t pid, epoch;
    uint32_t key;
    uint32_t lines; /* the request covers lines key .. key + lines - 1 (prefetch; 1: key only) */
    uint64_t raised_at;
};

void nicdrv_config_default(struct nicdrv_config *cfg);
/* bus and host are copied; NULL cfg = defaults. NULL if out of memory or cfg invalid. */
nicdrv_t *nicdrv_create(const struct nicdrv_bus *bus, const struct nicdrv_host *host, const struct nicdrv_config *cfg);
/* Removes first if probed. NULL is fine. */
void nicdrv_destroy(nicdrv_t *d);

/*
 * Probe (docs/host-interface.md "Boot and handshake"): hold the core, check every register
 * block's ID and major version, set mac.node_id, load the image (nicdrv_fw_load), wait for
 * fw_state ready (boot_timeout), read and check the info block (magic, ABI major, geometry the
 * driver can serve), allocate the event ring and the line-image buffers, INIT, unmask
 * interrupts. On failure everything done so far is undone and `err` says why.
 */
int nicdrv_probe(nicdrv_t *d, const void *image, size_t len, char *err, size_t errlen);
/* Symmetric: every process's tables are torn down (invalidate, unpin), SHUTDOWN (if the firmware
 * is alive), core held in reset, rings freed. Safe to call twice or without a probe. */
int nicdrv_remove(nicdrv_t *d);
int nicdrv_probed(const nicdrv_t *d);                     /* 1 while probed and the firmware is alive */
const struct nic_info *nicdrv_fw_info(const nicdrv_t *d); /* valid after a successful probe */
const struct nicdrv_bus *nicdrv_bus_of(const nicdrv_t *d);
const struct nicdrv_host *nicdrv_host_of(const nicdrv_t *d);
const struct nicdrv_config *nicdrv_config_of(const nicdrv_t *d);

/* Interrupt top half: acknowledge, drain the event ring (bounded laps), complete commands, queue
 * misses (merging duplicates) and wake the miss thread; a fatal error fails every waiter. */
void nicdrv_intr(nicdrv_t *d, uint64_t raised_at);

/* Miss thread: take the oldest queued miss (NICDRV_OK) or NICDRV_ENOENT when none; then resolve
 * it: look the line up in the host tables, make room under the high-water mark (invalidate, then
 * unpin; never a line younger than cfg.fill_residency unless none is older, and then only after
 * waiting for it to age), pin missing pages (a page the OS cannot back goes into the line as an
 * invalid entry: the NCP fails the operation with a protection error instead of missing again),
 * build the line image, FILL it (NIC_FILL_CURRENT: the image is built under the lock that orders
 * every INVALIDATE, so it is current) and wait for the answer. NIC_ST_NO_RESOURCES (the NCP had
 * no DMA room) is retried; a fill still rejected is counted, not an error. */
int nicdrv_miss_pop(nicdrv_t *d, struct nicdrv_miss *m);
int nicdrv_miss_resolve(nicdrv_t *d, const struct nicdrv_miss *m);
/* Background pinning (NICDRV_PIN_OVERLAP): pins and fills the next VMH line of a registered buffer
 * still being pinned. NICDRV_OK when it did one (call again), NICDRV_ENOENT when nothing is left.
 * The host runs it in a kernel worker thread of its own (not the miss thread, whose per-miss
 * processing would stall it); a registration that leaves work signals NICDRV_WQ_PIN. Each step
 * holds tbl_lock for one line (a miss or a deregistration waits at most that long). */
int nicdrv_pin_step(nicdrv_t *d);
/* MMU notifier, invalidate-before-unpin (seed 004): the OS is about to move or reclaim page va of
 * pid. If a VMH line the driver filled holds a pin on it, the line is invalidated on the NIC, and
 * once the NCP has answered OK (no DMA through the old translation is left) the line's pages are
 * unpinned: the OS may then move the page; the NIC misses on it next time and the driver pins and
 * fills it again at its new address. NICDRV_OK when the driver holds no pin on the page any more;
 * NICDRV_EBUSY for a completion or event queue page (the NCP writes it without a translation: it
 * stays pinned), a line filled less than cfg.fill_residency ago (its packet may not have used it
 * yet: forward progress, as for evictions; the OS tries another time) or an INVALIDATE not
 * answered OK (nothing is unpinned). May block (tbl_lock, the
 * command): call it from a kernel thread (a coroutine). */
int nicdrv_mmu_release(nicdrv_t *d, uint32_t pid, uint64_t va);

/* ---- process context (the library's system calls; each charges host->syscall) ---- */
/* Endpoint for pid, completion queue = the page at cq_va in pid's memory (pinned here).
 * *ep in 1..; *cq_entries gets the queue size. A process may open several (ENORES: the NIC has no
 * free endpoint); EBUSY: cq_va is already the page of one of its queues. An endpoint opened while
 * the process has an event queue reports its completions there too (NIC_EQE_CQ). */
int nicdrv_ep_open(nicdrv_t *d, uint32_t pid, uint64_t cq_va, uint16_t *ep, uint32_t *cq_entries);
/* As nicdrv_ep_open, and when every resident endpoint (1..info.max_procs-1, send queue in NIC SRAM)
 * is taken and sq_va != 0, a host endpoint (ABI 2.2, ids max_procs..info.max_eps-1): its send queue
 * is the page at sq_va in pid's memory (pinned here; entries from offset 0, the doorbell record at
 * NIC_EPC_DBREC), its context in the driver's table, cached on the NIC while it is used. ENORES:
 * every id is taken; EINVAL: sq_va not page-aligned or the CQ's page; EBUSY: sq_va is the page of
 * another of its queues. The caller tells the two kinds apart by *ep >= info.max_procs. */
int nicdrv_ep_open_sq(nicdrv_t *d, uint32_t pid, uint64_t cq_va, uint64_t sq_va, uint16_t *ep, uint32_t *cq_entries);
/* EP_CLOSE (the NCP flushes outstanding work into the CQ), forget the PCH entry, unpin the CQ. */
int nicdrv_ep_close(nicdrv_t *d, uint32_t pid, uint16_t ep);
/* Register [va, va+len) with NIC_RIGHT_* rights: *id = buffer id (the handle), *key = remote key.
 * EFAULT: the host says the range cannot be backed (host->va_check: outside pid's address space).
 * Static build: the lines are loaded into the NIC's tables now (ENORES when they are full). */
int nicdrv_mem_reg(nicdrv_t *d, uint32_t pid, uint64_t va, uint64_t len, uint32_t rights, uint32_t *id, uint32_t *key);
/* Invalidate the buffer's CBH line and the VMH lines it covers, then unpin, then forget it. */
int nicdrv_mem_dereg(nicdrv_t *d, uint32_t pid, uint32_t id);
/* Event queue of pid (ABI 2.1, docs/host-interface.md "Event queues"): the page at eq_va in pid's
 * memory (pinned here, cleared), 2^log2 entries (1..NIC_EQ_LOG2_MAX), flags NIC_EQF_*. One per
 * process: EBUSY if it has one or eq_va is one of its completion queues; ENORES: no free queue id. */
int nicdrv_eq_open(nicdrv_t *d, uint32_t pid, uint64_t eq_va, uint32_t log2, uint32_t flags);
/* EQ_CLOSE (no entry lands after it; its endpoints stop reporting), unpin the page. */
int nicdrv_eq_close(nicdrv_t *d, uint32_t pid);
/* Blocking wait: EQ_ARM with ci (the entries the process consumed), then sleep until the NCP's
 * NIC_EV_EQ for the queue wakes it (at once if entries beyond ci are there) or until deadline
 * (absolute, cycles; ETIMEDOUT). NICDRV_OK says: read the queue. ENOENT: no event queue. */
int nicdrv_eq_wait(nicdrv_t *d, uint32_t pid, uint32_t ci, uint64_t deadline);
/* EQ_ARM with NIC_EQ_ARM_COUNT_ONLY: the NCP learns that ci entries were consumed (room). */
int nicdrv_eq_consumed(nicdrv_t *d, uint32_t pid, uint32_t ci);
/* REGISTER-WAIT (seed 001): a registration refused for want of room (ENORES: the NIC's static
 * tables; ENOMEM: the host tables) may wait for a deregistration: read nicdrv_room_gen right after
 * the refusal (its own rollback counts as a removal), then nicdrv_room_wait sleeps until another
 * registration is removed (NICDRV_OK: try again) or the deadline (NICDRV_ETIMEDOUT). */
uint64_t nicdrv_room_gen(const nicdrv_t *d);
int nicdrv_room_wait(nicdrv_t *d, uint64_t seen, uint64_t deadline);
/* The answer to an upcall (NIC_EQE_UPCALL's token): the pages may go now. NICDRV_ETIMEDOUT: too
 * late (the grace period ended and they are gone) or no such upcall pending for pid. */
int nicdrv_upcall_done(nicdrv_t *d, uint32_t pid, uint32_t token);
/* Process exit: close its endpoints and event queue, deregister everything. */
int nicdrv_proc_release(nicdrv_t *d, uint32_t pid);

void nicdrv_stats(const nicdrv_t *d, struct nicdrv_stats *out);
/* NIC_CMD_STATS: the NCP's counters. */
int nicdrv_nic_stats(nicdrv_t *d, struct nic_stats *out);

#endif /* NICDRV_H */
