/*
 * hostmem.h - sparse host physical memory and the unpinned-DMA oracle.
 *
 * Role map: one instance per simulated host. Physical memory is a range of 4 KiB frames
 * [base_pfn, base_pfn + max_frames); a frame has storage only while it is allocated. Frames are
 * allocated and freed by the OS model only (hostmem_frame_alloc/free), which also maintains the
 * reverse map (frame -> owning pid and virtual page) used in violation reports. Each frame holds
 * one pin reference count per device id (a NIC is a device).
 *
 * Two access paths:
 *  - CPU accesses (hostmem_cpu_read/write): the OS model touching memory on behalf of a process
 *    or the kernel. They need an allocated frame, nothing else.
 *  - Device DMA (hostmem_dma_read/write): every NIC DMA goes through these. Each touched frame
 *    must exist (else SIM_EBUS, a host bus error) and be pinned for that device (else
 *    SIM_EUNPINNED). This is the correctness oracle of the translation machinery (brief section
 *    4): a DMA to an unpinned page means the NIC used a stale or wrong translation. A failing DMA
 *    touches nothing (all frames are checked before any byte moves). Each failure is recorded
 *    (address, frame, owner pid and virtual address, device, direction, cycle) and, in
 *    fail-loudly mode (the default), reported through the fail hook, whose default prints the
 *    record to stderr and abort()s the run.
 *
 * Contract: single-threaded; the instance is owned by the node harness. Frame storage is
 * allocated when a frame is allocated and released when it is freed; the frame table itself is
 * allocated once by hostmem_create. Counters saturate at UINT64_MAX.
 */
#ifndef HOSTMEM_H
#define HOSTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_err.h"
#include "sim_time.h"

#define HOSTMEM_PAGE_SHIFT 12
#define HOSTMEM_PAGE_SIZE (1u << HOSTMEM_PAGE_SHIFT)
#define HOSTMEM_MAX_DEVS 4        /* device ids 0..3 (a node has one NIC, id 0) */
#define HOSTMEM_PIN_MAX 0xFFFFu   /* pin count per device saturates here: SIM_EOVERFLOW */
#define HOSTMEM_VIOL_LOG 16       /* last violations kept in full */
#define HOSTMEM_NO_PID UINT32_MAX /* owner of a frame not mapped by any process */

typedef struct hostmem hostmem_t;

struct hostmem_config {
    uint64_t base_pfn;   /* first frame number (default 0x100: PA 0..1 MiB is never valid) */
    uint32_t max_frames; /* frames in the physical range (default 65536 = 256 MiB) */
    bool scatter;        /* allocate frames in a seeded pseudo-random order (default true), so
                          * that virtually contiguous pages are physically scattered */
    uint64_t seed;       /* for scatter */
    bool fail_loudly;    /* call the fail hook on every violation (default true) */
};

enum hostmem_viol_kind {
    HOSTMEM_VIOL_BUS = 1,      /* no frame at that address */
    HOSTMEM_VIOL_UNPINNED = 2, /* frame exists but is not pinned for the device */
};

struct hostmem_violation {
    enum hostmem_viol_kind kind;
    bool is_write;
    unsigned dev;
    uint64_t paddr;   /* first address of the DMA */
    uint32_t len;     /* length of the DMA */
    uint64_t bad_pa;  /* first offending byte address */
    uint64_t pfn;     /* its frame */
    uint32_t pid;     /* owner of that frame, HOSTMEM_NO_PID if none */
    uint64_t va;      /* virtual address of bad_pa in that process (0 if no owner) */
    sim_cycle_t when; /* hostmem_set_now() value at the time */
};

struct hostmem_counters {
    uint64_t dma_bytes_read, dma_bytes_written, dma_reads, dma_writes;
    uint64_t cpu_bytes_read, cpu_bytes_written;
    uint64_t violations, bus_errors, unpinned_errors;
    uint64_t frames_in_use, frames_peak, frame_allocs, frame_frees;
};

/* Called on every violation in fail-loudly mode. If it returns, the DMA returns its error. */
typedef void (*hostmem_fail_fn)(void *ctx, const struct hostmem_violation *v, const char *msg);

void hostmem_config_default(struct hostmem_config *cfg);

/* NULL cfg = defaults. Returns NULL if the configuration is invalid or memory is short. */
hostmem_t *hostmem_create(const struct hostmem_config *cfg);
void hostmem_destroy(hostmem_t *mem); /* NULL is fine */

/* Time stamp for violation records (the harness or the PCIe model sets it). */
void hostmem_set_now(hostmem_t *mem, sim_cycle_t now);
void hostmem_set_fail_loudly(hostmem_t *mem, bool on);
/* fn NULL restores the default (print and abort). */
void hostmem_set_fail_hook(hostmem_t *mem, hostmem_fail_fn fn, void *ctx);

/* ---- OS model interface ---- */
/* Allocate a zeroed frame: SIM_OK, SIM_ENOMEM (none free or no storage). */
int hostmem_frame_alloc(hostmem_t *mem, uint64_t *pfn);
/* Free a frame: SIM_OK, SIM_EINVAL (not allocated), SIM_EPINNED (pinned for some device). */
int hostmem_frame_free(hostmem_t *mem, uint64_t pfn);
/* Reverse map: which process and virtual page the frame backs (pid HOSTMEM_NO_PID = none). */
int hostmem_set_owner(hostmem_t *mem, uint64_t pfn, uint32_t pid, uint64_t vpn);
int hostmem_get_owner(const hostmem_t *mem, uint64_t pfn, uint32_t *pid, uint64_t *vpn);
/* Copy a whole frame (migration). SIM_EINVAL if either is not allocated. */
int hostmem_frame_copy(hostmem_t *mem, uint64_t dst_pfn, uint64_t src_pfn);
bool hostmem_frame_exists(const hostmem_t *mem, uint64_t pfn);
/* The physical range: frames [*base_pfn, *base_pfn + *nframes). */
void hostmem_range(const hostmem_t *mem, uint64_t *base_pfn, uint32_t *nframes);

/* Pin references per device: SIM_OK, SIM_EINVAL (bad dev / no frame), SIM_EOVERFLOW (count at
 * HOSTMEM_PIN_MAX), SIM_ENOTPINNED (unpin with count 0). */
int hostmem_pin(hostmem_t *mem, unsigned dev, uint64_t pfn);
int hostmem_unpin(hostmem_t *mem, unsigned dev, uint64_t pfn);
/* Pin count for one device (0 if no frame), and the sum over devices. */
uint32_t hostmem_pin_count(const hostmem_t *mem, unsigned dev, uint64_t pfn);
uint32_t hostmem_pin_total(const hostmem_t *mem, uint64_t pfn);

/* ---- accesses ---- */
/* CPU: SIM_OK, SIM_EBUS (some frame missing; nothing copied). len 0 is a no-op. */
int hostmem_cpu_read(hostmem_t *mem, uint64_t paddr, void *buf, size_t len);
int hostmem_cpu_write(hostmem_t *mem, uint64_t paddr, const void *buf, size_t len);
/* Device DMA, checked by the oracle: SIM_OK, SIM_EINVAL (dev out of range), SIM_EBUS,
 * SIM_EUNPINNED. On error nothing is copied and the violation is recorded. */
int hostmem_dma_read(hostmem_t *mem, unsigned dev, uint64_t paddr, void *buf, size_t len);
int hostmem_dma_write(hostmem_t *mem, unsigned dev, uint64_t paddr, const void *buf, size_t len);

/* ---- reports ---- */
const struct hostmem_counters *hostmem_counters(const hostmem_t *mem);
/* The n-th most recent violation (0 = last): SIM_OK or SIM_ENOENT. */
int hostmem_violation_get(const hostmem_t *mem, unsigned n, struct hostmem_violation *out);
/* One-line description; returns the snprintf length. */
int hostmem_violation_format(const struct hostmem_violation *v, char *buf, size_t n);

#endif /* HOSTMEM_H */
