/*
 * hostsw.h - host software on a simulated node: the driver instance (nicdrv) with its host
 * services backed by the node's OS model, host memory and the cluster's coroutines, its
 * interrupt top half and its miss thread.
 *
 * Role map (one per node):
 *   irq coroutine   woken by the PCIe model's host notification; pops MSIs (pcie_irq_pop), sleeps
 *                   the interrupt latency (costs_irq), runs nicdrv_intr
 *   miss coroutines cfg.miss_threads of them (default 1); each waits for queued misses; on wake-up sleeps the miss delay (costs_draw_wake),
 *                   then per miss the processing draw (costs_draw_miss_proc) plus the real work
 *                   (pinning charged by os_pin's cost, MMIO through the PCIe model, the FILL's
 *                   answer); records delay and processing with costs_record_miss
 *   host services   pin/unpin (os_pin cost slept), kernel pages (hostmem frames pinned for the
 *                   NIC), wait queues (coro events), system-call cost
 * User programs are coroutines the caller spawns; they call the driver (nicdrv_probe) and the
 * library (nic.h) with hostsw_driver().
 *
 * Contract: create after the cluster, destroy before it (destroy shuts the cluster's coroutines
 * down, so it is an end-of-run call); installs the node's PCIe host-notify
 * hook (nothing else in the harness uses it). costs is the cluster's cost model (draws advance
 * its generator).
 */
#ifndef HOSTSW_H
#define HOSTSW_H

#include "cluster.h"
#include "costs.h"
#include "nicdrv.h"

typedef struct hostsw hostsw_t;

struct hostsw_stats {
    uint64_t irqs, msis, misses_served, miss_errors, wakeups;
};

/* cfg NULL = defaults with node_id/nodes from the cluster. NULL on error. */
hostsw_t *hostsw_create(cluster_t *cl, unsigned node, costs_t *costs, const struct nicdrv_config *cfg);
void hostsw_destroy(hostsw_t *h); /* NULL is fine; the driver is destroyed (removed) first */
nicdrv_t *hostsw_driver(hostsw_t *h);
const struct hostsw_stats *hostsw_stats(const hostsw_t *h);
/* Whether the driver may ask the OS which ranges it can back (host->va_check; default on). Off
 * models a host that cannot tell: registration then accepts what no miss can resolve. */
void hostsw_set_va_check(hostsw_t *h, bool on);

#endif /* HOSTSW_H */
