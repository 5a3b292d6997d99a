/*
 * drv_fake.h - a fake NIC for the driver and library unit tests: the register blocks, the SRAM/IMEM
 * window and the doorbell pages behind a struct nicdrv_bus, plus a scripted NCP that follows
 * docs/host-interface.md (info block, commands, events by phase, lookups with misses and fills,
 * epochs, send queues, completions), over the real host memory and OS models (sim_hostmem,
 * sim_os), so every NIC DMA goes through the unpinned-DMA oracle.
 *
 * Time is a plain counter; the world runs when the driver waits or sleeps (fake_run): command
 * answers are posted then (never at the doorbell, so a driver that does not wait for its answer
 * is caught), interrupts delivered to nicdrv_intr, and, when auto_miss is on, queued misses
 * resolved as the miss thread would.
 *
 * Loopback: the fake is node 0 of a 2-node "cluster"; RDMA to node 0 copies between processes
 * of this host, node 1 never answers (NIC_ST_UNREACHABLE).
 */
#ifndef DRV_FAKE_H
#define DRV_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "hostmem.h"
#include "nicdrv.h"
#include "os.h"

enum fake_boot {
    FAKE_BOOT_OK = 0,
    FAKE_BOOT_NEVER,     /* fw_state stays 0 */
    FAKE_BOOT_TRAP,      /* fw_state 2 */
    FAKE_BOOT_NO_INFO,   /* ready, but no info block */
    FAKE_BOOT_ABI_MAJOR, /* info block with another ABI major */
    FAKE_BOOT_NO_INIT,   /* never answers commands */
};

#define FAKE_LINES 32 /* cache lines per cache (dynamic) / table lines (static) */
#define FAKE_VMH_L 16
#define FAKE_CBH_L 8
#define FAKE_PCH_L 8

struct fake_line {
    bool used;
    uint16_t pid;
    uint32_t key;
    uint64_t stamp;
    uint32_t uses; /* hits since the fill (NIC_CMD_USAGE with NIC_USAGE_COUNTS) */
    uint8_t data[NICDRV_PAGE_SIZE];
};

struct fake_answer {
    uint32_t seq;
    int32_t status;
    uint8_t op, cache;
    uint16_t pid;
    uint32_t key, lines;
};

struct fake_ep {
    bool open;
    uint16_t pid;
    uint16_t eq; /* event queue its completions are reported to (EP_OPEN d) */
    uint64_t cq_pa;
    uint32_t cq_n, cq_pi, sq_pi, sq_ci;
    bool host;      /* ABI 2.2: a host endpoint (id >= max_procs): send queue in host memory */
    uint64_t sq_pa; /* its send queue page (entries, then the doorbell record) */
};

#define FAKE_EP_IDS 64u /* endpoint ids with host endpoints on (fake.max_eps) */

struct fake {
    hostmem_t *mem;
    os_t *os;
    nicdrv_t *drv;
    struct nicdrv_bus bus;
    struct nicdrv_host host;
    uint64_t now;
    /* knobs */
    enum fake_boot boot;
    int bad_block; /* index of a register block with a wrong ID, -1 none */
    bool dynamic;
    bool auto_miss;
    uint32_t static_cap; /* lines per static table */
    uint32_t fill_nores; /* answer this many FILLs NIC_ST_NO_RESOURCES (no DMA room) */
    bool va_check_off;   /* the host cannot tell which ranges it can back (no va_check) */
    uint32_t prefetch;   /* from INIT's ep: a VMH miss event asks for this many lines (0: one) */
    uint32_t max_eps;    /* info.max_eps: 0 (no host endpoints, the default) or FAKE_EP_IDS */
    /* registers and memories */
    uint32_t ctrl, fw_state, fw_info, irq_cause, irq_mask, win_base, node_id;
    uint8_t *sram, *imem;
    /* protocol state */
    uint64_t ev_pa;
    uint32_t ev_size, ev_pi, ev_ci, cmd_ci;
    struct fake_answer answers[64];
    uint32_t nanswers;
    bool irq_pending, in_run, in_miss;
    struct fake_line lines[3][FAKE_LINES];
    uint16_t epoch[3][256];
    struct {
        bool used;
        uint8_t cache;
        uint16_t pid;
        uint32_t key;
    } miss_out[16];
    struct fake_ep ep[FAKE_EP_IDS];
    uint64_t ept_pa[4];    /* EP_TABLE pages (ABI 2.2) */
    uint32_t ep_tables;    /* EP_TABLE commands taken */
    uint32_t db_refused;   /* host endpoint doorbells refused (closed id, count not in its record) */
    struct fake_eq { /* event queues, as the NCP keeps them (firmware/src/evq.c) */
        bool open, armed;
        uint16_t pid;
        uint32_t log2, flags, n, ci, lost;
        uint64_t pa;
    } eq[16];
    uint32_t eq_fires, eq_lost, eq_arms; /* NIC_EV_EQ posted; entries lost; EQ_ARMs taken */
    uint32_t imm_no_eq;                  /* writes with immediate to a process without a notify queue */
    struct fake_mq { /* message queues, as the NCP keeps them (firmware/src/mq.c) */
        bool open;
        uint16_t pid, ep;
        uint32_t key, head, tail;
        struct { uint32_t buf, off, len; } b[NIC_MQ_DEPTH];
    } mq[NIC_MQ_QUEUES];
    uint32_t mq_placed, mq_refused;      /* messages placed; sends refused (the NCP's counters) */
    uint32_t usage_cmds;                 /* NIC_CMD_USAGE answered */
    bool no_usage_counts;                /* an NCP of ABI 2.2: no NIC_CAP_USAGE_COUNTS (set before the probe) */
    uint64_t stamp;
    /* what the tests look at */
    uint32_t cmds[16];         /* per op */
    uint32_t fills_rejected;   /* epoch mismatch */
    uint32_t order_violations; /* unpin while a covering line is cached or its INVALIDATE unanswered */
    uint32_t oracle_violations;
    uint32_t misses_posted, cqes, unpin_calls, pin_calls;
    uint32_t local_refused; /* requests failed by the local range check (lbuf) */
    uint32_t events_torn;   /* event entries written in two bursts (crossing a 256-byte boundary) */
    uint8_t torn_tail[64];
    uint64_t torn_pa;
    uint32_t torn_len;
    char trace[4096]; /* "I" invalidate answered, "U" unpin, "F" fill answered */
    uint32_t trace_len;
};

struct fake *fake_create(bool dynamic);
void fake_destroy(struct fake *f);
/* nicdrv_create on the fake's bus and host with cfg (NULL: defaults, nodes 2). */
nicdrv_t *fake_driver(struct fake *f, const struct nicdrv_config *cfg);
/* A valid flash image for the fake (its payload is not executed). */
const uint8_t *fake_image(size_t *len);
/* Run the world once: post answers, deliver the interrupt, miss thread if auto_miss. */
void fake_run(struct fake *f);
/* Create a process and write a pattern into [va, va+len). */
uint32_t fake_proc(struct fake *f);
/* The NCP's lookup: 0 hit (*entry set), 1 miss (a miss event posted once per line). */
int fake_lookup(struct fake *f, unsigned cache, uint16_t pid, uint64_t n, const uint8_t **entry);
/* Pages of the fake's VMH cache that map (pid, va's page). */
bool fake_vmh_cached(const struct fake *f, uint16_t pid, uint64_t va);
uint32_t fake_lines_used(const struct fake *f, unsigned cache);

#endif /* DRV_FAKE_H */
