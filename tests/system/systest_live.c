/*
 * systest_live - liveness under pressure (issue 18, items 5, 6, 7, 8b, 8c): driver + library +
 * NCP on the Verilated 2-node cluster, several user processes (coroutines with their own pids) per
 * node. Node 1's processes are targets (register buffers, publish them); node 0's are initiators
 * (process k talks to target k). The unpinned-DMA oracle is armed in every mode; nothing may stay
 * pinned after the devices are closed and the drivers removed.
 *
 *   pressure SEED   3 processes per node, 4 buffers of 64 KiB each (each its own VMH line), a pin
 *                   high-water mark of 128 pages (2 lines) on both drivers, 2 % drops + 1 %
 *                   duplication + 2 % delay on the switch: random writes and read-backs (1 B to 64 KiB,
 *                   misaligned both sides), every byte verified against a shadow, every completion
 *                   SUCCESS (no UNREACHABLE on a link that is up); prints misses per op, fills,
 *                   rejected fills, evictions, waits, retransmissions
 *   unbacked        registration of a range outside the process's address space is refused; with
 *                   the host's check off (a host that cannot tell) it is accepted, and then a remote
 *                   write into the unbacked page and a local write from an unbacked page each fail
 *                   with an error completion in bounded time, while another process's writes to the
 *                   same node complete and the failing processes' next operations succeed
 *   loopstorm       one process on each node posts a stream of malformed loopback requests (remote
 *                   node = its own node, buffer id > 0xFFFFFF) while another writes 64 KiB blocks from node 0 to node 1 on a
 *                   clean link: the storms' requests all fail BAD_DESC, the writes all succeed, no
 *                   retransmission timeout on either node, and the writer's mean latency during the
 *                   storms is under 1.5x its latency alone (measured in the same run)
 *   procs8          8 processes per node, 16 KiB writes each, no faults: no PCH or CBH eviction on
 *                   either NCP (cache sets spread by pid), no retransmission
 *   rxclean         the pressure workload on a clean link (3 process pairs, one request at a time
 *                   each, random writes and read-backs up to 64 KiB: data both ways, 128-page pin
 *                   mark): every byte verified, the MAC RX FIFO never overflows
 *
 * Usage: systest_live MODE IMAGE [SEED]. Exit: 0 pass, 1 fail. Diagnostics (loopstorm):
 * LIVE_LAT=1 prints every write's latency, LIVE_STORM0=1 / LIVE_STORM1=1 keep the storm on node 0 /
 * node 1 only; pressure by hand: LIVE_PROCS (<= 8), LIVE_BUFS (<= 4), LIVE_DROP.
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

#define MAXP 8
#define MAXB 4
#define VA_T 0x30000000ull
#define VA_I 0x20000000ull
#define VA_SCRATCH 0x40000000ull
#define SPACING 0x100000ull /* 1 MiB: each buffer in its own VMH line (L = 64 pages) */
#define WAITC 200000000ull
#define PRESSURE_OPS 24 /* write + read-back pairs per process (pressure, rxclean) */

enum mode { M_PRESSURE, M_UNBACKED, M_LOOPSTORM, M_PROCS8, M_RXCLEAN, M__N };
static const char *const mode_names[M__N] = { "pressure", "unbacked", "loopstorm", "procs8", "rxclean" };

struct world {
    enum mode mode;
    uint64_t seed;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    unsigned nproc, nbuf;
    uint64_t blen;
    int probed[2];
    unsigned procs_done[2], nodes_done;
    unsigned failed;
    /* targets */
    struct nic_mr pub[MAXP][MAXB];
    int published[MAXP];
    uint8_t *shadow[MAXP][MAXB]; /* what target k's buffer j must hold */
    struct nic_mr bad_mr;        /* unbacked: target 1's buffer whose second page cannot be backed */
    int bad_published;
    /* figures */
    uint64_t ops, bytes, statuses_bad, unreachable;
    uint64_t storm_posts, storm_bad_desc, storm_other;
    int writer_done, storm_go;
    uint64_t lat_alone, lat_storm; /* the writer's mean write latency without / with the storms */
    uint64_t unbacked_remote_cycles, unbacked_local_cycles;
    int unbacked_remote_status, unbacked_local_status;
    struct nic_stats nst[2];
    struct nicdrv_stats dst[2];
    uint32_t mac_ovf[2], mac_nobuf[2];
    int stats_taken[2];
};

struct proc {
    struct world *w;
    unsigned node, k;
};

#define FAIL(...)                                                                                         \
    do {                                                                                                  \
        fprintf(stderr, "systest_live: " __VA_ARGS__);                                                    \
        fprintf(stderr, "\n");                                                                            \
        w->failed++;                                                                                      \
    } while (0)

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static os_t *os_of(struct world *w, unsigned n)
{
    return node_os(cluster_node(w->cl, n));
}

/* One request, waited for; the completion must be the request's. Returns its status or an API error. */
static int xfer(nic_dev_t *dev, nic_ep_t ep, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                uint64_t id)
{
    struct nic_wr wr = { .local_va = lva, .len = len, .remote_offset = roff, .wr_id = id, .signaled = 1 };
    struct nic_wc wc;
    int rc;
    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    rc = write ? nic_post_write(dev, ep, &wr) : nic_post_read(dev, ep, &wr);
    if (rc)
        return rc;
    rc = nic_wait(dev, ep, &wc, WAITC);
    if (rc)
        return rc;
    if (wc.wr_id != id || wc.op != (write ? NIC_OP_RDMA_WRITE : NIC_OP_RDMA_READ))
        return -100;
    return wc.status;
}

/* A stream of malformed requests: loopback RDMA writes (rnode == own node: allowed since issue 15)
 * naming a buffer id beyond the wire's 24 bits (rbuf > 0xFFFFFF), as fast as the send queue takes
 * them, until the writer is done; every completion must be BAD_DESC. */
static void storm(struct world *w, nic_dev_t *dev, nic_ep_t ep, uint16_t node, uint32_t pid, uint64_t va,
                  const struct nic_mr *lmr)
{
    struct nic_wr wr = { .local_va = va, .len = 65536, .signaled = 1 };
    struct nic_wc wc[16];
    wr.remote = (struct nic_remote){ node, (uint16_t)pid, 0x1000000u | lmr->handle, lmr->rkey };
    while (!w->storm_go && !w->writer_done)
        coro_sleep(1000);
    while (!w->writer_done) {
        int rc = nic_post_write(dev, ep, &wr);
        if (rc == NIC_OK)
            w->storm_posts++;
        else if (rc != NIC_EQFULL) {
            FAIL("storm post: %s", nic_strerror(rc));
            break;
        }
        if (rc != NIC_EQFULL)
            continue; /* as fast as the queue takes them */
        int n = nic_poll(dev, ep, wc, 16);
        for (int i = 0; i < n; i++) {
            if (wc[i].status == NIC_WC_BAD_DESC)
                w->storm_bad_desc++;
            else
                w->storm_other++;
        }
        if (n == 0)
            coro_sleep(200);
    }
    for (int tries = 0; tries < 1000 && nic_outstanding(dev, ep) > 0; tries++) {
        int n = nic_poll(dev, ep, wc, 16);
        for (int i = 0; i < n; i++) {
            if (wc[i].status == NIC_WC_BAD_DESC)
                w->storm_bad_desc++;
            else
                w->storm_other++;
        }
        coro_sleep(1000);
    }
}

/* ---- node 1: targets ---- */
static void prog_target(void *arg)
{
    struct proc *p = arg;
    struct world *w = p->w;
    nicdrv_t *drv = hostsw_driver(w->hs[1]);
    os_t *os = os_of(w, 1);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    uint32_t pid = 0;
    uint64_t s = w->seed * 1000 + p->k + 1;
    uint8_t *buf = malloc(w->blen);
    unsigned va_bits = w->mode == M_UNBACKED && p->k == 1 ? 32 : 48;

    if (!buf || os_proc_create(os, va_bits, &pid) || nic_dev_open(drv, pid, NULL, &dev) || nic_ep_open(dev, &ep)) {
        FAIL("target %u: setup", p->k);
        goto out;
    }
    for (unsigned j = 0; j < w->nbuf; j++) {
        for (uint64_t i = 0; i < w->blen; i++)
            buf[i] = (uint8_t)rng_next(&s);
        memcpy(w->shadow[p->k][j], buf, w->blen);
        if (os_write(os, pid, VA_T + j * SPACING, buf, w->blen) ||
            nic_reg(dev, VA_T + j * SPACING, w->blen, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &w->pub[p->k][j])) {
            FAIL("target %u: register buffer %u", p->k, j);
            goto out;
        }
    }
    if (w->mode == M_UNBACKED && p->k == 1) {
        /* [2^32 - 4 KiB, 2^32 + 4 KiB): the second page is outside the 32-bit address space */
        const uint64_t va = (1ull << 32) - 4096;
        struct nic_mr m;
        int rc = nic_reg(dev, va, 8192, NIC_ACCESS_REMOTE_WRITE, &m);
        if (rc == NIC_OK)
            FAIL("registration of a range outside the address space was accepted");
        hostsw_set_va_check(w->hs[1], false); /* a host that cannot tell */
        rc = nic_reg(dev, va, 8192, NIC_ACCESS_REMOTE_WRITE, &w->bad_mr);
        hostsw_set_va_check(w->hs[1], true);
        if (rc != NIC_OK)
            FAIL("registration without the host's check: %s", nic_strerror(rc));
        w->bad_published = rc == NIC_OK ? 1 : -1;
    }
    w->published[p->k] = 1;
    if (w->mode == M_LOOPSTORM && p->k == 1 && !getenv("LIVE_STORM0")) { /* a storm on the receiving node too */
        struct nic_mr lm;
        if (nic_reg(dev, VA_SCRATCH, w->blen, NIC_ACCESS_LOCAL_READ, &lm) == NIC_OK)
            storm(w, dev, ep, 1, pid, VA_SCRATCH, &lm);
        else
            FAIL("target storm buffer");
    }
    while (w->procs_done[0] < w->nproc)
        coro_sleep(2000);
    /* the initiators are done: every buffer holds what the shadow says */
    for (unsigned j = 0; j < w->nbuf; j++) {
        if (os_read(os, pid, VA_T + j * SPACING, buf, w->blen) || memcmp(buf, w->shadow[p->k][j], w->blen)) {
            uint64_t i = 0;
            while (i < w->blen && buf[i] == w->shadow[p->k][j][i])
                i++;
            FAIL("target %u buffer %u differs from its shadow at byte %" PRIu64, p->k, j, i);
        }
    }
out:
    if (w->published[p->k] == 0)
        w->published[p->k] = -1;
    if (w->mode == M_UNBACKED && p->k == 1 && !w->bad_published)
        w->bad_published = -1;
    if (dev && nic_dev_close(dev))
        FAIL("target %u: close", p->k);
    free(buf);
    w->procs_done[1]++;
}

/* ---- node 0: initiators ---- */
struct ini {
    nicdrv_t *drv;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
};

static int ini_setup(struct proc *p, struct ini *c, unsigned va_bits)
{
    struct world *w = p->w;
    memset(c, 0, sizeof *c);
    c->drv = hostsw_driver(w->hs[0]);
    c->os = os_of(w, 0);
    if (os_proc_create(c->os, va_bits, &c->pid) || nic_dev_open(c->drv, c->pid, NULL, &c->dev) ||
        nic_ep_open(c->dev, &c->ep)) {
        FAIL("initiator %u: setup", p->k);
        return -1;
    }
    return 0;
}

static int wait_target(struct world *w, unsigned k)
{
    while (!w->published[k])
        coro_sleep(2000);
    return w->published[k] > 0 ? 0 : -1;
}

/* pressure / procs8 / rxclean: random writes and read-backs between local buffers and target k's */
static void ini_traffic(struct proc *p, struct ini *c, unsigned nops, uint32_t maxlen, int reads, int random_sizes)
{
    struct world *w = p->w;
    uint64_t s = w->seed * 7777 + p->k + 1;
    struct nic_mr lmr[MAXB], smr;
    uint8_t *tmp = malloc(w->blen), *loc[MAXB];

    for (unsigned j = 0; j < w->nbuf; j++)
        loc[j] = malloc(w->blen);
    if (!tmp)
        return;
    for (unsigned j = 0; j < w->nbuf; j++) {
        for (uint64_t i = 0; i < w->blen; i++)
            loc[j][i] = (uint8_t)rng_next(&s);
        if (os_write(c->os, c->pid, VA_I + j * SPACING, loc[j], w->blen) ||
            nic_reg(c->dev, VA_I + j * SPACING, w->blen, NIC_ACCESS_LOCAL_READ, &lmr[j])) {
            FAIL("initiator %u: local buffer %u", p->k, j);
            goto out;
        }
    }
    if (nic_reg(c->dev, VA_SCRATCH, w->blen, NIC_ACCESS_LOCAL_WRITE, &smr)) {
        FAIL("initiator %u: scratch buffer", p->k);
        goto out;
    }
    if (wait_target(w, p->k))
        goto out;
    for (unsigned n = 0; n < nops && !w->failed; n++) {
        unsigned lj = (unsigned)(rng_next(&s) % w->nbuf), rj = (unsigned)(rng_next(&s) % w->nbuf);
        uint32_t len = random_sizes ? 1 + (uint32_t)(rng_next(&s) % maxlen) : maxlen;
        uint64_t loff = random_sizes ? rng_next(&s) % (w->blen - len + 1) : 0;
        uint64_t roff = random_sizes ? rng_next(&s) % (w->blen - len + 1) : 0;
        uint64_t id = (uint64_t)p->k << 32 | n;
        int st = xfer(c->dev, c->ep, 1, VA_I + lj * SPACING + loff, len, &w->pub[p->k][rj], roff, id);
        w->ops++;
        if (st != NIC_WC_SUCCESS) {
            w->statuses_bad++;
            w->unreachable += st == NIC_WC_UNREACHABLE;
            FAIL("initiator %u op %u: write of %u B: status %d", p->k, n, len, st);
            break;
        }
        memcpy(w->shadow[p->k][rj] + roff, loc[lj] + loff, len);
        w->bytes += len;
        if (!reads)
            continue;
        /* read back a random range of the same remote buffer into the scratch buffer */
        uint32_t rlen = random_sizes ? 1 + (uint32_t)(rng_next(&s) % maxlen) : maxlen;
        uint64_t roff2 = random_sizes ? rng_next(&s) % (w->blen - rlen + 1) : 0;
        uint64_t soff = random_sizes ? rng_next(&s) % (w->blen - rlen + 1) : 0;
        st = xfer(c->dev, c->ep, 0, VA_SCRATCH + soff, rlen, &w->pub[p->k][rj], roff2, id | 1ull << 31);
        w->ops++;
        if (st != NIC_WC_SUCCESS) {
            w->statuses_bad++;
            w->unreachable += st == NIC_WC_UNREACHABLE;
            FAIL("initiator %u op %u: read of %u B: status %d", p->k, n, rlen, st);
            break;
        }
        w->bytes += rlen;
        if (os_read(c->os, c->pid, VA_SCRATCH + soff, tmp, rlen) || memcmp(tmp, w->shadow[p->k][rj] + roff2, rlen))
            FAIL("initiator %u op %u: read-back of %u B differs", p->k, n, rlen);
    }
out:
    for (unsigned j = 0; j < w->nbuf; j++)
        free(loc[j]);
    free(tmp);
}

/* unbacked: initiator 0 writes to target 0 (good) while 1 writes into target 1's unbacked page
 * and 2 writes from its own unbacked page */
static void ini_unbacked(struct proc *p, struct ini *c)
{
    struct world *w = p->w;
    struct nic_mr lmr, bad;
    uint8_t pat[4096];

    memset(pat, 0x5A + p->k, sizeof pat);
    if (os_write(c->os, c->pid, VA_I, pat, sizeof pat) ||
        nic_reg(c->dev, VA_I, sizeof pat, NIC_ACCESS_LOCAL_READ, &lmr) || wait_target(w, 0) || wait_target(w, 1)) {
        FAIL("initiator %u: setup", p->k);
        return;
    }
    if (p->k == 0) { /* the bystander: many writes, all delivered, while the others fail */
        for (unsigned n = 0; n < 24; n++) {
            uint64_t roff = (n * 4096u) % (w->blen - 4096);
            int st = xfer(c->dev, c->ep, 1, VA_I, 4096, &w->pub[0][0], roff, n);
            w->ops++;
            if (st != NIC_WC_SUCCESS) {
                FAIL("bystander write %u: status %d", n, st);
                return;
            }
            memcpy(w->shadow[0][0] + roff, pat, 4096);
        }
    } else if (p->k == 1) { /* remote: into target 1's page that no OS can back */
        while (!w->bad_published)
            coro_sleep(2000);
        if (w->bad_published < 0)
            return;
        uint64_t t0 = coro_now();
        int st = xfer(c->dev, c->ep, 1, VA_I, 4096, &w->bad_mr, 4096, 1);
        w->unbacked_remote_cycles = coro_now() - t0;
        w->unbacked_remote_status = st;
        if (st == NIC_WC_SUCCESS || st < -50 || st == NIC_ETIMEDOUT)
            FAIL("remote write into an unbacked page: status %d (want an error completion)", st);
        /* the same process, same connection: the backed page of that buffer still works */
        st = xfer(c->dev, c->ep, 1, VA_I, 4096, &w->bad_mr, 0, 2);
        if (st != NIC_WC_SUCCESS)
            FAIL("remote write into the backed page after the failure: status %d", st);
        w->ops += 2;
    } else { /* local: from a page of this process that no OS can back */
        struct ini l;
        const uint64_t va = (1ull << 32) - 4096;
        if (ini_setup(p, &l, 32))
            return;
        if (nic_reg(l.dev, va, 8192, NIC_ACCESS_LOCAL_READ, &bad) == NIC_OK)
            FAIL("local registration outside the address space was accepted");
        hostsw_set_va_check(w->hs[0], false);
        int rc = nic_reg(l.dev, va, 8192, NIC_ACCESS_LOCAL_READ, &bad);
        hostsw_set_va_check(w->hs[0], true);
        if (rc == NIC_OK) {
            uint64_t t0 = coro_now();
            int st = xfer(l.dev, l.ep, 1, va + 4096, 4096, &w->pub[0][1], 0, 1);
            w->unbacked_local_cycles = coro_now() - t0;
            w->unbacked_local_status = st;
            if (st == NIC_WC_SUCCESS || st < -50 || st == NIC_ETIMEDOUT)
                FAIL("local write from an unbacked page: status %d (want an error completion)", st);
            /* the endpoint goes on: a write from the backed page succeeds */
            uint8_t b[64];
            memset(b, 0xC3, sizeof b);
            if (os_write(l.os, l.pid, va, b, sizeof b))
                FAIL("os_write");
            st = xfer(l.dev, l.ep, 1, va, sizeof b, &w->pub[0][1], 128, 2);
            if (st != NIC_WC_SUCCESS)
                FAIL("local write after the failure: status %d", st);
            else
                memcpy(w->shadow[0][1] + 128, b, sizeof b);
            w->ops += 2;
        } else {
            FAIL("local registration without the host's check: %s", nic_strerror(rc));
        }
        nic_dev_close(l.dev);
    }
}

/* loopstorm: process 1 floods malformed loopback requests; process 0 writes to node 1 */
static void ini_loopstorm(struct proc *p, struct ini *c)
{
    struct world *w = p->w;
    struct nic_mr lmr;
    uint8_t *pat = malloc(65536);

    if (!pat)
        return;
    memset(pat, 0x3C, 65536);
    if (os_write(c->os, c->pid, VA_I, pat, 65536) || nic_reg(c->dev, VA_I, 65536, NIC_ACCESS_LOCAL_READ, &lmr) ||
        wait_target(w, 0)) {
        FAIL("initiator %u: setup", p->k);
        free(pat);
        return;
    }
    if (p->k == 0) {
        /* warm (the first write misses), then the writer alone, then with the storms on */
        for (unsigned n = 0; n < 40 && !w->failed; n++) {
            if (n == 8) {
                w->storm_go = 1;
                coro_sleep(20000);
            }
            uint64_t t0 = coro_now();
            int st = xfer(c->dev, c->ep, 1, VA_I, 65536, &w->pub[0][0], 0, n);
            uint64_t dt = coro_now() - t0;
            if (getenv("LIVE_LAT"))
                printf("write %u: %" PRIu64 " cycles\n", n, dt);
            w->ops++;
            if (st != NIC_WC_SUCCESS) {
                FAIL("write %u during the storm: status %d", n, st);
                break;
            }
            if (n >= 4)
                *(n < 8 ? &w->lat_alone : &w->lat_storm) += dt;
            memcpy(w->shadow[0][0], pat, 65536);
            w->bytes += 65536;
        }
        w->lat_alone /= 4;
        w->lat_storm /= 32;
        w->writer_done = 1;
    } else {
        if (!getenv("LIVE_STORM1"))
            storm(w, c->dev, c->ep, 0, c->pid, VA_I, &lmr);
    }
    free(pat);
}

static void prog_initiator(void *arg)
{
    struct proc *p = arg;
    struct world *w = p->w;
    struct ini c;

    if (ini_setup(p, &c, 48))
        goto out;
    /* liveness in every mode: the driver answered every miss the NCP posted (none waited 10 ms) */
    for (unsigned i = 0; i < 2; i++)
        if (w->stats_taken[i] && w->nst[i].miss_reposts)
            FAIL("node %u: %u misses unanswered for 10 ms", i, w->nst[i].miss_reposts);
    switch (w->mode) {
    case M_PRESSURE:
        ini_traffic(p, &c, PRESSURE_OPS, 65536, 1, 1);
        break;
    case M_PROCS8:
        ini_traffic(p, &c, 16, 16384, 0, 0);
        break;
    case M_RXCLEAN:
        ini_traffic(p, &c, PRESSURE_OPS, 65536, 1, 1);
        break;
    case M_UNBACKED:
        ini_unbacked(p, &c);
        break;
    case M_LOOPSTORM:
        ini_loopstorm(p, &c);
        break;
    case M__N:
        break;
    }
out:
    if (p->k == 0)
        w->writer_done = 1; /* whatever happened: the storms stop */
    if (c.dev && nic_dev_close(c.dev))
        FAIL("initiator %u: close", p->k);
    w->procs_done[0]++;
}

static void take_stats(struct world *w, unsigned n)
{
    nicdrv_t *drv = hostsw_driver(w->hs[n]);
    const struct nicdrv_bus *bus = nicdrv_bus_of(drv);

    if (nicdrv_nic_stats(drv, &w->nst[n]))
        FAIL("node %u: NIC stats", n);
    nicdrv_stats(drv, &w->dst[n]);
    if (bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_RX_OVERFLOW, &w->mac_ovf[n]) ||
        bus->rd32(bus->ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_RX_NOBUF, &w->mac_nobuf[n]))
        FAIL("node %u: MAC counters", n);
    w->stats_taken[n] = 1;
}

/* Per node: probe, spawn the processes, wait for every process on both nodes, take the
 * counters, remove, check nothing is pinned. */
static void prog_node(void *arg)
{
    struct proc *p = arg;
    struct world *w = p->w;
    unsigned n = p->node;
    char err[200] = "";
    static struct proc procs[2][MAXP];

    int rc = nicdrv_probe(hostsw_driver(w->hs[n]), w->img, w->img_len, err, sizeof err);
    if (rc) {
        FAIL("node %u: probe: %s", n, err);
        w->procs_done[n] = w->nproc;
        for (unsigned k = 0; k < w->nproc; k++)
            w->published[k] = w->published[k] ? w->published[k] : -1;
    } else {
        for (unsigned k = 0; k < w->nproc; k++) {
            procs[n][k] = (struct proc){ w, n, k };
            if (coro_spawn(cluster_sched(w->cl), n ? "target" : "initiator", n ? prog_target : prog_initiator,
                           &procs[n][k], NULL)) {
                FAIL("spawn");
                w->procs_done[n]++;
            }
        }
    }
    while (w->procs_done[0] < w->nproc || w->procs_done[1] < w->nproc)
        coro_sleep(2000);
    if (!rc)
        take_stats(w, n);
    w->nodes_done++;
    while (w->nodes_done < 2 + n) /* node 1 removes its NIC after node 0 */
        coro_sleep(2000);
    nicdrv_remove(hostsw_driver(w->hs[n]));
    if (os_pinned_pages_total(os_of(w, n)))
        FAIL("node %u: %" PRIu64 " pages still pinned", n, os_pinned_pages_total(os_of(w, n)));
    w->nodes_done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct world *w = ctx;
    (void)c;
    return w->nodes_done == 4;
}

static void print_node(struct world *w, unsigned n)
{
    const struct nic_stats *s = &w->nst[n];
    const struct nicdrv_stats *d = &w->dst[n];
    static const char *const cn[] = { "VMH", "CBH", "PCH" };
    printf("systest_live: node %u: tx %u rx %u retransmits %u timeouts %u nacks sent %u recv %u drops miss %u "
           "protection %u; MAC rx overflow %u nobuf %u\n",
           n, s->tx_packets, s->rx_packets, s->retransmits, s->timeouts, s->nacks_sent, s->nacks_received,
           s->drops_miss, s->protection_errors, w->mac_ovf[n], w->mac_nobuf[n]);
    for (unsigned c = 0; c < 3; c++)
        printf("systest_live: node %u %s: lookups %u hits %u misses %u evictions %u fills %u rejected %u\n", n, cn[c],
               s->cache[c].lookups, s->cache[c].hits,
               s->cache[c].miss_cold_send + s->cache[c].miss_send + s->cache[c].miss_cold_recv + s->cache[c].miss_recv,
               s->cache[c].evictions, s->cache[c].fills, s->cache[c].fills_rejected);
    printf("systest_live: node %u NCP misses: requests %u, re-posted after 10 ms unanswered %u, table full %u; "
           "give-ups on the no-progress bound %u\n",
           n, s->miss_requests, s->miss_reposts, s->miss_table_full, s->stall_giveups);
    printf("systest_live: node %u driver: misses %" PRIu64 " fills %" PRIu64 " rejected %" PRIu64 " retried %" PRIu64
           " evictions %" PRIu64 " evict waits %" PRIu64 " unbacked pages %" PRIu64 " pinned peak %" PRIu64 "\n",
           n, d->misses, d->fills, d->fills_rejected, d->fill_retries, d->evictions, d->evict_waits, d->unbacked_pages,
           d->pinned_peak);
}

int main(int argc, char **argv)
{
    static struct world w0;
    struct world *w = &w0;
    struct cluster_config cc;
    struct nicdrv_config dc;
    struct proc np[2];
    unsigned m;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (m = 0; argc >= 3 && m < M__N && strcmp(argv[1], mode_names[m]); m++)
        ;
    if (argc < 3 || argc > 4 || m == M__N) {
        fprintf(stderr, "usage: systest_live pressure|unbacked|loopstorm|procs8|rxclean IMAGE [SEED]\n");
        return 1;
    }
    w->mode = (enum mode)m;
    w->seed = argc == 4 ? strtoull(argv[3], NULL, 0) : 1;
    w->img = read_file(argv[2], &w->img_len);
    if (!w->img) {
        fprintf(stderr, "systest_live: cannot read %s\n", argv[2]);
        return 1;
    }
    w->nproc = w->mode == M_PRESSURE ? 3 : w->mode == M_PROCS8 ? 8 : w->mode == M_RXCLEAN ? 3 : w->mode == M_UNBACKED ? 3 : 2;
    w->nbuf = w->mode == M_PRESSURE || w->mode == M_RXCLEAN ? 4 : 2;
    w->blen = 65536;
    if (w->mode == M_PRESSURE && getenv("LIVE_PROCS")) /* exploration: harsher settings by hand */
        w->nproc = (unsigned)atoi(getenv("LIVE_PROCS")) > MAXP ? MAXP : (unsigned)atoi(getenv("LIVE_PROCS"));
    if (w->mode == M_PRESSURE && getenv("LIVE_BUFS"))
        w->nbuf = (unsigned)atoi(getenv("LIVE_BUFS")) > MAXB ? MAXB : (unsigned)atoi(getenv("LIVE_BUFS"));
    for (unsigned k = 0; k < w->nproc; k++)
        for (unsigned j = 0; j < w->nbuf; j++)
            w->shadow[k][j] = malloc(w->blen);
    cluster_config_default(&cc, 2);
    cc.console = stdout;
    cc.seed = w->seed;
    w->costs = costs_create(0, w->seed);
    w->cl = cluster_create(&cc, w->costs);
    if (!w->cl)
        return 1;
    if (w->mode == M_PRESSURE) {
        struct switch_faults f;
        memset(&f, 0, sizeof f);
        f.drop = getenv("LIVE_DROP") ? atof(getenv("LIVE_DROP")) : 0.02;
        f.duplicate = 0.01;
        f.delay = 0.02;
        f.delay_max = 2000;
        for (unsigned i = 0; i < 2; i++)
            switch_set_link_faults(cluster_switch(w->cl), i, &f);
    }
    for (unsigned i = 0; i < 2; i++) {
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = 2;
        if (w->mode == M_PRESSURE || w->mode == M_RXCLEAN)
            dc.pin_hwm_pages = 128;
        w->hs[i] = hostsw_create(w->cl, i, w->costs, &dc);
        np[i] = (struct proc){ w, i, 0 };
        node_set_reset(cluster_node(w->cl, i), false);
        if (!w->hs[i] || coro_spawn(cluster_sched(w->cl), "node", prog_node, &np[i], NULL))
            return 1;
    }
    if (cluster_run(w->cl, 1500000000ull, all_done, w, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0)
        FAIL("timeout at cycle %" PRIu64, (uint64_t)cluster_now(w->cl));
    for (unsigned i = 0; i < 2; i++)
        if (hostmem_counters(node_hostmem(cluster_node(w->cl, i)))->violations)
            FAIL("node %u: oracle violations", i);
    for (unsigned i = 0; i < 2; i++)
        if (w->stats_taken[i])
            print_node(w, i);
    printf("systest_live: %s seed %" PRIu64 ": %" PRIu64 " ops, %" PRIu64 " bytes, %" PRIu64 " failed (%" PRIu64
           " unreachable), %" PRIu64 " simulated cycles\n",
           mode_names[m], w->seed, w->ops, w->bytes, w->statuses_bad, w->unreachable, (uint64_t)cluster_now(w->cl));
    if (w->ops && w->stats_taken[0])
        printf("systest_live: misses per op: node 0 %.2f, node 1 %.2f\n", (double)w->dst[0].misses / (double)w->ops,
               (double)w->dst[1].misses / (double)w->ops);
    /* liveness in every mode: the driver answered every miss the NCP posted (none waited 10 ms) */
    for (unsigned i = 0; i < 2; i++)
        if (w->stats_taken[i] && w->nst[i].miss_reposts)
            FAIL("node %u: %u misses unanswered for 10 ms", i, w->nst[i].miss_reposts);
    switch (w->mode) {
    case M_PRESSURE:
        if (w->ops < 2 * PRESSURE_OPS * w->nproc)
            FAIL("only %" PRIu64 " operations", w->ops);
        for (unsigned i = 0; i < 2 && w->stats_taken[0]; i++)
            if (w->dst[i].fills_rejected)
                FAIL("node %u: %" PRIu64 " fills rejected", i, w->dst[i].fills_rejected);
        if (w->stats_taken[0] && w->dst[0].evictions + w->dst[1].evictions == 0)
            FAIL("no eviction: the pin budget was not tight");
        break;
    case M_UNBACKED:
        printf("systest_live: unbacked: remote write failed with %d after %" PRIu64 " cycles, local with %d after %" PRIu64
               " cycles\n",
               w->unbacked_remote_status, w->unbacked_remote_cycles, w->unbacked_local_status, w->unbacked_local_cycles);
        if (w->unbacked_remote_cycles > 2000000 || w->unbacked_local_cycles > 2000000)
            FAIL("an unbacked miss took more than 10 ms to fail");
        if (w->stats_taken[1] && (!w->dst[1].unbacked_pages || !w->dst[0].unbacked_pages))
            FAIL("the drivers did not see the unbacked pages");
        break;
    case M_LOOPSTORM:
        printf("systest_live: storm: %" PRIu64 " posts, %" PRIu64 " BAD_DESC, %" PRIu64 " other\n", w->storm_posts,
               w->storm_bad_desc, w->storm_other);
        if (w->storm_posts < 100 || w->storm_other || w->storm_bad_desc == 0)
            FAIL("storm: %" PRIu64 " posts, %" PRIu64 " other completions", w->storm_posts, w->storm_other);
        printf("systest_live: writer's 64 KiB write: %" PRIu64 " cycles alone, %" PRIu64 " during the storms\n",
               w->lat_alone, w->lat_storm);
        for (unsigned i = 0; i < 2 && w->stats_taken[i]; i++)
            if (w->nst[i].timeouts)
                FAIL("node %u: %u retransmission timeouts on a clean link", i, w->nst[i].timeouts);
        /* the storms may cost the writer some core time, not double its latency (before: 2.1x) */
        if (!w->lat_alone || w->lat_storm * 2 > w->lat_alone * 3)
            FAIL("the storms slowed the writer from %" PRIu64 " to %" PRIu64 " cycles per write", w->lat_alone,
                 w->lat_storm);
        break;
    case M_PROCS8:
        for (unsigned i = 0; i < 2 && w->stats_taken[i]; i++) {
            if (w->nst[i].cache[NIC_CACHE_PCH].evictions || w->nst[i].cache[NIC_CACHE_CBH].evictions)
                FAIL("node %u: PCH %u / CBH %u evictions with 8 processes", i, w->nst[i].cache[NIC_CACHE_PCH].evictions,
                     w->nst[i].cache[NIC_CACHE_CBH].evictions);
            if (w->nst[i].timeouts)
                FAIL("node %u: %u timeouts on a clean link", i, w->nst[i].timeouts);
        }
        break;
    case M_RXCLEAN:
        /* a clean link: no frame lost in the MAC's RX FIFO (before the SRAM priority: 223 and 238
         * overflows in this run, ~50 % of the frames resent). The RX ring (rx_nobuf) may still
         * fill when the host DMA is slower than the link: flow control, not this bug. */
        for (unsigned i = 0; i < 2 && w->stats_taken[i]; i++)
            if (w->mac_ovf[i])
                FAIL("node %u: %u MAC RX FIFO overflows on a clean link", i, w->mac_ovf[i]);
        if (w->ops < 2 * PRESSURE_OPS * w->nproc)
            FAIL("only %" PRIu64 " operations", w->ops);
        break;
    case M__N:
        break;
    }
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(w->hs[i]);
    cluster_destroy(w->cl);
    costs_destroy(w->costs);
    for (unsigned k = 0; k < w->nproc; k++)
        for (unsigned j = 0; j < w->nbuf; j++)
            free(w->shadow[k][j]);
    free(w->img);
    printf("systest_live: %s\n", w->failed ? "FAIL" : "PASS");
    return w->failed ? 1 : 0;
}
