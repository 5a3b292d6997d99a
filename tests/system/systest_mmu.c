/*
 * systest_mmu - MMU-notifier invalidation (issue 15, item 5; seed 004): the OS moves and reclaims
 * pages the driver pinned for the NIC while RDMA traffic uses them; the driver's notifier
 * (nicdrv_mmu_release, subscribed with os_set_mmu_release) invalidates the NIC's VMH line and waits
 * for the NCP's answer before it unpins, so the NIC never touches a page the OS took.
 *
 * Two nodes, one process each. Each registers a source (random bytes), a target and a scratch
 * buffer (64 pages each: one VMH line) and makes OPS transfers: a write of 1 B .. 16 KiB from its
 * source to a random place of the other's target, then a read of a random range of that target into
 * its scratch buffer, compared with what the target must hold. Meanwhile each node's OS runs
 * background memory pressure (a "kswapd" coroutine: os_pressure_step every PERIOD cycles, 2 victims
 * per event among every resident page of the processes, pinned ones included: half migrated, half
 * reclaimed). The unpinned-DMA oracle counts (instead of aborting).
 *
 *   systest_mmu notifier IMAGE [SEED]   every completion SUCCESS, every byte verified (each read and
 *                                       both targets at the end), the notifier invalidated lines on
 *                                       both nodes (> 0) and the OS moved pages it released (> 0),
 *                                       no oracle violation, nothing pinned after close
 *   systest_mmu unsafe IMAGE [SEED]     the same with the notifier's invalidation skipped (the
 *                                       driver unpins a line the NIC still maps): the test passes
 *                                       only if that is caught (oracle violations, wrong bytes or
 *                                       error completions): the checks above can fail
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "coro.h"
#include "hostsw.h"
#include "nic.h"
#include "systest_util.h"

#define BLEN 262144u /* 64 pages */
#define MAXLEN 16384u
#define VA_SRC 0x10000000ull
#define VA_DST 0x20000000ull
#define VA_SCR 0x30000000ull
#define OPS 40u
#define PERIOD 40000u
#define WAITC 400000000ull

struct proc {
    unsigned k;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
    struct nic_mr src, dst, scr;
    uint8_t *s, *sh; /* what src holds; what dst must hold */
    uint64_t rng;
};

static struct {
    int unsafe;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    int probed[2], ready[2], writing_done[2];
    unsigned done, nodes_done;
    struct proc p[2];
    uint64_t ops, bytes, bad_status, mismatches, violations;
    unsigned failed;
    struct nicdrv_stats dst[2];
} W;

#define FAIL(...)                                                                                         \
    do {                                                                                                  \
        fprintf(stderr, "systest_mmu: " __VA_ARGS__);                                                     \
        fprintf(stderr, "\n");                                                                            \
        W.failed++;                                                                                       \
    } while (0)

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void oracle_hook(void *ctx, const struct hostmem_violation *v, const char *msg)
{
    (void)ctx;
    (void)v;
    if (W.violations++ < 3)
        fprintf(stderr, "systest_mmu: oracle: %s\n", msg);
}

static int xfer(struct proc *p, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff, uint64_t id)
{
    struct nic_wr wr = { .local_va = lva, .len = len, .remote_offset = roff, .wr_id = id, .signaled = 1 };
    struct nic_wc wc;
    int rc;
    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    rc = write ? nic_post_write(p->dev, p->ep, &wr) : nic_post_read(p->dev, p->ep, &wr);
    if (rc)
        return -100 + rc;
    rc = nic_wait(p->dev, p->ep, &wc, WAITC);
    if (rc)
        return -200 + rc;
    return wc.wr_id == id ? wc.status : -300;
}

static void prog_proc(void *arg)
{
    struct proc *p = arg;
    struct proc *q = &W.p[p->k ^ 1];
    nicdrv_t *drv = hostsw_driver(W.hs[p->k]);
    uint8_t *tmp = malloc(MAXLEN);

    p->rng = 0x9E3779B97F4A7C15ull * (p->k + 7);
    p->os = node_os(cluster_node(W.cl, p->k));
    p->s = malloc(BLEN), p->sh = malloc(BLEN);
    while (!W.probed[p->k])
        coro_sleep(2000);
    if (W.probed[p->k] < 0 || !tmp || !p->s || !p->sh || os_proc_create(p->os, 48, &p->pid) ||
        nic_dev_open(drv, p->pid, NULL, &p->dev) || nic_ep_open(p->dev, &p->ep)) {
        FAIL("process %u: set-up", p->k);
        goto out;
    }
    for (uint32_t i = 0; i < BLEN; i++)
        p->s[i] = (uint8_t)rng_next(&p->rng), p->sh[i] = (uint8_t)(i * 3 + p->k);
    if (os_write(p->os, p->pid, VA_SRC, p->s, BLEN) || os_write(p->os, p->pid, VA_DST, p->sh, BLEN) ||
        nic_reg(p->dev, VA_SRC, BLEN, NIC_ACCESS_LOCAL_READ, &p->src) ||
        nic_reg(p->dev, VA_DST, BLEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &p->dst) ||
        nic_reg(p->dev, VA_SCR, BLEN, NIC_ACCESS_LOCAL_WRITE, &p->scr)) {
        FAIL("process %u: buffers", p->k);
        goto out;
    }
    W.ready[p->k] = 1;
    while (!W.ready[p->k ^ 1])
        coro_sleep(2000);
    if (W.ready[p->k ^ 1] < 0)
        goto out;
    for (unsigned n = 0; n < OPS && !(W.failed && !W.unsafe); n++) {
        uint32_t len = 1 + (uint32_t)(rng_next(&p->rng) % MAXLEN);
        uint64_t loff = rng_next(&p->rng) % (BLEN - len + 1), roff = rng_next(&p->rng) % (BLEN - len + 1);
        int st = xfer(p, 1, VA_SRC + loff, len, &q->dst, roff, 2ull * n);
        W.ops++;
        if (st != NIC_WC_SUCCESS) {
            W.bad_status++;
            if (!W.unsafe)
                FAIL("process %u: write %u (%u B): status %d", p->k, n, len, st);
            break;
        }
        memcpy(q->sh + roff, p->s + loff, len);
        W.bytes += len;
        /* read back a random range of the other's target */
        len = 1 + (uint32_t)(rng_next(&p->rng) % MAXLEN);
        roff = rng_next(&p->rng) % (BLEN - len + 1);
        st = xfer(p, 0, VA_SCR, len, &q->dst, roff, 2ull * n + 1);
        W.ops++;
        if (st != NIC_WC_SUCCESS) {
            W.bad_status++;
            if (!W.unsafe)
                FAIL("process %u: read %u (%u B): status %d", p->k, n, len, st);
            break;
        }
        if (os_read(p->os, p->pid, VA_SCR, tmp, len) || memcmp(tmp, q->sh + roff, len)) {
            W.mismatches++;
            if (!W.unsafe)
                FAIL("process %u: read %u (%u B at %" PRIu64 ") differs from the target's bytes", p->k, n, len, roff);
        }
        W.bytes += len;
    }
    W.writing_done[p->k] = 1;
    while (!W.writing_done[p->k ^ 1])
        coro_sleep(2000);
    { /* nobody writes any more: this process's target holds its shadow */
        uint8_t *b = malloc(BLEN);
        if (!b || os_read(p->os, p->pid, VA_DST, b, BLEN) || memcmp(b, p->sh, BLEN)) {
            W.mismatches++;
            if (!W.unsafe)
                FAIL("process %u: its target buffer differs from its shadow", p->k);
        }
        free(b);
    }
out:
    W.ready[p->k] = W.ready[p->k] ? W.ready[p->k] : -1;
    W.writing_done[p->k] = 1;
    if (p->dev && nic_dev_close(p->dev))
        FAIL("process %u: close", p->k);
    free(tmp);
    W.done++;
}

/* The OS's background memory pressure on node n until every process is done. */
static void prog_kswapd(void *arg)
{
    unsigned n = (unsigned)(uintptr_t)arg;
    os_t *os = node_os(cluster_node(W.cl, n));
    while (W.done < 2) {
        sim_cycle_t t = os_pressure_next_event(os), now = coro_now();
        if (t > now)
            coro_sleep(t - now);
        if (W.done < 2 && W.ready[0] > 0 && W.ready[1] > 0)
            os_pressure_step(os, coro_now());
        else if (W.done < 2)
            coro_sleep(PERIOD);
    }
}

static void prog_node(void *arg)
{
    unsigned n = (unsigned)(uintptr_t)arg;
    char err[200] = "";
    nicdrv_t *drv = hostsw_driver(W.hs[n]);
    os_t *os = node_os(cluster_node(W.cl, n));

    W.probed[n] = nicdrv_probe(drv, W.img, W.img_len, err, sizeof err) ? -1 : 1;
    if (W.probed[n] < 0)
        FAIL("node %u: probe: %s", n, err);
    while (W.done < 2)
        coro_sleep(2000);
    nicdrv_stats(drv, &W.dst[n]);
    W.nodes_done++;
    while (W.nodes_done < 2 + n)
        coro_sleep(2000);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os))
        FAIL("node %u: %" PRIu64 " pages still pinned", n, os_pinned_pages_total(os));
    W.nodes_done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    (void)c;
    (void)ctx;
    return W.nodes_done == 4;
}

int main(int argc, char **argv)
{
    struct cluster_config cc;
    uint64_t seed;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3 || argc > 4 || (strcmp(argv[1], "notifier") && strcmp(argv[1], "unsafe"))) {
        fprintf(stderr, "usage: systest_mmu notifier|unsafe IMAGE [SEED]\n");
        return 1;
    }
    W.unsafe = !strcmp(argv[1], "unsafe");
    seed = argc == 4 ? strtoull(argv[3], NULL, 0) : 1;
    W.img = read_file(argv[2], &W.img_len);
    if (!W.img) {
        fprintf(stderr, "systest_mmu: cannot read %s\n", argv[2]);
        return 1;
    }
    cluster_config_default(&cc, 2);
    cc.console = stdout;
    cc.seed = seed;
    cc.node.os.pressure_period = PERIOD;
    cc.node.os.pressure_pages = 2;
    cc.node.os.pressure_migrate = 0.5;
    cc.node.os.pressure_pinned = true;
    cc.node.os.seed = seed;
    W.costs = costs_create(0, seed);
    W.cl = cluster_create(&cc, W.costs);
    if (!W.cl)
        return 1;
    for (unsigned i = 0; i < 2; i++) {
        struct nicdrv_config dc;
        hostmem_set_fail_hook(node_hostmem(cluster_node(W.cl, i)), oracle_hook, NULL);
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = 2;
        dc.mmu_notifier = true;
        dc.mmu_skip_invalidate = W.unsafe != 0;
        W.hs[i] = hostsw_create(W.cl, i, W.costs, &dc);
        node_set_reset(cluster_node(W.cl, i), false);
        W.p[i].k = i;
        if (!W.hs[i] || coro_spawn(cluster_sched(W.cl), "node", prog_node, (void *)(uintptr_t)i, NULL) ||
            coro_spawn(cluster_sched(W.cl), "proc", prog_proc, &W.p[i], NULL) ||
            coro_spawn(cluster_sched(W.cl), "kswapd", prog_kswapd, (void *)(uintptr_t)i, NULL))
            return 1;
    }
    if (cluster_run(W.cl, 3000000000ull, all_done, NULL, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0)
        FAIL("timeout at cycle %" PRIu64, (uint64_t)cluster_now(W.cl));
    uint64_t inval = 0, released = 0, moved = 0, asks = 0;
    for (unsigned i = 0; i < 2; i++) {
        const struct os_counters *oc = os_counters(node_os(cluster_node(W.cl, i)));
        printf("systest_mmu: node %u: OS pressure events %" PRIu64 ", migrations %" PRIu64 ", reclaims %" PRIu64
               ", pinned pages asked back %" PRIu64 " released %" PRIu64 ", refused %" PRIu64 "; driver: releases %" PRIu64
               " line invalidations %" PRIu64 " refused %" PRIu64 ", misses %" PRIu64 " fills %" PRIu64 "\n",
               i, oc->pressure_events, oc->migrations, oc->reclaims, oc->mmu_asks, oc->mmu_released, oc->refused_pinned,
               W.dst[i].mmu_releases, W.dst[i].mmu_invalidations, W.dst[i].mmu_refused, W.dst[i].misses,
               W.dst[i].fills);
        inval += W.dst[i].mmu_invalidations;
        released += oc->mmu_released;
        moved += oc->migrations + oc->reclaims;
        asks += oc->mmu_asks;
        if (!W.unsafe && !W.dst[i].mmu_invalidations)
            FAIL("node %u: the notifier invalidated no line: the pressure never reached a page the NIC used", i);
    }
    printf("systest_mmu: %s seed %" PRIu64 ": %" PRIu64 " ops, %" PRIu64 " bytes, %" PRIu64 " error completions, %" PRIu64
           " mismatches, %" PRIu64 " oracle violations, %" PRIu64 " cycles\n",
           W.unsafe ? "unsafe" : "notifier", seed, W.ops, W.bytes, W.bad_status, W.mismatches, W.violations,
           (uint64_t)cluster_now(W.cl));
    if (W.unsafe) {
        /* the broken notifier must be caught by the checks the notifier test relies on */
        if (!W.violations && !W.mismatches && !W.bad_status)
            FAIL("unpinning without invalidation went unnoticed (%" PRIu64 " pages released, %" PRIu64 " moved)",
                 released, moved);
    } else {
        if (W.violations)
            FAIL("%" PRIu64 " unpinned-DMA oracle violations", W.violations);
        if (!released || W.ops != 4 * OPS)
            FAIL("%" PRIu64 " pinned pages released to the OS (of %" PRIu64 " asked), %" PRIu64 " of %u operations",
                 released, asks, W.ops, 4 * OPS);
    }
    (void)inval;
    /* the oracle may fire in teardown of a broken run: the verdict is above */
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(W.hs[i]);
    cluster_destroy(W.cl);
    costs_destroy(W.costs);
    for (unsigned i = 0; i < 2; i++)
        free(W.p[i].s), free(W.p[i].sh);
    free(W.img);
    printf("systest_mmu: %s\n", W.failed ? "FAIL" : "PASS");
    return W.failed ? 1 : 0;
}
