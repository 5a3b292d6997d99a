/*
 * systest_api - cluster tests of the host interface and the API contract (issue 18: items 3, 4,
 * 5a, 8, 8a) through the driver, the library and the NCP on Verilated nodes. Node 0 runs the
 * initiator process(es); nodes 1..N-1 each run a target process that registers one buffer and
 * publishes (node, pid, handle, key). The unpinned-DMA oracle is armed; nothing may stay pinned.
 *
 *   order SEED   4 nodes, faults on every link (drops, corruption, duplication, delay): 240
 *                writes and reads to 3 peers, 1 B .. 8 KiB, misaligned, 30 % unsignalled, 1 in 12
 *                with a wrong key, each into its own slot; posted without polling until NIC_EQFULL,
 *                then drained. Every signalled or failed request completes exactly once, in request
 *                order, with its status; unsignalled successes never; at each completion every
 *                earlier request is done (bytes in place, or for a refused one nothing moved), to
 *                any peer, signalled or not; nic_outstanding ends at 0; the library's checks stay 0.
 *   close SEED   a slow (800 Mb/s), lossy (5 % drops both ways) link to node 1: 32 writes of
 *                8 KiB in flight (the target's translations warm), then nic_ep_close (and, second
 *                round, nic_dev_close). When the call returns, the target buffer is snapshotted;
 *                4 ms later it is unchanged, though frames were queued in the switch at the close.
 *                Completions: in order, SUCCESS (data in place) or FLUSHED.
 *   storm SEED   on node 0, process X rings its doorbell page in a loop (its send queue's producer
 *                count and offsets no doorbell has) for 5 ms while process Y writes to node 1 and
 *                registers / deregisters (driver commands) all along: all of Y's requests SUCCESS,
 *                no NIC_EDEV, the driver alive; the NIC counted the dropped stray doorbells and
 *                the coalesced ones; X can still close.
 *   local SEED   raw send queue entries (bypassing the library) naming a local buffer: bytes past
 *                its end (same page), before its start, a buffer not registered and a missing
 *                local right each complete with their status, the NCP counts them, and nothing
 *                moves at the target or locally.
 *   events SEED  event-ring stress: an 8-entry event ring (256 bytes) on both drivers, translation
 *                prefill off, 6 processes on node 0, each with 4 buffers in their own VMH lines,
 *                writing to node 1 and asking for the NIC's counters (commands) all along: every
 *                write verified, every command answered, the ring wrapped more than 50 times, no
 *                driver declared the device dead.
 *   inline SEED  inline writes (ABI 2.4) through the library: writes of 1 .. NIC_INLINE_MAX + 1
 *                bytes to node 1, each source overwritten right after nic_post_write returns: up to
 *                NIC_INLINE_MAX bytes the target gets the bytes as they were at the post (the
 *                library put them in the entry), and the library counted exactly those posts
 *                inline; a device opened with no_inline posts none inline and its writes land.
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

#define MAXN 4
#define VA_T 0x30000000ull /* the target buffer on every target node */
#define T_LEN (2u << 20)   /* 2 MiB: slots of 8 KiB + a read source */
#define VA_L 0x20000000ull /* the initiator's buffer */
#define L_LEN (4u << 20)
#define SLOT 8192u
#define RD_SRC (1u << 20) /* reads come from [RD_SRC, +SLOT) of a target: never written */
#define WAITC 200000000ull

enum mode { M_ORDER, M_CLOSE, M_STORM, M_LOCAL, M_EVENTS, M_INLINE, M__N };

struct run {
    enum mode mode;
    unsigned nodes;
    uint64_t seed;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[MAXN];
    uint8_t *img;
    size_t img_len;
    unsigned done, progs, failed;
    struct nic_mr pub[MAXN];
    uint32_t tpid[MAXN];
    unsigned published, probed;
    int may_close;
    int storm_on;
    unsigned ev_done;
};

struct prog {
    struct run *r;
    unsigned node;
};

#define CHECK(cond) SYSTEST_CHECK("systest_api", cond)
#define CHECK_RC(call, want) SYSTEST_CHECK_RC("systest_api", call, want, nic_strerror)

static os_t *os_of(struct run *r, unsigned n)
{
    return node_os(cluster_node(r->cl, n));
}

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static uint8_t tbyte(unsigned node, uint64_t off)
{
    return (uint8_t)(off * 13 + node * 71 + 5);
}

static uint8_t lbyte(uint64_t off)
{
    return (uint8_t)(off * 7 + (off >> 8) + 1);
}

static void set_faults(struct run *r, unsigned port, double drop, double corrupt, double dup, double delay,
                       sim_cycle_t delay_max)
{
    struct switch_faults f = { .drop = drop, .duplicate = dup, .corrupt = corrupt, .delay = delay, .delay_max = delay_max };
    switch_set_link_faults(cluster_switch(r->cl), port, &f);
}

/* ---- a target node: one process, one buffer (pattern tbyte), published ---- */
static void prog_target(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[p->node]);
    os_t *os = os_of(r, p->node);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    uint32_t pid;
    uint8_t *fill = malloc(T_LEN);

    CHECK(fill);
    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    CHECK(os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    for (uint64_t i = 0; i < T_LEN; i++)
        fill[i] = tbyte(p->node, i);
    CHECK(os_write(os, pid, VA_T, fill, T_LEN) == SIM_OK);
    CHECK_RC(nic_reg(dev, VA_T, T_LEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &r->pub[p->node]), NIC_OK);
    r->tpid[p->node] = pid;
    r->published++;
    while (!r->may_close)
        coro_sleep(2000);
out:
    free(fill);
    if (dev)
        nic_dev_close(dev);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest_api: node %u: %" PRIu64 " pages still pinned\n", p->node, os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

/* ---- the initiator node ---- */
struct ctx {
    nicdrv_t *drv;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
    struct nic_mr mr;
};

static int open_proc(struct run *r, struct ctx *c, uint64_t va, uint64_t len)
{
    memset(c, 0, sizeof *c);
    c->drv = hostsw_driver(r->hs[0]);
    c->os = os_of(r, 0);
    if (os_proc_create(c->os, 48, &c->pid) || nic_dev_open(c->drv, c->pid, NULL, &c->dev) ||
        nic_ep_open(c->dev, &c->ep))
        return -1;
    if (len) {
        uint8_t *b = malloc(len);
        if (!b)
            return -1;
        for (uint64_t i = 0; i < len; i++)
            b[i] = lbyte(i);
        int rc = os_write(c->os, c->pid, va, b, len);
        free(b);
        if (rc || nic_reg(c->dev, va, len, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &c->mr))
            return -1;
    }
    return 0;
}

static int probe_a(struct prog *p)
{
    struct run *r = p->r;
    char err[200] = "";
    int rc = nicdrv_probe(hostsw_driver(r->hs[0]), r->img, r->img_len, err, sizeof err);
    if (rc) {
        fprintf(stderr, "systest_api: node 0: probe: %s: %s\n", nicdrv_strerror(rc), err);
        return -1;
    }
    while (r->published < r->nodes - 1)
        coro_sleep(2000);
    return 0;
}

static void finish_a(struct prog *p)
{
    struct run *r = p->r;
    r->may_close = 1;
    nicdrv_remove(hostsw_driver(r->hs[0]));
    if (os_pinned_pages_total(os_of(r, 0))) {
        fprintf(stderr, "systest_api: node 0: %" PRIu64 " pages still pinned\n", os_pinned_pages_total(os_of(r, 0)));
        r->failed++;
    }
}

/* Request k of the order mode: what, where. */
struct req {
    int write, signaled, bad; /* bad: a wrong key (fails NIC_WC_KEY, reported even unsignalled) */
    unsigned peer;
    uint32_t len, loff, roff;
};

static int verify_req(struct run *r, struct ctx *c, const struct req *q, uint8_t *buf)
{
    if (q->bad && q->write) { /* refused: the target slot still holds the target's own pattern */
        if (os_read(os_of(r, q->peer), r->tpid[q->peer], VA_T + q->roff, buf, q->len))
            return -1;
        for (uint32_t i = 0; i < q->len; i++)
            if (buf[i] != tbyte(q->peer, q->roff + i))
                return -1;
    } else if (q->bad) { /* refused read: the local slot untouched */
        if (os_read(c->os, c->pid, VA_L + q->loff, buf, q->len))
            return -1;
        for (uint32_t i = 0; i < q->len; i++)
            if (buf[i] != lbyte(q->loff + i))
                return -1;
    } else if (q->write) { /* the target slot holds the source bytes */
        if (os_read(os_of(r, q->peer), r->tpid[q->peer], VA_T + q->roff, buf, q->len))
            return -1;
        for (uint32_t i = 0; i < q->len; i++)
            if (buf[i] != lbyte(q->loff + i))
                return -1;
    } else { /* the local slot holds the target's read source */
        if (os_read(c->os, c->pid, VA_L + q->loff, buf, q->len))
            return -1;
        for (uint32_t i = 0; i < q->len; i++)
            if (buf[i] != tbyte(q->peer, q->roff + i))
                return -1;
    }
    return 0;
}

#define OR_N 240u
static void a_order(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    static struct req q[OR_N];
    static uint8_t reported[OR_N], buf[SLOT + 64];
    struct nic_wc wc[64];
    struct nic_lib_counters lc;
    uint64_t s = r->seed * 977 + 1;
    uint32_t posted = 0, next_verify = 0, expect_min = 0, nrep = 0, want = 0, eqfull = 0, maxrun = 0, run = 0;
    uint32_t nbad = 0;

    memset(&c, 0, sizeof c);
    CHECK(probe_a(p) == 0);
    CHECK(open_proc(r, &c, VA_L, L_LEN) == 0);
    for (unsigned port = 0; port < r->nodes; port++)
        set_faults(r, port, 0.02, 0.01, 0.01, 0.05, 4000);
    for (uint32_t k = 0; k < OR_N; k++) {
        q[k].write = rnd(&s) % 4 != 0;
        q[k].signaled = k == OR_N - 1 || rnd(&s) % 10 >= 3;
        q[k].bad = k != OR_N - 1 && rnd(&s) % 12 == 0;
        q[k].peer = 1 + k % (r->nodes - 1);
        q[k].len = 1 + rnd(&s) % (SLOT - 64);
        q[k].loff = k * SLOT + rnd(&s) % 61;
        q[k].roff = q[k].write ? (k / (r->nodes - 1)) * SLOT + rnd(&s) % 61 : RD_SRC + rnd(&s) % 61;
        want += q[k].signaled || q[k].bad;
    }
    while (nrep < want) {
        unsigned naps = 0;
        while (posted < OR_N) { /* post without polling until the library refuses for good */
            const struct req *e = &q[posted];
            struct nic_wr wr = { .local_va = VA_L + e->loff, .len = e->len, .remote_offset = e->roff,
                                 .wr_id = posted, .signaled = e->signaled };
            const struct nic_mr *m = &r->pub[e->peer];
            wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey ^ (e->bad ? 0x5A5A5A5Au : 0) };
            int rc = e->write ? nic_post_write(c.dev, c.ep, &wr) : nic_post_read(c.dev, c.ep, &wr);
            if (rc == NIC_EQFULL) {
                eqfull++;
                if (naps++ < 16) { /* completions arrive meanwhile: the library keeps them (stash) */
                    coro_sleep(20000);
                    continue;
                }
                break;
            }
            CHECK_RC(rc, NIC_OK);
            posted++;
            run++;
        }
        if (run > maxrun)
            maxrun = run;
        run = 0;
        CHECK_RC(nic_wait(c.dev, c.ep, &wc[0], WAITC), NIC_OK);
        int n = 1 + nic_poll(c.dev, c.ep, wc + 1, 63);
        for (int i = 0; i < n; i++) {
            uint64_t id = wc[i].wr_id;
            if (id >= posted || reported[id] || !(q[id].signaled || q[id].bad) || id < expect_min) {
                fprintf(stderr, "systest_api: order: completion wr_id %" PRIu64 " (%s): posted %u, expected >= %u\n",
                        id, nic_wc_status_str(wc[i].status), posted, expect_min);
                CHECK(0);
            }
            CHECK(wc[i].status == (q[id].bad ? NIC_WC_KEY : NIC_WC_SUCCESS));
            CHECK((q[id].bad || wc[i].bytes == q[id].len) && wc[i].op == (q[id].write ? NIC_OP_RDMA_WRITE : NIC_OP_RDMA_READ));
            nbad += q[id].bad;
            reported[id] = 1;
            nrep++;
            expect_min = (uint32_t)id + 1;
            /* verbs semantics: everything up to this request is done, whatever its peer or flag */
            for (; next_verify <= id; next_verify++)
                if (verify_req(r, &c, &q[next_verify], buf)) {
                    fprintf(stderr, "systest_api: order: request %u (%s to node %u, %s, %u bytes) not in place at the "
                            "completion of %" PRIu64 "\n", next_verify, q[next_verify].write ? "write" : "read",
                            q[next_verify].peer, q[next_verify].signaled ? "signalled" : "unsignalled",
                            q[next_verify].len, id);
                    CHECK(0);
                }
        }
    }
    CHECK(posted == OR_N && next_verify == OR_N);
    CHECK(nic_outstanding(c.dev, c.ep) == 0);
    CHECK(nic_poll(c.dev, c.ep, wc, 1) == 0);
    CHECK_RC(nic_lib_counters(c.dev, &lc), NIC_OK);
    CHECK(lc.stash_dropped == 0 && lc.cqe_bogus == 0);
    {
        struct nic_stats st;
        CHECK_RC(nicdrv_nic_stats(c.drv, &st), NICDRV_OK);
        printf("systest_api: order: %u requests to %u peers, %u completions (%u KEY errors), longest run without "
               "polling %u, EQFULL %u; retransmits %u, completions held for earlier requests %u\n",
               OR_N, r->nodes - 1, nrep, nbad, maxrun, eqfull, st.retransmits, st.retire_waits);
        CHECK(nbad > 0);
        CHECK(maxrun > 32 && eqfull > 0); /* more posts than send queue slots between polls: the stash kept them */
    }
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    for (unsigned port = 0; port < r->nodes; port++)
        set_faults(r, port, 0, 0, 0, 0, 2000);
    finish_a(p);
}

#define CL_N 32u
#define CL_LEN 8192u
static void a_close(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    static uint8_t snap1[CL_N * CL_LEN], snap2[CL_N * CL_LEN];
    struct nic_wc wc[64];
    struct nicdrv_stats ds;
    os_t *tos;

    memset(&c, 0, sizeof c);
    CHECK(probe_a(p) == 0);
    tos = os_of(r, 1);
    for (int round = 0; round < 2; round++) {
        CHECK(open_proc(r, &c, VA_L, L_LEN) == 0);
        for (int w = 0; w < 2; w++) {
            /* warm both sides' translations on a clean link, so that the writes below go at once and
             * land on first arrival: a few bytes from their source line (more than NIC_INLINE_MAX:
             * an inline write reads no source page), then the whole target range from elsewhere
             * (the target then holds bytes none of them carries) */
            struct nic_wr wr = { .local_va = w ? VA_L + (1u << 20) : VA_L, .len = w ? CL_N * CL_LEN : 64,
                                 .wr_id = 7777, .signaled = 1 };
            wr.remote = (struct nic_remote){ r->pub[1].node, r->pub[1].pid, r->pub[1].handle, r->pub[1].rkey };
            CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_OK);
            CHECK_RC(nic_wait(c.dev, c.ep, &wc[0], WAITC), NIC_OK);
            CHECK(wc[0].wr_id == 7777 && wc[0].status == NIC_WC_SUCCESS);
        }
        /* slow and lossy towards the target, and back */
        set_faults(r, 1, 0.05, 0.0, 0.0, 0.0, 2000);
        set_faults(r, 0, 0.05, 0.0, 0.0, 0.0, 2000);
        for (uint32_t i = 0; i < CL_N; i++) {
            struct nic_wr wr = { .local_va = VA_L + (round * CL_N + i) * 64u, .len = CL_LEN,
                                 .remote_offset = (uint64_t)i * CL_LEN, .wr_id = i, .signaled = i % 3 != 1 };
            wr.remote = (struct nic_remote){ r->pub[1].node, r->pub[1].pid, r->pub[1].handle, r->pub[1].rkey };
            CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_OK);
        }
        coro_sleep(10000); /* segments in flight, queued in the switch */
        int n = 0;
        if (round == 0) {
            n = nic_ep_close(c.dev, c.ep, wc, 64);
            CHECK(n >= 0);
        } else {
            CHECK_RC(nic_dev_close(c.dev), NIC_OK);
            c.dev = NULL;
        }
        CHECK(os_read(tos, r->tpid[1], VA_T, snap1, sizeof snap1) == SIM_OK);
        coro_sleep(800000); /* 4 ms: every delayed frame has left the switch */
        CHECK(os_read(tos, r->tpid[1], VA_T, snap2, sizeof snap2) == SIM_OK);
        if (memcmp(snap1, snap2, sizeof snap1)) {
            size_t at = 0;
            while (snap1[at] == snap2[at])
                at++;
            fprintf(stderr, "systest_api: close round %d: target changed after the close returned (offset %zu)\n",
                    round, at);
            CHECK(0);
        }
        uint32_t prev = 0, ok = 0, fl = 0;
        for (int i = 0; i < n; i++) {
            CHECK(i == 0 || wc[i].wr_id > prev); /* in request order */
            prev = (uint32_t)wc[i].wr_id;
            CHECK(wc[i].status == NIC_WC_SUCCESS || wc[i].status == NIC_WC_FLUSHED);
            if (wc[i].status == NIC_WC_SUCCESS) { /* its bytes are there */
                ok++;
                for (uint32_t b = 0; b < CL_LEN; b++)
                    CHECK(snap1[prev * CL_LEN + b] == lbyte((round * CL_N + prev) * 64u + b));
            } else {
                fl++;
            }
        }
        nicdrv_stats(c.drv, &ds);
        printf("systest_api: close round %d (%s): %d completions (%u success, %u flushed); EP_CLOSE asked %" PRIu64
               " times more; target unchanged 4 ms after the return\n",
               round, round ? "nic_dev_close" : "nic_ep_close", n, ok, fl, ds.close_retries);
        CHECK(round == 1 || fl > 0);
        if (c.dev) {
            CHECK_RC(nic_dev_close(c.dev), NIC_OK);
            c.dev = NULL;
        }
        set_faults(r, 1, 0, 0, 0, 0, 2000);
        set_faults(r, 0, 0, 0, 0, 0, 2000);
        coro_sleep(100000);
    }
    CHECK(ds.close_retries > 0); /* the close did wait for packets in flight */
out:
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

/* The storm: process X rings its own doorbell page in a loop. */
static void prog_storm(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    struct ctx c;
    struct nic_wc wc[64];
    uint64_t s = 99, rings = 0;

    memset(&c, 0, sizeof c);
    while (!r->probed)
        coro_sleep(2000);
    CHECK(open_proc(r, &c, 0, 0) == 0);
    const struct nicdrv_bus *bus = nicdrv_bus_of(c.drv);
    uint32_t page = (c.ep & 0xFFFFu) * NIC_DB_PAGE;
    r->storm_on = 1;
    for (sim_cycle_t end = coro_now() + 1000000; coro_now() < end;) { /* 5 ms */
        uint32_t v = rnd(&s);
        uint32_t off = v % 4 ? NIC_DB_SQ_PI : 0x900 + (v % 64) * 4; /* its producer count, or no doorbell */
        bus->wr32(bus->ctx, NICDRV_BAR_DOORBELL, page + off, v >> 8);
        rings++;
        coro_sleep(4); /* one write per 4 cycles: far beyond what the NCP drains, short of starving the
                        * host's PCIe link (which would stall everyone's MMIO: not the NIC's doing) */
    }
    r->storm_on = 0;
    printf("systest_api: storm: process X rang %" PRIu64 " times in 5 ms\n", rings);
    int n = nic_ep_close(c.dev, c.ep, wc, 64); /* it may only have hurt itself: its close works */
    CHECK(n >= 0);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    r->storm_on = -1;
    r->done++;
}

static void a_storm(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    struct nic_wc wc;
    struct nic_mr extra;
    struct nic_stats st;
    uint32_t ops = 0, regs = 0;
    static uint8_t got[4096];

    memset(&c, 0, sizeof c);
    CHECK(probe_a(p) == 0);
    r->probed = 1;
    CHECK(open_proc(r, &c, VA_L, L_LEN) == 0);
    while (!r->storm_on)
        coro_sleep(1000);
    while (r->storm_on > 0) {
        struct nic_wr wr = { .local_va = VA_L + (ops % 64) * 4096u, .len = 4096,
                             .remote_offset = (uint64_t)(ops % 64) * 4096u, .wr_id = ops, .signaled = 1 };
        wr.remote = (struct nic_remote){ r->pub[1].node, r->pub[1].pid, r->pub[1].handle, r->pub[1].rkey };
        CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_OK);
        CHECK_RC(nic_wait(c.dev, c.ep, &wc, WAITC), NIC_OK);
        CHECK(wc.wr_id == ops && wc.status == NIC_WC_SUCCESS);
        CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T + (ops % 64) * 4096u, got, 4096) == SIM_OK);
        for (uint32_t b = 0; b < 4096; b++)
            CHECK(got[b] == lbyte((ops % 64) * 4096u + b));
        ops++;
        if (ops % 4 == 0) { /* driver commands: registration INVALIDATE + prefill, deregistration */
            CHECK_RC(nic_reg(c.dev, VA_L + L_LEN - 8192, 4096, NIC_ACCESS_LOCAL_READ, &extra), NIC_OK);
            CHECK_RC(nic_dereg(c.dev, extra.handle), NIC_OK);
            regs++;
        }
    }
    CHECK(r->storm_on == 0 || r->storm_on == -1);
    while (r->storm_on != -1)
        coro_sleep(1000);
    CHECK_RC(nicdrv_nic_stats(c.drv, &st), NICDRV_OK);
    printf("systest_api: storm: process Y: %u writes verified, %u registrations during the storm; NIC: stray "
           "doorbells dropped %u, coalesced %u, bad %u\n",
           ops, regs, st.db_dropped, st.db_coalesced, st.doorbell_bad);
    CHECK(ops >= 20 && regs >= 5);
    CHECK(st.db_dropped > 0 && st.db_coalesced > 0); /* it did overflow what can overflow: counted */
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    r->probed = 1;
    if (c.dev)
        nic_dev_close(c.dev);
    r->storm_on = r->storm_on > 0 ? 0 : r->storm_on;
    while (r->storm_on != -1)
        coro_sleep(1000);
    finish_a(p);
}

/* Raw send queue entries against the NCP's local check. */
#define LC_VA 0x50000000ull
#define LC_LEN (4096u + 100u)
static void a_local(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    struct nic_mr buf, ro, gone;
    struct nic_stats st0, st1;
    static uint8_t lb0[3 * 4096], lb1[3 * 4096], tb0[20480], tb1[20480];

    memset(&c, 0, sizeof c);
    CHECK(probe_a(p) == 0);
    CHECK(open_proc(r, &c, LC_VA, 3 * 4096) == 0);
    CHECK_RC(nic_dereg(c.dev, c.mr.handle), NIC_OK); /* the pages stay written; register the shapes below */
    CHECK_RC(nic_reg(c.dev, LC_VA, LC_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &buf), NIC_OK);
    CHECK_RC(nic_reg(c.dev, LC_VA + 2 * 4096, 4096, NIC_ACCESS_LOCAL_READ, &ro), NIC_OK);
    CHECK_RC(nic_reg(c.dev, 0x58000000ull, 4096, NIC_ACCESS_LOCAL_READ, &gone), NIC_OK);
    CHECK_RC(nic_dereg(c.dev, gone.handle), NIC_OK);
    CHECK_RC(nicdrv_nic_stats(c.drv, &st0), NICDRV_OK);
    CHECK(os_read(c.os, c.pid, LC_VA, lb0, sizeof lb0) == SIM_OK);
    CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T, tb0, sizeof tb0) == SIM_OK);
    struct {
        uint8_t op;
        uint64_t laddr;
        uint32_t len, lbuf;
        int want;
    } cs[] = {
        { NIC_OP_RDMA_WRITE, LC_VA + LC_LEN, 64, buf.handle, NIC_WC_BOUNDS },       /* past the end, last page */
        { NIC_OP_RDMA_READ, LC_VA + LC_LEN - 16, 64, buf.handle, NIC_WC_BOUNDS },   /* across the end */
        { NIC_OP_RDMA_WRITE, LC_VA - 16, 32, buf.handle, NIC_WC_BOUNDS },           /* before the start */
        { NIC_OP_RDMA_WRITE, LC_VA, 32, 200, NIC_WC_BAD_HANDLE },                   /* never registered */
        { NIC_OP_RDMA_WRITE, 0x58000000ull, 32, gone.handle, NIC_WC_BAD_HANDLE },   /* deregistered */
        { NIC_OP_RDMA_READ, LC_VA + 2 * 4096, 32, ro.handle, NIC_WC_RIGHTS },       /* no LOCAL_WRITE */
        { NIC_OP_RDMA_WRITE, LC_VA + 8, LC_LEN - 8, buf.handle, NIC_WC_SUCCESS },    /* exactly to the end */
    };
    const unsigned n = sizeof cs / sizeof cs[0];
    const struct nicdrv_bus *bus = nicdrv_bus_of(c.drv);
    uint32_t page = (c.ep & 0xFFFFu) * NIC_DB_PAGE;
    for (unsigned i = 0; i < n; i++) {
        struct nic_sq_entry e;
        uint32_t w[sizeof e / 4];
        memset(&e, 0, sizeof e);
        e.op = cs[i].op;
        e.flags = NIC_WR_SIGNALED;
        e.rnode = r->pub[1].node;
        e.len = cs[i].len;
        e.laddr_lo = (uint32_t)cs[i].laddr;
        e.laddr_hi = (uint32_t)(cs[i].laddr >> 32);
        e.rbuf = r->pub[1].handle;
        e.rpid = r->pub[1].pid;
        e.roff_lo = cs[i].want == NIC_WC_SUCCESS ? 4096 : 16384 + i * 256; /* refused ones: a slot each */
        e.rkey = r->pub[1].rkey;
        e.wr_id_lo = 500 + i;
        e.lbuf = cs[i].lbuf;
        memcpy(w, &e, sizeof w);
        for (unsigned k = 0; k < sizeof w / 4; k++)
            CHECK(bus->wr32(bus->ctx, NICDRV_BAR_DOORBELL, page + i * 64u + 4 * k, w[k]) == NICDRV_OK);
        CHECK(bus->wr32(bus->ctx, NICDRV_BAR_DOORBELL, page + NIC_DB_SQ_PI, i + 1) == NICDRV_OK);
    }
    coro_sleep(400000);
    for (unsigned i = 0; i < n; i++) { /* the completion queue, read as the library does */
        struct nic_cqe q;
        CHECK(os_read(c.os, c.pid, NIC_CQ_VA_DEFAULT + i * sizeof q, &q, sizeof q) == SIM_OK);
        if ((q.phase & 1) != 1 || q.req != i || q.wr_id_lo != 500 + i || q.status != cs[i].want) {
            fprintf(stderr, "systest_api: local: entry %u: phase %u req %u wr_id %u status %d, want %d\n", i,
                    q.phase & 1, q.req, q.wr_id_lo, q.status, cs[i].want);
            CHECK(0);
        }
    }
    CHECK_RC(nicdrv_nic_stats(c.drv, &st1), NICDRV_OK);
    printf("systest_api: local: %u raw requests, NCP local refusals %u\n", n, st1.local_refused - st0.local_refused);
    CHECK(st1.local_refused - st0.local_refused == n - 1);
    CHECK(os_read(c.os, c.pid, LC_VA, lb1, sizeof lb1) == SIM_OK);
    CHECK(!memcmp(lb0, lb1, sizeof lb0)); /* the refused reads wrote nothing locally */
    CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T, tb1, sizeof tb1) == SIM_OK);
    CHECK(!memcmp(tb1 + 4096, lb0 + 8, LC_LEN - 8));               /* the valid write landed */
    CHECK(!memcmp(tb1, tb0, 4096));                                /* nothing before it */
    CHECK(!memcmp(tb1 + 4096 + LC_LEN - 8, tb0 + 4096 + LC_LEN - 8, sizeof tb0 - 4096 - (LC_LEN - 8))); /* nor after:
                                                                    the refused writes' slots are intact */
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

/* One write of len bytes from VA_L + loff to node 1's buffer at roff; overwritten at once with
 * 0xEE when `clobber`; 0 when it completed SUCCESS with len bytes. */
static int inline_one(struct run *r, struct ctx *c, uint32_t len, uint32_t loff, uint32_t roff, int clobber)
{
    static const uint8_t junk[64] = { [0 ... 63] = 0xEE };
    struct nic_wr wr = { .local_va = VA_L + loff, .len = len, .remote_offset = roff, .wr_id = len, .signaled = 1 };
    struct nic_wc wc;
    wr.remote = (struct nic_remote){ .node = r->pub[1].node, .pid = r->pub[1].pid, .handle = r->pub[1].handle,
                                     .rkey = r->pub[1].rkey };
    if (nic_post_write(c->dev, c->ep, &wr) != NIC_OK)
        return -1;
    if (clobber && os_write(c->os, c->pid, VA_L + loff, junk, len) != SIM_OK)
        return -1;
    int n = nic_wait(c->dev, c->ep, &wc, WAITC);
    if (n != NIC_OK || wc.status != NIC_WC_SUCCESS || wc.bytes != len || wc.wr_id != len) {
        fprintf(stderr, "systest_api: inline: %u-byte write: nic_wait %d, status %s, %u bytes, wr_id %" PRIu64 "\n", len,
                n, n == NIC_OK ? nic_wc_status_str(wc.status) : "-", n == NIC_OK ? wc.bytes : 0, n == NIC_OK ? wc.wr_id : 0);
        return -1;
    }
    return 0;
}

static void a_inline(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c, d;
    struct nic_lib_counters k0, k1;
    uint8_t got[64];

    memset(&c, 0, sizeof c);
    memset(&d, 0, sizeof d);
    CHECK(probe_a(p) == 0);
    CHECK(open_proc(r, &c, VA_L, 1u << 16) == 0);
    CHECK_RC(nic_lib_counters(c.dev, &k0), NIC_OK);
    for (uint32_t len = 1; len <= NIC_INLINE_MAX + 1u; len++) {
        uint32_t off = len * 64u;
        CHECK(inline_one(r, &c, len, off, off, 1) == 0);
        if (len > NIC_INLINE_MAX)
            continue; /* (not inline: the overwrite raced the DMA; nothing to check) */
        CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T + off, got, len + 8) == SIM_OK);
        for (uint32_t i = 0; i < len + 8; i++)
            if (got[i] != (i < len ? lbyte(off + i) : tbyte(1, off + i))) {
                fprintf(stderr, "systest_api: inline: %u-byte write: byte %u is %#x\n", len, i, got[i]);
                CHECK(0);
            }
    }
    CHECK_RC(nic_lib_counters(c.dev, &k1), NIC_OK);
    printf("systest_api: inline: %" PRIu64 " of %u writes posted inline\n", k1.inline_posts - k0.inline_posts,
           NIC_INLINE_MAX + 1u);
    CHECK(k1.inline_posts - k0.inline_posts == NIC_INLINE_MAX);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
    /* the same process again with no_inline: by DMA from the registered buffer; the bytes land */
    d.drv = c.drv;
    d.os = c.os;
    d.pid = c.pid;
    struct nic_dev_attr at = { .no_inline = 1 };
    CHECK_RC(nic_dev_open(d.drv, d.pid, &at, &d.dev), NIC_OK);
    CHECK_RC(nic_ep_open(d.dev, &d.ep), NIC_OK);
    CHECK_RC(nic_reg(d.dev, VA_L, 1u << 16, NIC_ACCESS_LOCAL_READ, &d.mr), NIC_OK);
    for (uint32_t len = 1; len <= NIC_INLINE_MAX; len += 7) {
        uint32_t off = 8192u + len * 64u;
        CHECK(inline_one(r, &d, len, off, off, 0) == 0);
        CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T + off, got, len) == SIM_OK);
        for (uint32_t i = 0; i < len; i++)
            CHECK(got[i] == lbyte(off + i));
    }
    CHECK_RC(nic_lib_counters(d.dev, &k1), NIC_OK);
    CHECK(k1.inline_posts == 0);
    CHECK_RC(nic_dev_close(d.dev), NIC_OK);
    d.dev = NULL;
out:
    if (d.dev)
        nic_dev_close(d.dev);
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

/* One of the event-stress processes on node 0 (p->node is its index + 100). */
#define EV_PROCS 6
#define EV_BUFS 4
#define EV_OPS 24
static void prog_ev(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    unsigned me = p->node - 100;
    struct ctx c;
    struct nic_wc wc;
    struct nic_mr mr[EV_BUFS];
    struct nic_stats st;
    static uint8_t got[EV_PROCS][2048];

    memset(&c, 0, sizeof c);
    while (!r->probed)
        coro_sleep(2000);
    CHECK(open_proc(r, &c, 0, 0) == 0);
    for (unsigned b = 0; b < EV_BUFS; b++) { /* each in its own VMH line: misses */
        uint64_t va = VA_L + (uint64_t)b * (1u << 20);
        uint8_t fill[2048];
        for (unsigned i = 0; i < sizeof fill; i++)
            fill[i] = lbyte(va + me * 7 + i);
        CHECK(os_write(c.os, c.pid, va, fill, sizeof fill) == SIM_OK);
        CHECK_RC(nic_reg(c.dev, va, 2048, NIC_ACCESS_LOCAL_READ, &mr[b]), NIC_OK);
    }
    for (unsigned k = 0; k < EV_OPS; k++) {
        unsigned b = k % EV_BUFS;
        uint64_t roff = ((uint64_t)me * EV_OPS + k) * 2048u;
        struct nic_wr wr = { .local_va = VA_L + (uint64_t)b * (1u << 20), .len = 2048, .remote_offset = roff,
                             .wr_id = k, .signaled = 1 };
        wr.remote = (struct nic_remote){ r->pub[1].node, r->pub[1].pid, r->pub[1].handle, r->pub[1].rkey };
        CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_OK);
        CHECK_RC(nic_wait(c.dev, c.ep, &wc, WAITC), NIC_OK);
        CHECK(wc.wr_id == k && wc.status == NIC_WC_SUCCESS);
        CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T + roff, got[me], 2048) == SIM_OK);
        for (unsigned i = 0; i < 2048; i++)
            CHECK(got[me][i] == lbyte(VA_L + (uint64_t)b * (1u << 20) + me * 7 + i));
        CHECK_RC(nicdrv_nic_stats(c.drv, &st), NICDRV_OK); /* a command and its answer */
        if (k % 6 == 5) { /* re-register: INVALIDATEs, and the next use misses again */
            CHECK_RC(nic_dereg(c.dev, mr[b].handle), NIC_OK);
            CHECK_RC(nic_reg(c.dev, VA_L + (uint64_t)b * (1u << 20), 2048, NIC_ACCESS_LOCAL_READ, &mr[b]), NIC_OK);
        }
    }
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    r->ev_done++;
    r->done++;
}

static void a_events(struct prog *p)
{
    struct run *r = p->r;
    struct nicdrv_stats ds;

    CHECK(probe_a(p) == 0);
    r->probed = 1;
    while (r->ev_done < EV_PROCS)
        coro_sleep(10000);
    nicdrv_stats(hostsw_driver(r->hs[0]), &ds);
    printf("systest_api: events: %u processes x %u writes; node 0 driver: %" PRIu64 " events (%" PRIu64
           " laps of its 8-entry ring), %" PRIu64 " commands, %" PRIu64 " misses\n",
           EV_PROCS, EV_OPS, ds.events, ds.events / 8, ds.cmds, ds.misses);
    CHECK(ds.events >= 8 * 50 && ds.misses >= EV_PROCS * EV_BUFS); /* >= 50 laps */
    CHECK(nicdrv_probed(hostsw_driver(r->hs[0])));
out:
    r->probed = 1;
    while (r->ev_done < EV_PROCS)
        coro_sleep(10000);
    finish_a(p);
}

static void prog_init(void *arg)
{
    struct prog *p = arg;
    switch (p->r->mode) {
    case M_ORDER: a_order(p); break;
    case M_CLOSE: a_close(p); break;
    case M_STORM: a_storm(p); break;
    case M_LOCAL: a_local(p); break;
    case M_EVENTS: a_events(p); break;
    case M_INLINE: a_inline(p); break;
    case M__N: break;
    }
    p->r->done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct run *r = ctx;
    (void)c;
    return r->done == r->progs;
}

int main(int argc, char **argv)
{
    static const char *const names[M__N] = { "order", "close", "storm", "local", "events", "inline" };
    static struct run r;
    struct cluster_config cc;
    struct prog pr[MAXN + 1 + EV_PROCS];
    struct nicdrv_config dc;
    unsigned m;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (m = 0; argc >= 3 && m < M__N && strcmp(argv[1], names[m]); m++)
        ;
    if (argc < 3 || argc > 4 || m == M__N) {
        fprintf(stderr, "usage: systest_api order|close|storm|local|events|inline IMAGE [SEED]\n");
        return 1;
    }
    r.mode = (enum mode)m;
    r.seed = argc == 4 ? strtoull(argv[3], NULL, 0) : 1;
    r.nodes = r.mode == M_ORDER ? 4 : 2;
    r.img = read_file(argv[2], &r.img_len);
    if (!r.img) {
        fprintf(stderr, "systest_api: cannot read %s\n", argv[2]);
        return 1;
    }
    cluster_config_default(&cc, r.nodes);
    cc.console = stdout;
    cc.seed = r.seed;
    if (r.mode == M_CLOSE)
        cc.sw.port.bits_per_cycle = 4; /* a slow link (800 Mb/s): frames queue in the switch, in order */
    r.costs = costs_create(0, 1);
    r.cl = cluster_create(&cc, r.costs);
    if (!r.cl)
        return 1;
    for (unsigned i = 0; i < r.nodes; i++) {
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)r.nodes;
        if (r.mode == M_EVENTS) {
            dc.ev_log2 = 3;      /* 8 entries, 256 bytes: it wraps all the time */
            dc.prefill = false;  /* every line by a miss: more events */
        }
        r.hs[i] = hostsw_create(r.cl, i, r.costs, &dc);
        pr[i] = (struct prog){ &r, i };
        node_set_reset(cluster_node(r.cl, i), false);
        if (!r.hs[i] || coro_spawn(cluster_sched(r.cl), "prog", i ? prog_target : prog_init, &pr[i], NULL))
            return 1;
        r.progs++;
    }
    if (r.mode == M_STORM) {
        pr[r.nodes] = (struct prog){ &r, 0 };
        if (coro_spawn(cluster_sched(r.cl), "storm", prog_storm, &pr[r.nodes], NULL))
            return 1;
        r.progs++;
    }
    if (r.mode == M_EVENTS)
        for (unsigned k = 0; k < EV_PROCS; k++) {
            pr[r.nodes + 1 + k] = (struct prog){ &r, 100 + k };
            if (coro_spawn(cluster_sched(r.cl), "ev", prog_ev, &pr[r.nodes + 1 + k], NULL))
                return 1;
            r.progs++;
        }
    if (cluster_run(r.cl, 1000000000, all_done, &r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest_api: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r.cl));
        r.failed++;
    }
    for (unsigned i = 0; i < r.nodes; i++)
        if (hostmem_counters(node_hostmem(cluster_node(r.cl, i)))->violations) {
            fprintf(stderr, "systest_api: node %u: oracle violations\n", i);
            r.failed++;
        }
    printf("systest_api: %s seed %" PRIu64 ": %" PRIu64 " simulated cycles: %s\n", names[m], r.seed,
           (uint64_t)cluster_now(r.cl), r.failed ? "FAIL" : "PASS");
    for (unsigned i = 0; i < r.nodes; i++)
        hostsw_destroy(r.hs[i]);
    cluster_destroy(r.cl);
    costs_destroy(r.costs);
    free(r.img);
    return r.failed ? 1 : 0;
}
