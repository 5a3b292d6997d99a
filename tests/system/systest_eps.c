/*
 * systest_eps - many endpoints per NIC (issue 15, item 2; docs/host-interface.md "Host endpoints"):
 * NPROC processes on node 0 open EPP endpoints each (NPROC * EPP >= 256 on one NIC: the 15 resident
 * ones, the rest host endpoints whose contexts the NCP caches in 16 slots), and every endpoint
 * carries traffic to node 1's target process T: per round, a write of its own pattern into its own
 * slice of T's buffer on each of the process's endpoints at once, then a read of that slice back on
 * the same endpoint, compared byte by byte; at the end T's whole buffer is compared with the last
 * round's patterns. Then the protection phase, from process 0 with the raw doorbell pages:
 *   - a ring of another process's host endpoint naming entries it never posted: refused, counted,
 *     nothing executed (the victim's queue stays empty, its next write succeeds)
 *   - a ring with a count beyond the queue: refused, counted
 *   - a ring of an endpoint id that is not open: refused, counted
 * Checks: every completion SUCCESS with its bytes, every byte right, node 0's ep_fills >= the host
 * endpoints opened, ep_evictions > 0, ep_db_refused == 3, no oracle violation, nothing pinned after
 * close. Usage: systest_eps IMAGE [--seed N] [--procs P]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "coro.h"
#include "hostsw.h"
#include "nic.h"
#include "nic_regs.h"
#include "systest_util.h"

#define EPP NIC_MAX_EPS     /* endpoints per process */
#define MAXPROC 48u
#define CHUNK 1536u         /* bytes per endpoint slice */
#define ROUNDS 3u
#define VA_SRC 0x10000000ull /* EPP chunks: what each endpoint writes */
#define VA_SCR 0x20000000ull /* EPP chunks: where it reads back */
#define VA_T 0x30000000ull   /* T's buffer: one chunk per endpoint of node 0 */
#define WAITC 40000000ull /* 200 ms */

struct proc {
    unsigned k;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep[EPP];
    uint32_t pid;
    struct nic_mr src, scr;
};

static struct {
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    unsigned nproc;
    int probed[2];
    struct proc p[MAXPROC];
    struct proc t;
    struct nic_mr tmr;
    int t_ready, prot_done, t_checked;
    unsigned tdone;
    unsigned ready, done, nodes_done, failed, host_eps, resident_eps;
    uint64_t ops, bytes;
    struct nic_stats nst[2], before;
} W;

#define FAIL(...)                                                                                         \
    do {                                                                                                  \
        fprintf(stderr, "systest_eps: " __VA_ARGS__);                                                     \
        fprintf(stderr, "\n");                                                                            \
        W.failed++;                                                                                       \
    } while (0)

static void wait_until(const int *f)
{
    while (!*f && !W.failed)
        coro_sleep(2000);
}

static uint8_t pat(unsigned g, unsigned round, uint32_t i)
{
    return (uint8_t)(g * 31u + round * 101u + i * 7u + (i >> 8));
}

static int wait_one(struct proc *p, unsigned j, uint64_t id, uint32_t bytes)
{
    struct nic_wc wc;
    int rc = nic_wait(p->dev, p->ep[j], &wc, WAITC);
    if (rc) {
        FAIL("proc %u ep %u: wait for %" PRIu64 ": %s", p->k, j, id, nic_strerror(rc));
        return -1;
    }
    if (wc.wr_id != id || wc.status != NIC_WC_SUCCESS || wc.bytes != bytes) {
        FAIL("proc %u ep %u: completion %" PRIu64 " status %s bytes %u, expected %" PRIu64 " SUCCESS %u", p->k, j,
             wc.wr_id, nic_wc_status_str(wc.status), wc.bytes, id, bytes);
        return -1;
    }
    W.ops++;
    return 0;
}

static int post(struct proc *p, unsigned j, int write, uint64_t lva, uint64_t roff, uint64_t id)
{
    struct nic_wr wr = { .local_va = lva, .len = CHUNK, .remote_offset = roff, .wr_id = id, .signaled = 1 };
    int rc;
    wr.remote = (struct nic_remote){ W.tmr.node, W.tmr.pid, W.tmr.handle, W.tmr.rkey };
    rc = write ? nic_post_write(p->dev, p->ep[j], &wr) : nic_post_read(p->dev, p->ep[j], &wr);
    if (rc)
        FAIL("proc %u ep %u: post: %s", p->k, j, nic_strerror(rc));
    return rc;
}

static void traffic(struct proc *p)
{
    uint8_t buf[CHUNK], got[CHUNK];

    for (unsigned r = 0; r < ROUNDS && !W.failed; r++) {
        for (unsigned j = 0; j < EPP && !W.failed; j++) { /* a write on every endpoint at once */
            unsigned g = p->k * EPP + j;
            for (uint32_t i = 0; i < CHUNK; i++)
                buf[i] = pat(g, r, i);
            if (os_write(p->os, p->pid, VA_SRC + j * CHUNK, buf, CHUNK)) {
                FAIL("proc %u: source write", p->k);
                return;
            }
            if (post(p, j, 1, VA_SRC + j * CHUNK, (uint64_t)g * CHUNK, 1000u * r + j))
                return;
        }
        for (unsigned j = 0; j < EPP && !W.failed; j++)
            if (wait_one(p, j, 1000u * r + j, CHUNK))
                return;
        for (unsigned j = 0; j < EPP && !W.failed; j++) /* then a read back on every endpoint */
            if (post(p, j, 0, VA_SCR + j * CHUNK, (uint64_t)(p->k * EPP + j) * CHUNK, 1000u * r + 500 + j))
                return;
        for (unsigned j = 0; j < EPP && !W.failed; j++) {
            unsigned g = p->k * EPP + j;
            if (wait_one(p, j, 1000u * r + 500 + j, CHUNK))
                return;
            if (os_read(p->os, p->pid, VA_SCR + j * CHUNK, got, CHUNK)) {
                FAIL("proc %u: scratch read", p->k);
                return;
            }
            for (uint32_t i = 0; i < CHUNK; i++)
                if (got[i] != pat(g, r, i)) {
                    FAIL("proc %u ep %u round %u: byte %u read back 0x%02x, expected 0x%02x", p->k, j, r, i, got[i],
                         pat(g, r, i));
                    return;
                }
            W.bytes += 2u * CHUNK;
        }
    }
}

/* Process 0 rings endpoints that are not its own, through the raw doorbell pages. */
static void protection(struct proc *a)
{
    const struct nicdrv_bus *bus = nicdrv_bus_of(hostsw_driver(W.hs[0]));
    const struct nic_info *in = nicdrv_fw_info(hostsw_driver(W.hs[0]));
    struct proc *v = &W.p[W.nproc - 1]; /* the last process */
    unsigned vj = 0;
    uint32_t vid, free_id = 0;
    struct nic_wc wc;
    struct nic_stats s;
    int n;

    while (vj < EPP - 1 && (v->ep[vj] & 0xFFFFu) < in->max_procs) /* one of its host endpoints */
        vj++;
    vid = v->ep[vj] & 0xFFFFu;
    if (vid < in->max_procs) {
        FAIL("the last process has no host endpoint");
        return;
    }
    for (uint32_t id = in->max_eps - 1; id >= in->max_procs && !free_id; id--) {
        int used = 0;
        for (unsigned k = 0; k < W.nproc; k++)
            for (unsigned j = 0; j < EPP; j++)
                used |= (W.p[k].ep[j] & 0xFFFFu) == id;
        if (!used)
            free_id = id;
    }
    /* the victim's endpoint is used (so cached: its doorbell's count is checked at once and against
     * its record; an uncached endpoint's ring costs a fill, which reads the record, and executes
     * nothing more either) */
    if (post(v, vj, 1, VA_SRC + vj * CHUNK, (uint64_t)(v->k * EPP + vj) * CHUNK, 7776) || wait_one(v, vj, 7776, CHUNK))
        return;
    if (nicdrv_nic_stats(hostsw_driver(W.hs[0]), &W.before))
        FAIL("stats");
    /* 1: entries the victim never posted (it posted 2 * ROUNDS + 1, all retired): within the
     * queue's bounds, so only its record (in its own memory) can tell: refused when read */
    bus->wr32(bus->ctx, NICDRV_BAR_DOORBELL, vid * NIC_DB_PAGE + NIC_DB_SQ_PI, 2 * ROUNDS + 10);
    coro_sleep(100000);
    /* 2: a count beyond the queue */
    bus->wr32(bus->ctx, NICDRV_BAR_DOORBELL, vid * NIC_DB_PAGE + NIC_DB_SQ_PI, 2 * ROUNDS + 1000);
    /* 3: an endpoint id nobody has open */
    bus->wr32(bus->ctx, NICDRV_BAR_DOORBELL, free_id * NIC_DB_PAGE + NIC_DB_SQ_PI, 1);
    coro_sleep(400000); /* 2 ms */
    n = nic_poll(v->dev, v->ep[vj], &wc, 1);
    if (n != 0)
        FAIL("the victim's endpoint got %d completion(s) from a ring it did not make (wr_id %" PRIu64 ")", n,
             n > 0 ? wc.wr_id : 0);
    if (nicdrv_nic_stats(hostsw_driver(W.hs[0]), &s))
        FAIL("stats");
    else if (s.ep_db_refused - W.before.ep_db_refused != 3)
        FAIL("ep_db_refused went from %u to %u, expected +3 (foreign ring, count out of bounds, closed id %u)",
             W.before.ep_db_refused, s.ep_db_refused, free_id);
    /* the victim goes on: a write and its read back on the rung endpoint */
    if (!W.failed && !post(v, vj, 1, VA_SRC + vj * CHUNK, (uint64_t)(v->k * EPP + vj) * CHUNK, 7777))
        wait_one(v, vj, 7777, CHUNK);
    (void)a;
}

static void prog_target(void *arg)
{
    struct proc *p = arg;
    nicdrv_t *drv = hostsw_driver(W.hs[1]);

    p->os = node_os(cluster_node(W.cl, 1));
    wait_until(&W.probed[1]);
    uint8_t *zero = calloc(1, (size_t)W.nproc * EPP * CHUNK); /* the pages exist before registration */
    if (W.failed || !zero || os_proc_create(p->os, 48, &p->pid) || nic_dev_open(drv, p->pid, NULL, &p->dev) ||
        nic_ep_open(p->dev, &p->ep[0]) || /* a process is known to its NIC (PCH) while it has an endpoint */
        os_write(p->os, p->pid, VA_T, zero, (size_t)W.nproc * EPP * CHUNK) ||
        nic_reg(p->dev, VA_T, (uint64_t)W.nproc * EPP * CHUNK, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ,
                &W.tmr)) {
        FAIL("target set-up");
        goto out;
    }
    free(zero);
    zero = NULL;
    W.t_ready = 1;
    wait_until(&W.prot_done);
    { /* every slice holds its endpoint's last pattern (the victim's first rewrote round ROUNDS - 1's) */
        uint32_t len = W.nproc * EPP * CHUNK;
        uint8_t *b = malloc(len);
        if (!b || os_read(p->os, p->pid, VA_T, b, len)) {
            FAIL("target read");
        } else {
            for (uint32_t g = 0; g < W.nproc * EPP && !W.failed; g++)
                for (uint32_t i = 0; i < CHUNK; i++) {
                    uint8_t want = pat(g, ROUNDS - 1, i);
                    if (b[g * CHUNK + i] != want) {
                        FAIL("target: slice %u byte %u is 0x%02x, expected 0x%02x", g, i, b[g * CHUNK + i], want);
                        break;
                    }
                }
        }
        free(b);
    }
out:
    free(zero);
    W.t_checked = 1;
    if (p->dev && nic_dev_close(p->dev))
        FAIL("target close");
    W.done++;
}

static void prog_proc(void *arg)
{
    struct proc *p = arg;
    nicdrv_t *drv = hostsw_driver(W.hs[0]);
    const struct nic_info *in;

    p->os = node_os(cluster_node(W.cl, 0));
    wait_until(&W.probed[0]);
    wait_until(&W.t_ready);
    if (W.failed || os_proc_create(p->os, 48, &p->pid) || nic_dev_open(drv, p->pid, NULL, &p->dev)) {
        FAIL("proc %u: set-up", p->k);
        goto out;
    }
    in = nicdrv_fw_info(drv);
    for (unsigned j = 0; j < EPP; j++) {
        int rc = nic_ep_open(p->dev, &p->ep[j]);
        if (rc) {
            FAIL("proc %u: endpoint %u: %s", p->k, j, nic_strerror(rc));
            goto out;
        }
        if ((p->ep[j] & 0xFFFFu) >= in->max_procs)
            W.host_eps++;
        else
            W.resident_eps++;
    }
    {
        static const uint8_t zero[EPP * CHUNK];
        if (os_write(p->os, p->pid, VA_SRC, zero, sizeof zero) || os_write(p->os, p->pid, VA_SCR, zero, sizeof zero)) {
            FAIL("proc %u: memory", p->k);
            goto out;
        }
    }
    if (nic_reg(p->dev, VA_SRC, EPP * CHUNK, NIC_ACCESS_LOCAL_READ, &p->src) ||
        nic_reg(p->dev, VA_SCR, EPP * CHUNK, NIC_ACCESS_LOCAL_WRITE, &p->scr)) {
        FAIL("proc %u: registration", p->k);
        goto out;
    }
    W.ready++;
    while (W.ready < W.nproc && !W.failed)
        coro_sleep(2000);
    traffic(p);
    W.tdone++;
    while (W.tdone < W.nproc && !W.failed)
        coro_sleep(2000);
    if (p->k == 0) {
        protection(p);
        W.prot_done = 1;
    }
    wait_until(&W.prot_done);
    wait_until(&W.t_checked); /* the target checked its buffer */
out:
    if (p->dev) {
        int rc = nic_dev_close(p->dev);
        if (rc)
            FAIL("proc %u: close: %s", p->k, nic_strerror(rc));
    }
    if (W.failed)
        W.prot_done = W.t_ready = W.t_checked = 1;
    W.done++;
}

static void prog_node(void *arg)
{
    unsigned n = (unsigned)(uintptr_t)arg;
    char err[200] = "";
    nicdrv_t *drv = hostsw_driver(W.hs[n]);
    os_t *os = node_os(cluster_node(W.cl, n));

    if (nicdrv_probe(drv, W.img, W.img_len, err, sizeof err)) {
        FAIL("node %u: probe: %s", n, err);
        W.probed[0] = W.probed[1] = 1;
    }
    W.probed[n] = 1;
    while (W.done < W.nproc + 1)
        coro_sleep(2000);
    if (nicdrv_nic_stats(drv, &W.nst[n])) {
        const struct nicdrv_bus *bus = nicdrv_bus_of(drv);
        uint32_t fs = 0;
        bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_HOSTIF_OFFSET + NIC_HOSTIF_FW_STATE, &fs);
        FAIL("node %u: stats (fw_state 0x%x)", n, fs);
    }
    W.nodes_done++;
    while (W.nodes_done < 2 + n)
        coro_sleep(2000);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os))
        FAIL("node %u: %" PRIu64 " pages still pinned", n, (uint64_t)os_pinned_pages_total(os));
    W.nodes_done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    (void)c;
    (void)ctx;
    return W.nodes_done == 4 || (W.failed && W.nodes_done >= 2);
}

int main(int argc, char **argv)
{
    struct cluster_config cc;
    uint64_t seed = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    W.nproc = 36;
    if (argc < 2) {
        fprintf(stderr, "usage: systest_eps IMAGE [--seed N] [--procs P]\n");
        return 1;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--procs"))
            W.nproc = (unsigned)strtoul(argv[i + 1], NULL, 0);
        else {
            fprintf(stderr, "systest_eps: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (W.nproc < 3 || W.nproc > MAXPROC) {
        fprintf(stderr, "systest_eps: --procs 3..%u\n", MAXPROC);
        return 1;
    }
    W.img = read_file(argv[1], &W.img_len);
    if (!W.img) {
        fprintf(stderr, "systest_eps: cannot read %s\n", argv[1]);
        return 1;
    }
    cluster_config_default(&cc, 2);
    cc.console = stdout;
    cc.seed = seed;
    W.costs = costs_create(0, seed);
    W.cl = cluster_create(&cc, W.costs);
    if (!W.cl)
        return 1;
    for (unsigned i = 0; i < 2; i++) {
        struct nicdrv_config dc;
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = 2;
        if (dc.max_procs < W.nproc + 1)
            dc.max_procs = W.nproc + 1;
        W.hs[i] = hostsw_create(W.cl, i, W.costs, &dc);
        node_set_reset(cluster_node(W.cl, i), false);
        if (!W.hs[i] || coro_spawn(cluster_sched(W.cl), "node", prog_node, (void *)(uintptr_t)i, NULL))
            return 1;
    }
    W.t.k = 999;
    if (coro_spawn(cluster_sched(W.cl), "T", prog_target, &W.t, NULL))
        return 1;
    for (unsigned k = 0; k < W.nproc; k++) {
        W.p[k].k = k;
        if (coro_spawn(cluster_sched(W.cl), "P", prog_proc, &W.p[k], NULL))
            return 1;
    }
    if (cluster_run(W.cl, 20000000000ull, all_done, NULL, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0)
        FAIL("cluster did not finish");
    for (unsigned i = 0; i < 2; i++)
        if (hostmem_counters(node_hostmem(cluster_node(W.cl, i)))->violations)
            FAIL("node %u: unpinned-DMA oracle violations", i);
    printf("systest_eps: node 0: %u endpoints (%u resident, %u host), ep_fills %u ep_evictions %u ep_db_refused %u "
           "doorbell_bad %u db_dropped %u, tx %u retransmits %u timeouts %u\n",
           W.resident_eps + W.host_eps, W.resident_eps, W.host_eps, W.nst[0].ep_fills, W.nst[0].ep_evictions,
           W.nst[0].ep_db_refused, W.nst[0].doorbell_bad, W.nst[0].db_dropped, W.nst[0].tx_packets,
           W.nst[0].retransmits, W.nst[0].timeouts);
    if (W.resident_eps + W.host_eps != W.nproc * EPP || (W.nproc * EPP >= 256 && W.resident_eps + W.host_eps < 256))
        FAIL("only %u endpoints opened on node 0", W.resident_eps + W.host_eps);
    if (W.nst[0].ep_fills < W.host_eps)
        FAIL("ep_fills %u < host endpoints %u", W.nst[0].ep_fills, W.host_eps);
    if (!W.nst[0].ep_evictions)
        FAIL("no eviction with %u host endpoints", W.host_eps);
    if (W.ops != (uint64_t)W.nproc * EPP * ROUNDS * 2 + 2)
        FAIL("%" PRIu64 " operations completed, expected %u", W.ops, W.nproc * EPP * ROUNDS * 2 + 2);
    printf("systest_eps: seed %" PRIu64 ": %" PRIu64 " ops, %" PRIu64 " bytes verified, %" PRIu64 " cycles\n", seed,
           W.ops, W.bytes, (uint64_t)cluster_now(W.cl));
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(W.hs[i]);
    cluster_destroy(W.cl);
    costs_destroy(W.costs);
    free(W.img);
    printf("systest_eps: %s\n", W.failed ? "FAIL" : "PASS");
    return W.failed ? 1 : 0;
}
