/*
 * systest_loop - loopback (issue 15, item 3): a process writes to and reads from another process
 * on its own node, through the driver, the library and the NCP, with the same keys, rights, bounds,
 * transport and completions as for a remote peer (docs/api.md "Loopback").
 *
 * Two nodes. Node 0 runs processes A and B, node 1 process C. Phases (A is the initiator of 1-3):
 *   1 loopback writes   A -> B: random lengths and offsets, every byte checked at the end
 *   2 loopback reads    A <- B: into A's scratch buffer, compared with what B's buffer holds
 *   3 refusals          wrong key (write and read: KEY), beyond the buffer (BOUNDS), a buffer
 *                       without the right (RIGHTS): nothing of them lands; A's next loopback write
 *                       succeeds
 *   4 mixed             at once, with a window of 4 each: A -> B (loopback) and A -> C (remote),
 *                       B -> A (loopback), C -> B (remote, into another buffer of B)
 * Checks: on a clean link no retransmission timeout on either node; every completion SUCCESS (or the refusal expected), every target buffer equals its
 * shadow, node 0's loopback frame counter > 0 and node 1's 0, no oracle violation, nothing
 * pinned after close. Usage: systest_loop IMAGE [--seed N] [--drop P] [--duplicate P]
 * [--corrupt P] [--delay P] (the faults apply to the switch, so to the remote traffic only).
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

#define BLEN 65536u
#define WIN 4u
#define SLOT (BLEN / WIN)
#define VA_T0 0x10000000ull /* target buffers (each in its own VMH line) */
#define VA_T1 0x10400000ull
#define VA_L 0x20000000ull  /* local source (read-only for the NIC) */
#define VA_S 0x30000000ull  /* scratch (reads land here) */
#define VA_R 0x38000000ull  /* registered without remote rights */
#define WAITC 400000000ull
#define OPS 16u
#define MIXED_OPS 24u

enum { PA, PB, PC, NP };
static const unsigned proc_node[NP] = { 0, 0, 1 };
static const char *const proc_name[NP] = { "A", "B", "C" };

struct proc {
    unsigned k;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
    struct nic_mr t0, t1, l, s, r; /* targets 0 and 1, local source, scratch, no-rights buffer */
    uint8_t *src;                  /* what l holds */
    uint8_t *sh0, *sh1;            /* what t0, t1 must hold */
    uint64_t rng;
};

static struct {
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    int probed[2];
    struct proc p[NP];
    int ready[NP], phase_done[NP];
    int go4; /* A's phases 1-3 are done: phase 4 starts (phase_done[PA]: A's phase 4 is done too) */
    unsigned done, nodes_done;
    unsigned failed;
    uint64_t ops, bytes, loop_ops, refused;
    struct nic_stats nst[2];
    uint32_t mac_nobuf[2], mac_ovf[2];
} W;

#define FAIL(...)                                                                                         \
    do {                                                                                                  \
        fprintf(stderr, "systest_loop: " __VA_ARGS__);                                                    \
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

static void wait_flag(const int *f)
{
    while (!*f && !W.failed)
        coro_sleep(2000);
}

/* One request on p's endpoint, signalled; 0 or an API error (reported). */
static int post(struct proc *p, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                uint32_t rkey, uint64_t id)
{
    struct nic_wr wr = { .local_va = lva, .len = len, .remote_offset = roff, .wr_id = id, .signaled = 1 };
    int rc;
    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, rkey };
    while ((rc = write ? nic_post_write(p->dev, p->ep, &wr) : nic_post_read(p->dev, p->ep, &wr)) == NIC_EQFULL)
        coro_sleep(500);
    if (rc)
        FAIL("%s: post: %s", proc_name[p->k], nic_strerror(rc));
    return rc;
}

/* The next completion on p's endpoint: its status, or -100 on a timeout / wrong id. */
static int wait_one(struct proc *p, uint64_t id)
{
    struct nic_wc wc;
    int rc = nic_wait(p->dev, p->ep, &wc, WAITC);
    if (rc) {
        FAIL("%s: wait for request %" PRIu64 ": %s", proc_name[p->k], id, nic_strerror(rc));
        return -100;
    }
    if (wc.wr_id != id) {
        FAIL("%s: completion of request %" PRIu64 ", expected %" PRIu64, proc_name[p->k], wc.wr_id, id);
        return -100;
    }
    return wc.status;
}

static int xfer(struct proc *p, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                uint32_t rkey, uint64_t id)
{
    if (post(p, write, lva, len, m, roff, rkey, id))
        return -100;
    return wait_one(p, id);
}

static int check_buf(struct proc *p, uint64_t va, const uint8_t *shadow, const char *what)
{
    uint8_t *b = malloc(BLEN);
    int bad = 0;
    if (!b || os_read(p->os, p->pid, va, b, BLEN)) {
        FAIL("%s: cannot read %s", proc_name[p->k], what);
        free(b);
        return -1;
    }
    if (memcmp(b, shadow, BLEN)) {
        uint32_t i = 0;
        while (b[i] == shadow[i])
            i++;
        FAIL("%s: %s differs from its shadow at byte %u (0x%02x, expected 0x%02x)", proc_name[p->k], what, i, b[i],
             shadow[i]);
        bad = -1;
    }
    free(b);
    return bad;
}

/* Phase 4's writer: n writes of random lengths into slot (i % WIN) of m, a window of WIN; the
 * shadow gets each write's bytes at its post (writes to one slot are WIN requests apart, in order). */
static void writer(struct proc *p, const struct nic_mr *const *m, uint8_t *const *shadow, unsigned ntargets,
                   unsigned n, uint64_t id0)
{
    for (unsigned i = 0; i < n + WIN && !W.failed; i++) {
        if (i >= WIN) {
            int st = wait_one(p, id0 + i - WIN);
            if (st != NIC_WC_SUCCESS) {
                FAIL("%s: mixed write %u: %s", proc_name[p->k], i - WIN, nic_wc_status_str(st));
                return;
            }
            W.ops++;
        }
        if (i >= n)
            continue;
        unsigned t = i % ntargets;
        uint32_t len = 1 + (uint32_t)(rng_next(&p->rng) % SLOT);
        uint64_t roff = (i % WIN) * SLOT + rng_next(&p->rng) % (SLOT - len + 1);
        uint64_t loff = rng_next(&p->rng) % (BLEN - len + 1);
        if (post(p, 1, VA_L + loff, len, m[t], roff, m[t]->rkey, id0 + i))
            return;
        memcpy(shadow[t] + roff, p->src + loff, len);
        W.bytes += len;
        if (m[t]->node == proc_node[p->k])
            W.loop_ops++;
    }
}

static void phases_a(struct proc *a)
{
    struct proc *b = &W.p[PB], *c = &W.p[PC];
    uint8_t *tmp = malloc(BLEN), *before = malloc(BLEN);
    int st;

    if (!tmp || !before)
        goto out;
    /* 1: loopback writes */
    for (unsigned i = 0; i < OPS && !W.failed; i++) {
        uint32_t len = 1 + (uint32_t)(rng_next(&a->rng) % BLEN);
        uint64_t roff = rng_next(&a->rng) % (BLEN - len + 1), loff = rng_next(&a->rng) % (BLEN - len + 1);
        st = xfer(a, 1, VA_L + loff, len, &b->t0, roff, b->t0.rkey, 100 + i);
        if (st != NIC_WC_SUCCESS) {
            FAIL("A: loopback write %u (%u B): %s", i, len, nic_wc_status_str(st));
            goto out;
        }
        memcpy(b->sh0 + roff, a->src + loff, len);
        W.ops++, W.loop_ops++, W.bytes += len;
    }
    /* 2: loopback reads, each compared with B's buffer */
    for (unsigned i = 0; i < OPS && !W.failed; i++) {
        uint32_t len = 1 + (uint32_t)(rng_next(&a->rng) % BLEN);
        uint64_t roff = rng_next(&a->rng) % (BLEN - len + 1);
        st = xfer(a, 0, VA_S, len, &b->t0, roff, b->t0.rkey, 200 + i);
        if (st != NIC_WC_SUCCESS) {
            FAIL("A: loopback read %u (%u B): %s", i, len, nic_wc_status_str(st));
            goto out;
        }
        if (os_read(a->os, a->pid, VA_S, tmp, len) || memcmp(tmp, b->sh0 + roff, len))
            FAIL("A: loopback read %u (%u B at %" PRIu64 ") does not match B's buffer", i, len, roff);
        W.ops++, W.loop_ops++, W.bytes += len;
    }
    /* 3: refusals on the loopback, as from a remote peer; nothing lands */
    memset(tmp, 0xEE, BLEN);
    if (os_write(a->os, a->pid, VA_S, tmp, BLEN)) /* the scratch buffer: a refused read leaves it */
        FAIL("A: scratch");
    struct {
        int write;
        const struct nic_mr *m;
        uint64_t roff;
        uint32_t len, rkey;
        int want;
        const char *what;
    } bad[] = {
        { 1, &b->t0, 0, 4096, b->t0.rkey ^ 0x5A5A0001u, NIC_WC_KEY, "write, wrong key" },
        { 0, &b->t0, 0, 4096, b->t0.rkey ^ 0x1u, NIC_WC_KEY, "read, wrong key" },
        { 1, &b->t0, BLEN - 100, 4096, b->t0.rkey, NIC_WC_BOUNDS, "write beyond the buffer" },
        { 0, &b->t0, BLEN, 8, b->t0.rkey, NIC_WC_BOUNDS, "read beyond the buffer" },
        { 1, &b->r, 0, 4096, b->r.rkey, NIC_WC_RIGHTS, "write to a buffer without remote write" },
        { 0, &b->r, 0, 4096, b->r.rkey, NIC_WC_RIGHTS, "read of a buffer without remote read" },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0] && !W.failed; i++) {
        st = xfer(a, bad[i].write, bad[i].write ? VA_L : VA_S, bad[i].len, bad[i].m, bad[i].roff, bad[i].rkey, 300 + i);
        if (st != bad[i].want)
            FAIL("A: loopback %s: %s, expected %s", bad[i].what, nic_wc_status_str(st), nic_wc_status_str(bad[i].want));
        else
            W.refused++;
    }
    if (os_read(a->os, a->pid, VA_S, before, BLEN) || memcmp(before, tmp, BLEN))
        FAIL("A: a refused loopback read wrote into the scratch buffer");
    check_buf(b, VA_T0, b->sh0, "B's buffer 0 after the refusals");
    {
        uint32_t len = 5000;
        st = xfer(a, 1, VA_L + 3, len, &b->t0, 777, b->t0.rkey, 399);
        if (st != NIC_WC_SUCCESS)
            FAIL("A: the loopback write after the refusals: %s", nic_wc_status_str(st));
        memcpy(b->sh0 + 777, a->src + 3, len);
        W.ops++, W.loop_ops++, W.bytes += len;
    }
    W.go4 = 1; /* B and C start phase 4 (A's phase_done: after its phase 4, below) */
    /* 4: mixed: loopback to B and remote to C, alternating */
    {
        const struct nic_mr *m[2] = { &b->t0, &c->t0 };
        uint8_t *sh[2] = { b->sh0, c->sh0 };
        writer(a, m, sh, 2, MIXED_OPS, 1000);
    }
out:
    W.go4 = 1; /* (also when A stopped early: B and C do not wait for it forever) */
    free(tmp);
    free(before);
}

static void prog_proc(void *arg)
{
    struct proc *p = arg;
    unsigned node = proc_node[p->k];
    nicdrv_t *drv = hostsw_driver(W.hs[node]);
    uint32_t rw = NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ;

    p->rng = 0x9E3779B97F4A7C15ull * (p->k + 1);
    p->os = node_os(cluster_node(W.cl, node));
    p->src = malloc(BLEN), p->sh0 = malloc(BLEN), p->sh1 = malloc(BLEN);
    wait_flag(&W.probed[node]);
    if (W.failed || !p->src || !p->sh0 || !p->sh1 || os_proc_create(p->os, 48, &p->pid) ||
        nic_dev_open(drv, p->pid, NULL, &p->dev) || nic_ep_open(p->dev, &p->ep)) {
        FAIL("%s: set-up", proc_name[p->k]);
        goto out;
    }
    for (uint32_t i = 0; i < BLEN; i++) {
        p->src[i] = (uint8_t)rng_next(&p->rng);
        p->sh0[i] = (uint8_t)(i * 7 + p->k);
        p->sh1[i] = (uint8_t)(i * 13 + p->k);
    }
    if (os_write(p->os, p->pid, VA_L, p->src, BLEN) || os_write(p->os, p->pid, VA_T0, p->sh0, BLEN) ||
        os_write(p->os, p->pid, VA_T1, p->sh1, BLEN) || nic_reg(p->dev, VA_L, BLEN, NIC_ACCESS_LOCAL_READ, &p->l) ||
        nic_reg(p->dev, VA_S, BLEN, NIC_ACCESS_LOCAL_WRITE, &p->s) || nic_reg(p->dev, VA_T0, BLEN, rw, &p->t0) ||
        nic_reg(p->dev, VA_T1, BLEN, rw, &p->t1) || nic_reg(p->dev, VA_R, BLEN, NIC_ACCESS_LOCAL_READ, &p->r)) {
        FAIL("%s: buffers", proc_name[p->k]);
        goto out;
    }
    W.ready[p->k] = 1;
    for (unsigned k = 0; k < NP; k++)
        wait_flag(&W.ready[k]);
    if (p->k == PA) {
        phases_a(p);
    } else {
        wait_flag(&W.go4);
        if (p->k == PB) { /* loopback into A's buffer 1 */
            const struct nic_mr *m[1] = { &W.p[PA].t1 };
            uint8_t *sh[1] = { W.p[PA].sh1 };
            writer(p, m, sh, 1, MIXED_OPS, 2000);
        } else { /* remote into B's buffer 1 */
            const struct nic_mr *m[1] = { &W.p[PB].t1 };
            uint8_t *sh[1] = { W.p[PB].sh1 };
            writer(p, m, sh, 1, MIXED_OPS, 3000);
        }
    }
    W.phase_done[p->k] = 1;
    for (unsigned k = 0; k < NP; k++)
        wait_flag(&W.phase_done[k]);
    /* everyone is done writing: every target buffer holds its shadow */
    check_buf(p, VA_T0, p->sh0, "buffer 0");
    check_buf(p, VA_T1, p->sh1, "buffer 1");
out:
    W.ready[p->k] = W.ready[p->k] ? W.ready[p->k] : -1;
    W.phase_done[p->k] = 1;
    if (p->dev && nic_dev_close(p->dev))
        FAIL("%s: close", proc_name[p->k]);
    W.done++;
}

static void prog_node(void *arg)
{
    unsigned n = (unsigned)(uintptr_t)arg;
    char err[200] = "";
    nicdrv_t *drv = hostsw_driver(W.hs[n]);
    os_t *os = node_os(cluster_node(W.cl, n));

    if (nicdrv_probe(drv, W.img, W.img_len, err, sizeof err))
        FAIL("node %u: probe: %s", n, err);
    W.probed[n] = 1;
    while (W.done < NP)
        coro_sleep(2000);
    if (nicdrv_nic_stats(drv, &W.nst[n]))
        FAIL("node %u: NIC stats", n);
    {
        const struct nicdrv_bus *bus = nicdrv_bus_of(drv);
        if (bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_RX_NOBUF, &W.mac_nobuf[n]) ||
            bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_RX_OVERFLOW, &W.mac_ovf[n]))
            FAIL("node %u: MAC counters", n);
    }
    W.nodes_done++;
    while (W.nodes_done < 2 + n) /* node 1 removes its NIC after node 0 */
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
    struct switch_faults f;
    uint64_t seed = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    memset(&f, 0, sizeof f);
    if (argc < 2) {
        fprintf(stderr, "usage: systest_loop IMAGE [--seed N] [--drop P] [--duplicate P] [--corrupt P] [--delay P]\n");
        return 1;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--drop"))
            f.drop = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--duplicate"))
            f.duplicate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--corrupt"))
            f.corrupt = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--delay"))
            f.delay = atof(argv[i + 1]), f.delay_max = 2000;
        else {
            fprintf(stderr, "systest_loop: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    W.img = read_file(argv[1], &W.img_len);
    if (!W.img) {
        fprintf(stderr, "systest_loop: cannot read %s\n", argv[1]);
        return 1;
    }
    cluster_config_default(&cc, 2);
    cc.console = stdout;
    cc.seed = seed;
    W.costs = costs_create(0, seed);
    W.cl = cluster_create(&cc, W.costs);
    if (!W.cl)
        return 1;
    for (unsigned i = 0; i < 2; i++)
        switch_set_link_faults(cluster_switch(W.cl), i, &f);
    for (unsigned i = 0; i < 2; i++) {
        struct nicdrv_config dc;
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = 2;
        W.hs[i] = hostsw_create(W.cl, i, W.costs, &dc);
        node_set_reset(cluster_node(W.cl, i), false);
        if (!W.hs[i] || coro_spawn(cluster_sched(W.cl), "node", prog_node, (void *)(uintptr_t)i, NULL))
            return 1;
    }
    for (unsigned k = 0; k < NP; k++) {
        W.p[k].k = k;
        if (coro_spawn(cluster_sched(W.cl), proc_name[k], prog_proc, &W.p[k], NULL))
            return 1;
    }
    if (cluster_run(W.cl, 3000000000ull, all_done, NULL, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0)
        FAIL("timeout at cycle %" PRIu64, (uint64_t)cluster_now(W.cl));
    for (unsigned i = 0; i < 2; i++)
        if (hostmem_counters(node_hostmem(cluster_node(W.cl, i)))->violations)
            FAIL("node %u: oracle violations", i);
    for (unsigned i = 0; i < 2; i++)
        printf("systest_loop: node %u: loopback frames %u, tx %u rx %u retransmits %u timeouts %u drops miss %u "
               "dup %u protection errors %u; MAC rx nobuf %u overflow %u\n", i, W.nst[i].loop_frames, W.nst[i].tx_packets, W.nst[i].rx_packets,
               W.nst[i].retransmits, W.nst[i].timeouts, W.nst[i].drops_miss, W.nst[i].dup_packets,
               W.nst[i].protection_errors, W.mac_nobuf[i], W.mac_ovf[i]);
    /* a clean link: nothing is lost, so no connection of either node (node 0's loopback, A's to node
     * 1, C's to node 0) waits for a retransmission timeout. Node 0's host DMA carries every loopback
     * byte twice and is slower than the link: its queue delays what waits on it by up to a timeout,
     * which the firmware keeps off the timer (docs/firmware.md "Timeouts measure the network"): a
     * deadline starts when its packet leaves the node (a resend waiting for its payload's DMA once
     * timed out on node 0, seeds 1 and 6 of the general-path image), an ACK owed waits at most
     * NCP_ACK_WAIT for the receive DMAs behind it, and an ACK or NACK goes ahead of the data
     * frames still waiting for their DMAs (node 1's writes timed out 1-5 times per seed). */
    for (unsigned i = 0; i < 2; i++)
        if (!(f.drop + f.duplicate + f.corrupt + f.delay > 0) && W.nst[i].timeouts)
            FAIL("node %u: %u retransmission timeouts on a clean link", i, W.nst[i].timeouts);
    if (!W.nst[0].loop_frames)
        FAIL("node 0 counted no loopback frame");
    if (W.nst[1].loop_frames)
        FAIL("node 1 counted %u loopback frames (its process talks only to node 0)", W.nst[1].loop_frames);
    if (W.refused != 6)
        FAIL("%" PRIu64 " of 6 refusals as expected", W.refused);
    if (W.nst[0].protection_errors < 6)
        FAIL("node 0 counted %u protection errors, 6 refusals were made", W.nst[0].protection_errors);
    if (W.loop_ops != 2 * OPS + 1 + MIXED_OPS / 2 + MIXED_OPS) /* phases 1-3, A's half of its mixed writes, B's */
        FAIL("%" PRIu64 " loopback operations, %u expected", W.loop_ops, 2 * OPS + 1 + MIXED_OPS / 2 + MIXED_OPS);
    printf("systest_loop: seed %" PRIu64 ": %" PRIu64 " ops (%" PRIu64 " loopback), %" PRIu64 " bytes, %" PRIu64
           " refusals, %" PRIu64 " cycles\n",
           seed, W.ops, W.loop_ops, W.bytes, W.refused, (uint64_t)cluster_now(W.cl));
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(W.hs[i]);
    cluster_destroy(W.cl);
    costs_destroy(W.costs);
    for (unsigned k = 0; k < NP; k++)
        free(W.p[k].src), free(W.p[k].sh0), free(W.p[k].sh1);
    free(W.img);
    printf("systest_loop: %s\n", W.failed ? "FAIL" : "PASS");
    return W.failed ? 1 : 0;
}
