/*
 * hostsw.c - the driver's host services, top half and miss thread on a simulated node
 * (contract: hostsw.h; how the harness drives hosts: docs/models.md "Driving the models").
 */
#include "hostsw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coro.h"
#include "hostbus.h"
#include "os.h"

struct hostsw {
    cluster_t *cl;
    node_t *node;
    costs_t *costs;
    nicdrv_t *drv;
    struct nicdrv_bus bus;
    coro_event_t irq_ev, wq[NICDRV_WQ__COUNT];
    unsigned dev;
    bool no_va_check;
    struct hostsw_stats st;
};

static int map(int rc)
{
    switch (rc) {
    case SIM_OK:
        return NICDRV_OK;
    case SIM_ETIMEDOUT:
        return NICDRV_ETIMEDOUT;
    case SIM_ECANCELED:
        return NICDRV_ECANCELED;
    case SIM_ENOMEM:
        return NICDRV_ENOMEM;
    default:
        return NICDRV_EFAULT;
    }
}

static int h_pin(void *ctx, uint32_t pid, uint64_t va, uint64_t len)
{
    struct hostsw *h = ctx;
    sim_cycle_t cost = 0;
    int rc = os_pin(node_os(h->node), pid, h->dev, va, len, &cost);

    if (rc == SIM_OK && cost)
        coro_sleep(cost); /* seed 004: the pinning cost is host CPU time on the miss path */
    return map(rc);
}

static int h_unpin(void *ctx, uint32_t pid, uint64_t va, uint64_t len)
{
    struct hostsw *h = ctx;
    sim_cycle_t cost = 0;
    int rc = os_unpin(node_os(h->node), pid, h->dev, va, len, &cost);

    if (rc == SIM_OK && cost)
        coro_sleep(cost);
    return map(rc);
}

static int h_translate(void *ctx, uint32_t pid, uint64_t va, uint64_t *pa)
{
    return map(os_translate(node_os(((struct hostsw *)ctx)->node), pid, va, pa));
}

static int h_va_check(void *ctx, uint32_t pid, uint64_t va, uint64_t len)
{
    if (((struct hostsw *)ctx)->no_va_check)
        return NICDRV_OK;
    return os_va_check(node_os(((struct hostsw *)ctx)->node), pid, va, (size_t)len) == SIM_OK ? NICDRV_OK
                                                                                            : NICDRV_EFAULT;
}

static int h_proc_read(void *ctx, uint32_t pid, uint64_t va, void *buf, size_t len)
{
    return map(os_read(node_os(((struct hostsw *)ctx)->node), pid, va, buf, len));
}

static int h_proc_write(void *ctx, uint32_t pid, uint64_t va, const void *buf, size_t len)
{
    return map(os_write(node_os(((struct hostsw *)ctx)->node), pid, va, buf, len));
}

static int h_dma_alloc(void *ctx, uint64_t *pa)
{
    struct hostsw *h = ctx;
    hostmem_t *mem = node_hostmem(h->node);
    static const uint8_t zero[HOSTMEM_PAGE_SIZE];
    uint64_t pfn;

    if (hostmem_frame_alloc(mem, &pfn))
        return NICDRV_ENOMEM;
    if (hostmem_pin(mem, h->dev, pfn)) {
        hostmem_frame_free(mem, pfn);
        return NICDRV_ENOMEM;
    }
    *pa = pfn << HOSTMEM_PAGE_SHIFT;
    hostmem_cpu_write(mem, *pa, zero, sizeof zero);
    return NICDRV_OK;
}

static void h_dma_free(void *ctx, uint64_t pa)
{
    struct hostsw *h = ctx;
    hostmem_unpin(node_hostmem(h->node), h->dev, pa >> HOSTMEM_PAGE_SHIFT);
    hostmem_frame_free(node_hostmem(h->node), pa >> HOSTMEM_PAGE_SHIFT);
}

static int h_phys_read(void *ctx, uint64_t pa, void *buf, size_t len)
{
    return map(hostmem_cpu_read(node_hostmem(((struct hostsw *)ctx)->node), pa, buf, len));
}

static int h_phys_write(void *ctx, uint64_t pa, const void *buf, size_t len)
{
    return map(hostmem_cpu_write(node_hostmem(((struct hostsw *)ctx)->node), pa, buf, len));
}

static uint64_t h_now(void *ctx)
{
    (void)ctx;
    return coro_now();
}

static int h_sleep(void *ctx, uint64_t cycles)
{
    (void)ctx;
    return map(cycles ? coro_sleep(cycles) : coro_yield());
}

static uint64_t h_ev_count(void *ctx, enum nicdrv_waitq q)
{
    return coro_event_count(&((struct hostsw *)ctx)->wq[q]);
}

static void h_ev_signal(void *ctx, enum nicdrv_waitq q)
{
    coro_event_signal(&((struct hostsw *)ctx)->wq[q], coro_now());
}

static int h_ev_wait(void *ctx, enum nicdrv_waitq q, uint64_t seen, uint64_t deadline)
{
    struct hostsw *h = ctx;
    return map(coro_wait_change(&h->wq[q], seen, deadline == NICDRV_NEVER ? SIM_CYCLE_NEVER : deadline));
}

static void h_syscall(void *ctx)
{
    struct hostsw *h = ctx;
    sim_cycle_t c = costs_syscall(h->costs);
    if (c)
        coro_sleep(c);
}

/* PCIe model: an MSI or an MMIO read completion reached the host. */
static void on_host_notify(void *ctx, sim_cycle_t when)
{
    struct hostsw *h = ctx;
    coro_event_signal(&h->irq_ev, when);
}

/* Interrupt top half: MSIs are popped at once (the PCIe model holds its next event until they
 * are), the handler runs after the interrupt latency. */
static void irq_thread(void *arg)
{
    struct hostsw *h = arg;
    pcie_t *p = node_pcie(h->node);

    for (;;) {
        uint64_t seen = coro_event_count(&h->irq_ev);
        uint32_t v;
        unsigned n = 0;
        sim_cycle_t at = coro_now();

        while (pcie_irq_pop(p, coro_now(), &v) == SIM_OK)
            n++;
        if (n) {
            h->st.msis += n;
            if (coro_sleep(costs_irq(h->costs)) != SIM_OK)
                return;
            h->st.irqs++;
            nicdrv_intr(h->drv, at);
            continue;
        }
        if (coro_wait_change(&h->irq_ev, seen, SIM_CYCLE_NEVER) != SIM_OK)
            return;
    }
}

/* The miss thread (seed 000: an in-kernel thread; cfg.miss_threads of them, default 1). delay =
 * interrupt at the host -> a thread starts on the miss; processing = start -> the FILL answered.
 * With several threads the base processing of different misses overlaps; the table work and the
 * FILL commands stay ordered by the driver's tbl_lock. */
static void miss_thread(void *arg)
{
    struct hostsw *h = arg;

    for (;;) {
        uint64_t seen = coro_event_count(&h->wq[NICDRV_WQ_MISS]);
        struct nicdrv_miss m;

        if (nicdrv_miss_pop(h->drv, &m) != NICDRV_OK) {
            if (coro_wait_change(&h->wq[NICDRV_WQ_MISS], seen, SIM_CYCLE_NEVER) != SIM_OK)
                return;
            h->st.wakeups++;
            if (coro_sleep(costs_draw_wake(h->costs)) != SIM_OK)
                return;
            continue;
        }
        sim_cycle_t start = coro_now();
        struct nicdrv_stats ds;
        if (coro_sleep(costs_draw_miss_proc(h->costs)) != SIM_OK)
            return;
        nicdrv_stats(h->drv, &ds);
        /* the fill: this miss's time in FILL commands (the driver's one counter: with several miss
         * threads, also the other threads' fills that end meanwhile) */
        uint64_t fill0 = ds.fill_wait;
        if (nicdrv_miss_resolve(h->drv, &m) == NICDRV_OK)
            h->st.misses_served++;
        else
            h->st.miss_errors++;
        nicdrv_stats(h->drv, &ds);
        costs_record_miss_fill(h->costs, start - (m.raised_at < start ? m.raised_at : start), coro_now() - start,
                               ds.fill_wait - fill0);
    }
}

/* The pin worker (NICDRV_PIN_OVERLAP, seed 004's overlapped pinning): a kernel thread that pins
 * and fills registered buffers' lines ahead of traffic, a line per nicdrv_pin_step (pinning
 * charged by os_pin's cost, the FILL's answer waited for); woken by a registration, after the
 * same wake-up delay as the miss thread. */
static void pin_thread(void *arg)
{
    struct hostsw *h = arg;

    for (;;) {
        uint64_t seen = coro_event_count(&h->wq[NICDRV_WQ_PIN]);
        if (nicdrv_pin_step(h->drv) == NICDRV_OK)
            continue;
        if (coro_wait_change(&h->wq[NICDRV_WQ_PIN], seen, SIM_CYCLE_NEVER) != SIM_OK)
            return;
        if (coro_sleep(costs_draw_wake(h->costs)) != SIM_OK)
            return;
    }
}

/* The OS's invalidate-before-move hook (os_set_mmu_release): the driver releases the page (runs in
 * the coroutine that moves pages: the OS's pressure thread). */
static void h_mmu_release(void *ctx, enum os_mm_event ev, uint32_t pid, uint64_t va)
{
    struct hostsw *h = ctx;
    (void)ev;
    (void)nicdrv_mmu_release(h->drv, pid, va); /* refused: the page stays pinned, the OS skips it */
}

hostsw_t *hostsw_create(cluster_t *cl, unsigned node, costs_t *costs, const struct nicdrv_config *cfg)
{
    struct hostsw *h;
    struct nicdrv_config c;
    struct nicdrv_host host;

    if (!cl || !costs || node >= cluster_nodes(cl))
        return NULL;
    h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->cl = cl;
    h->node = cluster_node(cl, node);
    h->costs = costs;
    h->dev = pcie_config(node_pcie(h->node))->dev;
    coro_event_init(&h->irq_ev);
    for (unsigned i = 0; i < NICDRV_WQ__COUNT; i++)
        coro_event_init(&h->wq[i]);
    hostbus_init(&h->bus, h->node);
    if (cfg) {
        c = *cfg;
    } else {
        nicdrv_config_default(&c);
        c.node_id = (uint16_t)node;
        c.nodes = (uint16_t)cluster_nodes(cl);
    }
    /* the harness's secrets (reproducible from the cluster seed), unless the caller chose its own */
    if (!c.key_seed)
        c.key_seed = cluster_secret(cl, CLUSTER_SECRET_KEYS + node);
    if (!c.fabric_secret)
        c.fabric_secret = cluster_secret(cl, CLUSTER_SECRET_FABRIC);
    memset(&host, 0, sizeof host);
    host = (struct nicdrv_host){ .ctx = h,
                                 .pin = h_pin,
                                 .unpin = h_unpin,
                                 .translate = h_translate,
                                 .proc_read = h_proc_read,
                                 .proc_write = h_proc_write,
                                 .dma_alloc = h_dma_alloc,
                                 .dma_free = h_dma_free,
                                 .phys_read = h_phys_read,
                                 .phys_write = h_phys_write,
                                 .now = h_now,
                                 .sleep = h_sleep,
                                 .ev_count = h_ev_count,
                                 .ev_signal = h_ev_signal,
                                 .ev_wait = h_ev_wait,
                                 .syscall = h_syscall,
                                 .va_check = h_va_check };
    h->drv = nicdrv_create(&h->bus, &host, &c);
    int bad = !h->drv || coro_spawn(cluster_sched(cl), "nic-irq", irq_thread, h, NULL);
    for (uint32_t i = 0; !bad && i < c.miss_threads; i++)
        bad = coro_spawn(cluster_sched(cl), "nic-miss", miss_thread, h, NULL);
    if (!bad && c.pin_mode == NICDRV_PIN_OVERLAP)
        bad = coro_spawn(cluster_sched(cl), "nic-pin", pin_thread, h, NULL);
    if (bad) {
        nicdrv_destroy(h->drv);
        free(h);
        return NULL;
    }
    pcie_set_host_notify(node_pcie(h->node), on_host_notify, h);
    if (c.mmu_notifier)
        os_set_mmu_release(node_os(h->node), h_mmu_release, h);
    return h;
}

void hostsw_destroy(hostsw_t *h)
{
    if (!h)
        return;
    coro_sched_shutdown(cluster_sched(h->cl)); /* our coroutines must not outlive h */
    pcie_set_host_notify(node_pcie(h->node), NULL, NULL);
    os_set_mmu_release(node_os(h->node), NULL, NULL);
    if (nicdrv_probed(h->drv))
        fprintf(stderr, "hostsw: node driver destroyed while probed (call nicdrv_remove from a coroutine)\n");
    else
        nicdrv_destroy(h->drv); /* not probed: nothing to tell the NIC */
    free(h);
}

nicdrv_t *hostsw_driver(hostsw_t *h)
{
    return h->drv;
}

const struct hostsw_stats *hostsw_stats(const hostsw_t *h)
{
    return &h->st;
}

void hostsw_set_va_check(hostsw_t *h, bool on)
{
    h->no_va_check = !on;
}
