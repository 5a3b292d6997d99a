/*
 * pcie.h - the PCIe link between a host and one NIC, as timed queues.
 *
 * Role map: one instance per NIC. Two serial links, each with a bandwidth in bytes per cycle:
 *   upstream (NIC -> host):   DMA writes, DMA read requests, MMIO read completions, MSI interrupts
 *   downstream (host -> NIC): MMIO writes and read requests, DMA read data (completions)
 * Each transaction occupies its link for its wire size (payload + tlp_overhead per TLP, split at
 * max_payload), in the order it was issued; link time is exact (kept in byte units, so a 39 B/cycle
 * link moves 39 bytes per cycle on average, not 256 bytes per 7 cycles). A fixed latency is
 * added after serialization. Each direction is one FIFO with non-decreasing arrival times, so the
 * PCIe ordering rule that matters here holds: nothing passes an earlier posted write (a
 * completion or an MSI never overtakes the DMA data written before it).
 *
 * Timing (cycles; ser(n) = link time of n wire bytes):
 *   MMIO write:  visible to the NIC at issue + ser + mmio_write_latency
 *   MMIO read:   request at the NIC after ser + mmio_read_latency/2; the NIC answers with
 *                pcie_mmio_read_reply; the value is at the host ser + (mmio_read_latency - /2) later
 *   DMA write:   applied to host memory (through the hostmem oracle) at
 *                issue + ser(data) + dma_write_latency; the write-done status is visible to the NIC
 *                at that same cycle (a modelling convenience so that errors are reported)
 *   DMA read:    host memory read (oracle) at issue + ser(request) + dma_write_latency; data beats
 *                (max_payload each) leave the host dma_read_latency - dma_write_latency later and
 *                arrive after their serialization: with idle links and no overhead, the last of N
 *                bytes arrives at issue + dma_read_latency + ceil(N / bytes_per_cycle)
 *   MSI:         at the host at issue + ser + dma_write_latency
 *
 * Host-side effects (memory accesses, completions, interrupts) happen in pcie_advance(now) for
 * everything whose time is <= now, stamped with its exact cycle; every other entry point calls it
 * first. The harness calls the model at least at every pcie_next_event() time.
 *
 * Contract: single-threaded; create/destroy; queues bounded by queue_depth (SIM_EFULL is
 * back-pressure: nothing was queued, retry later). Data buffers are allocated at create time.
 */
#ifndef PCIE_H
#define PCIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostmem.h"
#include "sim_err.h"
#include "sim_time.h"

#define PCIE_MAX_XFER 16384   /* largest DMA request (a max-size frame) */
#define PCIE_MAX_PAYLOAD 4096 /* largest max_payload setting (the PCIe maximum) */
#define PCIE_MMIO_TAGS 16     /* outstanding host MMIO reads */

typedef struct pcie pcie_t;

struct pcie_config {
    uint32_t bytes_per_cycle;       /* per direction (default 39: gen3 x8 7.9 GB/s at 200 MHz) */
    uint32_t max_payload;           /* TLP payload split, 64..PCIE_MAX_PAYLOAD, power of 2 (256) */
    uint32_t tlp_overhead;          /* wire bytes per TLP besides payload (default 0: the
                                       bandwidth is the effective one) */
    sim_cycle_t mmio_write_latency; /* default 60 (300 ns) */
    sim_cycle_t mmio_read_latency;  /* round trip, device time excluded; default 160 (800 ns) */
    sim_cycle_t dma_write_latency;  /* one-way NIC -> host memory; default 60 (300 ns) */
    sim_cycle_t dma_read_latency;   /* request -> first data, serialization excluded; default
                                       120 (600 ns); values below dma_write_latency are raised */
    uint32_t queue_depth;           /* per queue (default 64) */
    unsigned dev;                   /* device id used for the hostmem oracle (default 0) */
};

enum pcie_mmio_kind { PCIE_MMIO_WRITE = 1, PCIE_MMIO_READ = 2 };

struct pcie_mmio {
    enum pcie_mmio_kind kind;
    uint64_t addr; /* BAR offset */
    uint64_t data; /* write data (little-endian, size bytes) */
    unsigned size; /* 1, 2, 4 or 8 */
    unsigned tag;  /* reads: pass back to pcie_mmio_read_reply */
};

struct pcie_rd_beat {
    uint32_t tag;
    uint32_t offset; /* of this beat within the request */
    uint32_t len;    /* 0 on error */
    int status;      /* SIM_OK, or SIM_EBUS / SIM_EUNPINNED (one beat, last, no data) */
    bool last;
    uint8_t data[PCIE_MAX_PAYLOAD];
};

struct pcie_wr_done {
    uint32_t tag;
    uint32_t len;
    int status; /* SIM_OK, SIM_EBUS, SIM_EUNPINNED */
};

struct pcie_counters {
    uint64_t mmio_writes, mmio_reads, irqs;
    uint64_t dma_reads, dma_read_bytes, dma_writes, dma_write_bytes, dma_errors;
    uint64_t up_wire_bytes, down_wire_bytes;
    uint64_t full_rejects;
};

/* Told when an MMIO read completion or an MSI reaches the host (e.g. to signal a coro event). */
typedef void (*pcie_host_notify_fn)(void *ctx, sim_cycle_t when);

void pcie_config_default(struct pcie_config *cfg);
/* Default latencies were chosen for 200 MHz; this rescales them (and the bandwidth, from 7.9 GB/s)
 * for another clock. */
void pcie_config_for_clock(struct pcie_config *cfg, uint64_t clock_hz);

/* NULL cfg = defaults. NULL if cfg is invalid or memory is short. mem outlives the model. */
pcie_t *pcie_create(const struct pcie_config *cfg, hostmem_t *mem);
void pcie_destroy(pcie_t *p); /* NULL is fine */
void pcie_set_host_notify(pcie_t *p, pcie_host_notify_fn fn, void *ctx);

/* Process host-side arrivals due at or before now. Time must not go backwards. */
void pcie_advance(pcie_t *p, sim_cycle_t now);
/* Earliest cycle at which something becomes due or visible; SIM_CYCLE_NEVER when idle. It is
 * <= now while an item the harness should pop (MMIO request, read beat, write-done, MSI) is
 * waiting, so pop everything due at each call. */
sim_cycle_t pcie_next_event(const pcie_t *p);
bool pcie_idle(const pcie_t *p);

/* ---- host side ---- */
/* SIM_OK, SIM_EINVAL (size), SIM_EFULL. */
int pcie_mmio_write(pcie_t *p, sim_cycle_t now, uint64_t addr, uint64_t data, unsigned size);
/* Issue a read; *tag identifies it. SIM_OK, SIM_EINVAL, SIM_EFULL (queue or tags). */
int pcie_mmio_read(pcie_t *p, sim_cycle_t now, uint64_t addr, unsigned size, unsigned *tag);
/* SIM_OK (value in *data, tag freed), SIM_EAGAIN (not back yet), SIM_ENOENT (no such read). */
int pcie_mmio_read_result(pcie_t *p, sim_cycle_t now, unsigned tag, uint64_t *data);
/* Next MSI vector that reached the host: SIM_OK or SIM_EAGAIN. */
int pcie_irq_pop(pcie_t *p, sim_cycle_t now, uint32_t *vector);

/* ---- NIC side ---- */
/* Next MMIO request that reached the NIC: SIM_OK or SIM_EAGAIN. */
int pcie_mmio_pop(pcie_t *p, sim_cycle_t now, struct pcie_mmio *req);
/* Answer an MMIO read. SIM_OK, SIM_ENOENT (tag not awaiting a reply), SIM_EFULL. */
int pcie_mmio_read_reply(pcie_t *p, sim_cycle_t now, unsigned tag, uint64_t data);
/* DMA read of len (1..PCIE_MAX_XFER) bytes at host physical paddr. SIM_OK, SIM_EINVAL, SIM_EFULL. */
int pcie_dma_read_req(pcie_t *p, sim_cycle_t now, uint32_t tag, uint64_t paddr, uint32_t len);
/* Next read data beat that reached the NIC: SIM_OK or SIM_EAGAIN. Beats of one request come in
 * order; requests complete in issue order. */
int pcie_dma_read_data(pcie_t *p, sim_cycle_t now, struct pcie_rd_beat *beat);
/* DMA write of len (1..PCIE_MAX_XFER) bytes (copied). SIM_OK, SIM_EINVAL, SIM_EFULL. */
int pcie_dma_write(pcie_t *p, sim_cycle_t now, uint32_t tag, uint64_t paddr, const void *data, uint32_t len);
/* Next write-done status: SIM_OK or SIM_EAGAIN. */
int pcie_dma_write_done(pcie_t *p, sim_cycle_t now, struct pcie_wr_done *done);
/* Raise an MSI. SIM_OK or SIM_EFULL. */
int pcie_irq(pcie_t *p, sim_cycle_t now, uint32_t vector);

const struct pcie_counters *pcie_counters(const pcie_t *p);
const struct pcie_config *pcie_config(const pcie_t *p);

#endif /* PCIE_H */
