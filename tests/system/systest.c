/*
 * systest - cluster tests of driver + library + firmware on the Verilated NICs.
 *
 *   systest probe IMAGE   every node: probe (block IDs, image load, handshake, INIT), then remove
 *                         twice; nothing pinned, no kernel page left. A firmware without an info
 *                         block (the NCP boot stub) must be refused cleanly with EPROTO.
 *   systest rdma IMAGE    2 nodes: B registers a buffer and hands (node, pid, handle, key) to A;
 *                         A RDMA-writes 3 pages + 100 bytes, waits, reads a piece back; data
 *                         verified; misses served by the driver (unpinned-DMA oracle armed, fail
 *                         loudly); close, remove; pins back to zero; miss penalty split printed.
 *
 * Exit: 0 pass, 1 fail.
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

#define VA_A 0x20000000ull
#define VA_B 0x30000000ull
#define LEN (3 * 4096 + 100)

struct run {
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    unsigned nodes, done, failed, stub;
    struct nic_mr published; /* the out-of-band handle exchange */
    int published_ok, b_may_close;
};

struct prog {
    struct run *r;
    unsigned node;
};

#define CHECK(r, cond)                                                                                    \
    do {                                                                                                  \
        if (!(cond)) {                                                                                    \
            fprintf(stderr, "systest: node %u: check failed at line %d: %s\n", p->node, __LINE__, #cond); \
            (r)->failed++;                                                                                \
            goto out;                                                                                     \
        }                                                                                                 \
    } while (0)

static int probe(struct prog *p, nicdrv_t *drv)
{
    char err[200] = "";
    int rc = nicdrv_probe(drv, p->r->img, p->r->img_len, err, sizeof err);
    printf("systest: node %u: probe: %s%s%s\n", p->node, nicdrv_strerror(rc), rc ? ": " : "", err);
    if (rc == NICDRV_EPROTO && strstr(err, "no firmware info block"))
        p->r->stub++;
    return rc;
}

static void prog_probe(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[p->node]);
    os_t *os = node_os(cluster_node(r->cl, p->node));
    hostmem_t *mem = node_hostmem(cluster_node(r->cl, p->node));
    int rc = probe(p, drv);

    if (rc == NICDRV_OK) {
        const struct nic_info *in = nicdrv_fw_info(drv);
        printf("systest: node %u: fw %u.%u abi 0x%x caps 0x%x cmd %u sq %u VMH C%u L%u A%u\n", p->node,
               (unsigned)(in->fw_version >> 16), (unsigned)(in->fw_version & 0xFFFF), (unsigned)in->abi_version,
               (unsigned)in->caps, in->cmd_entries, in->sq_entries, (unsigned)in->cache[0].entries,
               (unsigned)in->cache[0].line, (unsigned)in->cache[0].ways);
        CHECK(r, nicdrv_remove(drv) == NICDRV_OK);
    } else {
        CHECK(r, rc == NICDRV_EPROTO && r->stub); /* only the boot stub may be refused */
    }
    CHECK(r, nicdrv_remove(drv) == NICDRV_OK); /* safe twice */
    CHECK(r, !nicdrv_probed(drv));
    CHECK(r, os_pinned_pages_total(os) == 0);
    CHECK(r, hostmem_counters(mem)->frames_in_use == 0);
out:
    r->done++;
}

static void prog_rdma(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[p->node]);
    os_t *os = node_os(cluster_node(r->cl, p->node));
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    struct nic_mr mr;
    struct nic_wc wc;
    uint8_t a[LEN], b[LEN];
    uint32_t pid;

    CHECK(r, probe(p, drv) == NICDRV_OK);
    CHECK(r, os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK(r, nic_dev_open(drv, pid, NULL, &dev) == NIC_OK);
    CHECK(r, nic_ep_open(dev, &ep) == NIC_OK);
    if (p->node == 1) { /* B: target buffer, published to A */
        memset(b, 0xEE, sizeof b);
        CHECK(r, os_write(os, pid, VA_B, b, LEN) == SIM_OK);
        CHECK(r, nic_reg(dev, VA_B, LEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &mr) == NIC_OK);
        r->published = mr;
        r->published_ok = 1;
        while (!r->b_may_close)
            coro_sleep(2000);
    } else {
        for (size_t i = 0; i < LEN; i++)
            a[i] = (uint8_t)(i * 7 + 1);
        CHECK(r, os_write(os, pid, VA_A, a, LEN) == SIM_OK);
        CHECK(r, nic_reg(dev, VA_A, LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr) == NIC_OK);
        while (!r->published_ok)
            coro_sleep(2000);
        struct nic_wr wr = { .local_va = VA_A, .len = LEN, .wr_id = 1, .signaled = 1 };
        wr.remote = (struct nic_remote){ r->published.node, r->published.pid, r->published.handle, r->published.rkey };
        CHECK(r, nic_post_write(dev, ep, &wr) == NIC_OK);
        CHECK(r, nic_wait(dev, ep, &wc, 200000000) == NIC_OK);
        printf("systest: write completion: %s, %u bytes\n", nic_wc_status_str(wc.status), wc.bytes);
        CHECK(r, wc.status == NIC_WC_SUCCESS && wc.bytes == LEN);
        os_t *osb = node_os(cluster_node(r->cl, 1));
        CHECK(r, os_read(osb, r->published.pid, VA_B, b, LEN) == SIM_OK);
        CHECK(r, memcmp(a, b, LEN) == 0);
        memset(a, 0, 4096);
        CHECK(r, os_write(os, pid, VA_A, a, 4096) == SIM_OK);
        wr.len = 4096;
        wr.wr_id = 2;
        CHECK(r, nic_post_read(dev, ep, &wr) == NIC_OK);
        CHECK(r, nic_wait(dev, ep, &wc, 200000000) == NIC_OK);
        CHECK(r, wc.status == NIC_WC_SUCCESS && wc.bytes == 4096);
        CHECK(r, os_read(os, pid, VA_A, a, 4096) == SIM_OK);
        CHECK(r, memcmp(a, b, 4096) == 0);
        printf("systest: RDMA write %u bytes and read 4096 bytes verified\n", LEN);
        r->b_may_close = 1;
    }
out:
    if (dev)
        nic_dev_close(dev);
    r->b_may_close = 1;
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest: node %u: %" PRIu64 " pages still pinned\n", p->node, os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct run *r = ctx;
    (void)c;
    return r->done == r->nodes;
}

int main(int argc, char **argv)
{
    struct cluster_config cc;
    struct run r;
    struct prog pr[2];
    int rdma;

    double fault[4] = { 0, 0, 0, 0 }; /* drop, corrupt, duplicate, delay */
    uint64_t seed = 1;
    int sr = 0; /* --sr on: both NCPs with selective repeat (nicdrv xport_opts NIC_XOPT_SR) */

    if (argc < 3 || argc % 2 == 0 || (strcmp(argv[1], "probe") && strcmp(argv[1], "rdma"))) {
        fprintf(stderr, "usage: systest probe|rdma IMAGE.img [--drop P] [--corrupt P] [--duplicate P] [--delay P] "
                        "[--seed S] [--sr on|off]\n");
        return 1;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        static const char *const names[] = { "--drop", "--corrupt", "--duplicate", "--delay" };
        char *end;
        int k;
        for (k = 0; k < 4 && strcmp(argv[i], names[k]); k++)
            ;
        if (k < 4) {
            fault[k] = strtod(argv[i + 1], &end);
            if (*end || end == argv[i + 1] || fault[k] < 0 || fault[k] > 1)
                k = -1;
        } else if (!strcmp(argv[i], "--sr") && (!strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off"))) {
            sr = !strcmp(argv[i + 1], "on");
        } else if (!strcmp(argv[i], "--seed")) {
            seed = strtoull(argv[i + 1], &end, 0);
            if (*end || end == argv[i + 1])
                k = -1;
        } else {
            k = -1;
        }
        if (k < 0) {
            fprintf(stderr, "systest: bad option %s %s\n", argv[i], argv[i + 1]);
            return 1;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    memset(&r, 0, sizeof r);
    rdma = !strcmp(argv[1], "rdma");
    r.img = read_file(argv[2], &r.img_len);
    if (!r.img) {
        fprintf(stderr, "systest: cannot read %s\n", argv[2]);
        return 1;
    }
    r.nodes = 2;
    cluster_config_default(&cc, r.nodes);
    cc.console = stdout;
    cc.seed = seed;
    cc.sw.faults.drop = fault[0];
    cc.sw.faults.corrupt = fault[1];
    cc.sw.faults.duplicate = fault[2];
    cc.sw.faults.delay = fault[3];
    r.costs = costs_create(0, 1);
    r.cl = cluster_create(&cc, r.costs);
    if (!r.cl)
        return 1;
    for (unsigned i = 0; i < r.nodes; i++) {
        struct nicdrv_config dc;
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)r.nodes;
        dc.xport_opts = sr ? NIC_XOPT_SR : 0u;
        r.hs[i] = hostsw_create(r.cl, i, r.costs, &dc);
        pr[i] = (struct prog){ &r, i };
        node_set_reset(cluster_node(r.cl, i), false); /* power on; the driver holds the core */
        if (!r.hs[i] || coro_spawn(cluster_sched(r.cl), "prog", rdma ? prog_rdma : prog_probe, &pr[i], NULL))
            return 1;
    }
    if (cluster_run(r.cl, 400000000, all_done, &r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r.cl));
        r.failed++;
    }
    if (rdma) {
        struct costs_stats cs;
        costs_stats(r.costs, &cs);
        printf("systest: misses %" PRIu64 ": delay p50 %" PRIu64 " p99 %" PRIu64 " cycles, processing p50 %" PRIu64
               " p99 %" PRIu64 " cycles\n",
               (uint64_t)cs.count, (uint64_t)cs.delay_p50, (uint64_t)cs.delay_p99, (uint64_t)cs.proc_p50,
               (uint64_t)cs.proc_p99);
    }
    for (unsigned i = 0; i < r.nodes; i++)
        hostsw_destroy(r.hs[i]);
    cluster_destroy(r.cl);
    costs_destroy(r.costs);
    free(r.img);
    printf("systest: %s\n", r.failed ? "FAIL" : "PASS");
    return r.failed ? 1 : 0;
}
