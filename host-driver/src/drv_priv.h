/*
 * drv_priv.h - the driver's private state, shared by drv_core.c (probe, commands, interrupts)
 * and drv_tables.c (host tables, misses, pinning, registration).
 *
 * Concurrency (cooperative: nothing runs between two statements, anything may run while a host
 * service blocks):
 *   - ring_lock serialises writers of the command ring (slot contents, then the producer count);
 *   - tbl_lock serialises everything that changes host tables or pins (miss resolution, eviction,
 *     registration, endpoints): an unpin can then never race a fill that uses the same page;
 *   - the top half takes no lock and never blocks before it has consumed what it read.
 */
#ifndef DRV_PRIV_H
#define DRV_PRIV_H

#include <stdbool.h>

#include "nicdrv.h"

struct drv_buf { /* CBH registry entry */
    bool used, dying;
    uint64_t va, len;
    uint32_t rights, key;
    uint32_t pin_next, pin_end; /* NICDRV_PIN_OVERLAP: VMH lines [pin_next, pin_end) not yet pinned
                                   in the background (empty: none left) */
};

struct drv_line { /* a VMH line the driver filled (or loaded): the unit of pinning and eviction */
    bool used;
    uint16_t pid;
    uint32_t line;
    uint64_t filled_at; /* the last fill: younger than cfg.fill_residency = not evicted; else the
                           least recently filled line is the first victim */
    uint64_t lfu_base; /* NICDRV_EVICT_LFU: the driver's age (lfu_age) at the last fill: its priority is
                          this plus its hits on the NIC since (LFU with dynamic aging) */
    uint32_t npinned;
    uint8_t *pinned; /* L flags: page i of the line holds our pin reference */
    bool ahead;      /* pinned and filled ahead of traffic (NICDRV_PIN_AT_REG / _OVERLAP) */
};

#define DRV_EPS 32 /* NIC endpoints the driver can track (NIC_SENDQ_SLOTS <= 32) */

struct drv_proc { /* per process: CBH registry, endpoints (PCH context), event queue */
    bool used;
    uint32_t pid;
    struct drv_buf *bufs;
    uint32_t nbufs;
    uint32_t ep_mask;         /* its open endpoints (bit = NIC endpoint) */
    uint64_t cq_va[DRV_EPS];  /* completion queue page of each */
    bool eq_open;             /* its event queue (ABI 2.1): id eq, page at eq_va */
    uint16_t eq;
    uint64_t eq_va;
    uint32_t nhep;            /* its open host endpoints (ABI 2.2: ids >= info.max_procs) */
};

#define DRV_EPT_PAGES 4u /* host endpoint context table pages: ids < 4 * NIC_EPC_PER_PAGE */

struct drv_slot { /* one command ring slot */
    bool busy, done;
    uint32_t seq;
    int32_t status;
    uint64_t img_pa; /* line image / stats buffer for this slot's command */
};

struct drv_mutex {
    bool held;
};

struct nicdrv {
    struct nicdrv_bus bus;
    struct nicdrv_host host;
    struct nicdrv_config cfg;
    bool probed, dead, started;
    struct nic_info info;
    bool dynamic;
    uint64_t ev_pa;
    uint64_t *peer_pa; /* the host table of peer contexts (NIC_CMD_PEER_TABLE): its pages, NIC-private */
    uint32_t peer_pages;
    uint32_t ev_size, ev_ci;
    struct drv_slot *slots;
    uint32_t nslots, cmd_pi, cmd_answered;
    struct drv_mutex ring_lock, tbl_lock;
    struct nicdrv_miss *missq;
    uint32_t miss_head, miss_count;
    struct drv_proc *procs;
    struct drv_line *lines;
    uint32_t nlines;
    uint8_t *ep_used; /* [max_procs of the NIC] */
    /* host endpoints (ABI 2.2, issue 15 item 2): ids max_procs..neps-1, contexts in ept pages */
    uint32_t neps;
    uint64_t ept_pa[DRV_EPT_PAGES];
    uint32_t *hep_pid;           /* [neps]: owner pid + 1 (0: free) */
    uint64_t *hep_cq_va, *hep_sq_va; /* [neps]: its completion queue and send queue pages */
    uint8_t *eq_used; /* [max_procs of the NIC]: event queue ids (same range as endpoints) */
    uint64_t *eq_fired; /* [max_procs]: NIC_EV_EQ events seen per queue id (nicdrv_eq_wait) */
    /* the eviction upcall waiting for its answer (one at a time: evictions run under tbl_lock) */
    uint32_t upcall_token, upcall_pid;
    uint64_t room_gen; /* registrations removed so far: REGISTER-WAIT's retry signal */
    uint64_t lfu_age;  /* NICDRV_EVICT_LFU: the priority of the last victim (dynamic aging) */
    bool upcall_pending, upcall_answered;
    uint64_t stats_pa;
    uint32_t key_k[4]; /* remote key PRF key (from cfg.key_seed or host entropy) */
    uint32_t key_ctr;  /* registrations keyed so far */
    /* the miss being resolved: INVALIDATEs the miss thread itself sends to the same (cache, pid)
     * while building its line (evictions) each add one to the epoch the fill must carry */
    bool resolving;
    uint8_t res_cache;
    uint16_t res_pid, res_bump;
    uint32_t bg_bufs;   /* buffers with background pinning left (NICDRV_PIN_OVERLAP) */
    uint32_t bg_cursor; /* the last buffer served (proc index * max_bufs + buffer id): round robin */
    struct nicdrv_stats st;
};

/* drv_core.c */
int drv_cmd(nicdrv_t *d, struct nic_cmd *c, const void *img, size_t imglen, int32_t *status);
void drv_lock(nicdrv_t *d, struct drv_mutex *m);
void drv_unlock(nicdrv_t *d, struct drv_mutex *m);
int drv_map_status(int32_t st);

/* drv_tables.c */
int drv_tables_init(nicdrv_t *d);
void drv_tables_fini(nicdrv_t *d);
int drv_release_all(nicdrv_t *d);
uint32_t drv_line_entries(const nicdrv_t *d, unsigned cache);
size_t drv_entry_size(unsigned cache);

/* Remote keys (drv_tables.c): the per-node key secret from cfg.key_seed or host entropy (-1: no
 * entropy), and key number n of node `node` under secret k (exposed for the unit test). */
int drv_key_init(nicdrv_t *d);
uint32_t drv_key_make(const uint32_t k[4], uint32_t node, uint32_t n);

#endif /* DRV_PRIV_H */
