/*
 * os.h - a small OS model: processes, virtual memory, demand paging, pinning, migration and
 * reclaim, over a hostmem instance.
 *
 * Role map: one instance per simulated host. A process (pid >= 1, assigned in creation order)
 * owns a sparse page table of 4 KiB pages over a 32- to 48-bit virtual address space. User
 * programs and the driver touch memory only through os_read/os_write (demand allocation of
 * zeroed frames on first touch) or os_pin (which allocates too). Every frame the OS maps gets its
 * reverse-map entry in hostmem, so the DMA oracle can name the pid and virtual address.
 *
 * Pinning: os_pin/os_unpin take and drop one reference per page per device id in hostmem (the
 * single source of truth for pin counts). A page is pinned while any device holds a reference.
 * Pinned pages are never migrated, reclaimed, unmapped or freed by process exit.
 *
 * Migration and reclaim (the "OS may move unpinned pages" rule that makes the oracle bite):
 *  - os_migrate: the page gets a new frame, contents copied, the old frame freed. A NIC still
 *    using the old physical address now hits a free frame (bus error) or someone else's
 *    unpinned frame (unpinned-DMA violation).
 *  - os_reclaim: the page is swapped out: contents kept in the model's swap store, frame freed;
 *    the next touch (os_read/os_write/os_pin) swaps it back into a new frame with its contents
 *    (so programs never observe data loss). os_translate on a swapped page fails (SIM_EFAULT).
 *  - Background memory pressure (os_config.pressure_period > 0): every period cycles the OS picks
 *    pressure_pages victims among unpinned resident pages (seeded) and migrates each with
 *    probability pressure_migrate (else reclaims it). A policy hook can replace the default
 *    victim choice. The harness drives it with os_pressure_next_event / os_pressure_step.
 *  - An optional notifier is told of every migrate/reclaim/unmap (after the fact), and an optional
 *    MMU release hook (os_set_mmu_release) is asked before a pinned page is moved (seed 004).
 *
 * Contract: single-threaded; create/destroy; the hostmem instance and the cost model (optional,
 * may be NULL: pinning then costs 0) outlive the OS. All pools are bounded by os_config.
 */
#ifndef OS_H
#define OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "costs.h"
#include "hostmem.h"
#include "sim_err.h"
#include "sim_time.h"

#define OS_MAX_PROCS 256

typedef struct os os_t;

struct os_config {
    uint32_t max_procs;          /* live processes (default 64, at most OS_MAX_PROCS) */
    uint32_t max_pages;          /* page-table entries per process (default 65536 = 256 MiB) */
    sim_cycle_t pressure_period; /* 0 = no background memory pressure (default) */
    uint32_t pressure_pages;     /* victims per pressure event (default 1) */
    double pressure_migrate;     /* probability that a victim is migrated rather than reclaimed (0.5) */
    uint64_t seed;               /* pressure victim choice */
    bool pressure_pinned;        /* with an MMU release hook (os_set_mmu_release): pressure may pick
                                  * pinned pages too; the hook is asked to release them first */
};

struct os_counters {
    uint64_t procs_created, procs_destroyed;
    uint64_t demand_allocs;                        /* first-touch allocations */
    uint64_t swap_ins;                             /* touches of reclaimed pages */
    uint64_t pin_calls, pins, unpin_calls, unpins; /* pins/unpins count page references */
    uint64_t migrations, reclaims, unmaps;
    uint64_t refused_pinned; /* migrate/reclaim/unmap refused because pinned */
    uint64_t pressure_events;
    uint64_t mmu_asks;     /* pinned pages the MMU release hook was asked to release */
    uint64_t mmu_released; /* ... that it released (then moved) */
};

enum os_mm_event { OS_MM_MIGRATE = 1, OS_MM_RECLAIM = 2, OS_MM_UNMAP = 3 };

/* old_pa/new_pa are page-aligned; new_pa is 0 for reclaim and unmap. */
typedef void (*os_notify_fn)(void *ctx, enum os_mm_event ev, uint32_t pid, uint64_t va, uint64_t old_pa,
                             uint64_t new_pa);
/* Replaces the default victim choice of one pressure event; returns pages moved or a SIM_E*. */
typedef int (*os_policy_fn)(void *ctx, os_t *os, sim_cycle_t now);

void os_config_default(struct os_config *cfg);

/* NULL cfg = defaults; costs may be NULL. NULL if the configuration is invalid. */
os_t *os_create(const struct os_config *cfg, hostmem_t *mem, const costs_t *costs);
/* Frees every frame of every process, pinned or not (end of run). NULL is fine. */
void os_destroy(os_t *os);
hostmem_t *os_hostmem(const os_t *os);

/* ---- processes ---- */
/* va_bits 32..48. SIM_OK, SIM_EINVAL, SIM_ENOMEM (max_procs live). */
int os_proc_create(os_t *os, unsigned va_bits, uint32_t *pid);
/* SIM_OK, SIM_ENOENT, SIM_EPINNED (pages still pinned: a leak; nothing is freed). */
int os_proc_destroy(os_t *os, uint32_t pid);
bool os_proc_exists(const os_t *os, uint32_t pid);

/* ---- memory access (demand allocation) ---- */
/* SIM_OK, SIM_ENOENT (pid), SIM_EINVAL (range outside the VA space), SIM_ENOMEM (frames or
 * page-table entries exhausted). A failure may leave earlier pages of the range allocated. */
int os_write(os_t *os, uint32_t pid, uint64_t va, const void *buf, size_t len);
int os_read(os_t *os, uint32_t pid, uint64_t va, void *buf, size_t len);
/* Allocate (or swap in) every page of the range without copying data. */
int os_touch(os_t *os, uint32_t pid, uint64_t va, size_t len);
/* Whether the OS can back [va, va+len) of pid (no allocation): SIM_OK, SIM_ENOENT (pid),
 * SIM_EINVAL (empty, or outside the VA space). What a driver checks at registration. */
int os_va_check(const os_t *os, uint32_t pid, uint64_t va, size_t len);
/* Translate without allocating: SIM_OK, SIM_ENOENT, SIM_EINVAL, SIM_EFAULT (not resident). */
int os_translate(const os_t *os, uint32_t pid, uint64_t va, uint64_t *pa);

/* ---- pinning ---- */
/* Pin every page of [va, va+len) for device dev, allocating or swapping in as needed; all or
 * nothing. *cost (may be NULL) gets the cycles to charge: costs_pin(pages). len 0 pins nothing.
 * SIM_OK, SIM_ENOENT, SIM_EINVAL (range, dev), SIM_ENOMEM, SIM_EOVERFLOW. */
int os_pin(os_t *os, uint32_t pid, unsigned dev, uint64_t va, size_t len, sim_cycle_t *cost);
/* Drop one reference per page; all or nothing: SIM_ENOTPINNED if any page of the range is not
 * resident or holds no reference for dev (nothing is unpinned then). */
int os_unpin(os_t *os, uint32_t pid, unsigned dev, uint64_t va, size_t len, sim_cycle_t *cost);
/* Pages of pid with at least one pin reference (any device): the leak-check figure. */
uint64_t os_pinned_pages(const os_t *os, uint32_t pid);
uint64_t os_pinned_pages_total(const os_t *os);
uint64_t os_resident_pages(const os_t *os, uint32_t pid);

/* ---- moving pages ---- */
/* SIM_OK, SIM_ENOENT, SIM_EINVAL, SIM_EFAULT (not resident), SIM_EPINNED, SIM_ENOMEM. */
int os_migrate(os_t *os, uint32_t pid, uint64_t va);
int os_reclaim(os_t *os, uint32_t pid, uint64_t va);
/* Unmap a range: frames and swap copies freed; the next touch sees zeros. Refuses (SIM_EPINNED,
 * nothing unmapped) if any page of the range is pinned. */
int os_unmap(os_t *os, uint32_t pid, uint64_t va, size_t len);

void os_set_notifier(os_t *os, os_notify_fn fn, void *ctx);
/*
 * MMU notifier, invalidate-before-move (seed 004; Linux's invalidate_range_start): with a hook set,
 * os_migrate / os_reclaim of a pinned page first call fn(ctx, ev, pid, va) (ev: OS_MM_MIGRATE or
 * OS_MM_RECLAIM), whose subscriber (a device driver) stops using the page and drops its pins (a NIC
 * driver: invalidates the NIC's cached translation and waits for the NIC's answer, then unpins);
 * the page is moved only if no pin is left afterwards (else SIM_EPINNED, refused_pinned). fn may
 * block (a coroutine): callers that move pages must then run in one (os_pressure_step from a
 * coroutine). NULL fn: pinned pages are never moved.
 */
typedef void (*os_mmu_release_fn)(void *ctx, enum os_mm_event ev, uint32_t pid, uint64_t va);
void os_set_mmu_release(os_t *os, os_mmu_release_fn fn, void *ctx);
void os_set_policy(os_t *os, os_policy_fn fn, void *ctx); /* NULL = default */
/* Default victim choice, usable from a policy: one seeded random unpinned resident page, moved
 * as configured. Returns 1 if a page was moved, 0 if no candidate exists. */
int os_pressure_default(os_t *os);
sim_cycle_t os_pressure_next_event(const os_t *os); /* SIM_CYCLE_NEVER when off */
/* Runs every pressure event due at or before now; returns pages moved (or a SIM_E* from a policy). */
int os_pressure_step(os_t *os, sim_cycle_t now);

const struct os_counters *os_counters(const os_t *os);

#endif /* OS_H */
