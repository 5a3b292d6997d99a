/*
 * systest_evq - cluster tests of the per-process event queue (issue 15 item 6, seed 003) through
 * the driver, the library and the NCP on Verilated nodes. Node 0 runs the initiator process;
 * nodes 1..N-1 each run a target process that registers one buffer and publishes it. The
 * unpinned-DMA oracle is armed; nothing may stay pinned.
 *
 *   multi SEED   3 nodes, drops and delays on every link: one process with 4 endpoints and one
 *                event queue posts 160 writes and reads (1 B .. 8 KiB, 30 % unsignalled, 1 in 10
 *                with a wrong key) round-robin over its endpoints to both peers, and takes its
 *                completions only with nic_eq_wait (never nic_poll): every signalled or failed
 *                request is reported exactly once, with its endpoint, its status, in request order
 *                per endpoint, its data in place (and every earlier request of its endpoint's);
 *                no completion queue was read without an event for it (cq_reads 0); the sleeps
 *                are bounded by the events (at most one per event plus the time-outs: none).
 *   sleep        2 nodes: the same 64 KiB write 20 times, waited for with nic_wait (the library
 *                re-reads the completion queue every microsecond) and then with nic_eq_wait (asleep
 *                until the NIC's interrupt): the blocking wait reads the queue at most 3 times per
 *                completion and sleeps at most twice (the polling one reads it once per microsecond
 *                of the transfer); prints both latencies (post -> completion returned, median,
 *                simulated cycles) and reads per completion: the measurement of docs/api.md.
 *   overflow     2 nodes: a 4-entry event queue, 2 endpoints, 24 signalled writes completing while
 *                the process does not read the queue: the NIC loses entries (nic_stats.eq_lost > 0),
 *                the library reports NIC_EV_OVERFLOW events whose counts add up to exactly that,
 *                and still reports all 24 completions exactly once; the queue works on after.
 *   imm SEED     2 nodes, drops, duplicates and delays on the link: node 0 posts 48 writes (1 B ..
 *                40 KiB, so up to 10 segments), two thirds with an immediate, to a process on
 *                node 1 whose event queue asks for notifications; that process only waits on its
 *                queue: it gets exactly one NIC_EV_IMM per write with an immediate (duplicated
 *                frames notwithstanding), with the right immediate, length, buffer and offset, the
 *                write's bytes in place when the event comes, none for the others.
 *   upcall MODE  2 nodes, node 1's driver with a 2-line pin budget and a 100 us upcall grace period
 *                (issue 15 item 4, seed 001): node 0 writes 16 KiB into each of 8 lines of node 1's
 *                buffer, 2 rounds, each write verified at its completion; the target process waits
 *                on its event queue and gets NIC_EV_UPCALL for each line taken back (its range, in
 *                its buffer). MODE answer: it answers each (nic_upcall_done, NIC_OK) and the driver
 *                evicts at once (upcalls_answered = upcalls, none ignored). MODE ignore: it does not
 *                answer; each eviction waits the whole grace period (the write phase lasts at least
 *                upcalls x grace), and a late answer is NIC_ELATE.
 *   regwait      REGISTER-WAIT (seed 001): node 0's driver has room for one process's tables
 *                (max_procs 1). Process A registers, writes to node 1 and holds its registration
 *                for 2 ms; process B's nic_reg fails NIC_ENOMEM, its nic_reg_wait with a 1 ms timeout
 *                returns NIC_ETIMEDOUT, then one with 20 ms returns NIC_OK only after A closed, and B's
 *                write to node 1 is verified.
 *   evict POLICY 2 nodes, node 1's driver with a 3-line pin budget (no fill residency) and eviction
 *                policy POLICY (lrf: least recently filled, the default; lru: least recently used,
 *                from the NIC's LRU stamps, NIC_CMD_USAGE): node 0 alternates a write to a hot line
 *                of node 1's buffer with a write to one of 7 cold lines in turn, 28 rounds, every
 *                write verified. lru: the hot line is filled once and never evicted; lrf: it is
 *                evicted and filled again and again. Prints the hot line's fills, the evictions and
 *                the cycles of both (the comparison of docs/api.md).
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

#define MAXN 3
#define VA_T 0x30000000ull /* the target buffer on every target node */
#define T_LEN (2u << 20)
#define VA_L 0x20000000ull /* the initiator's buffer */
#define L_LEN (2u << 20)
#define SLOT 8192u
#define RD_SRC (3u << 19) /* reads come from [RD_SRC, +SLOT) of a target: never written (writes: below) */
#define WAITC 200000000ull

enum mode { M_MULTI, M_SLEEP, M_OVERFLOW, M_IMM, M_UPCALL_ANSWER, M_UPCALL_IGNORE, M_REGWAIT, M_EVICT_LRF, M_EVICT_LRU,
            M_IMM_SR, /* imm with selective repeat in both NCPs (runs as M_IMM) */
            M__N };

#define UP_GRACE 20000u   /* 100 us */
#define UP_HWM 128u       /* pinned pages on node 1: two VMH lines of 64 pages */
#define UP_LINE (64u << 12)

#define IM_N 48u
struct imm_req {
    int with_imm;
    uint32_t len, loff, roff, imm;
};

struct run {
    enum mode mode;
    int sr; /* INIT NIC_XOPT_SR: out-of-order data accepted, yet each immediate once, after its data */
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
    unsigned published;
    int may_close;
    struct imm_req im[IM_N];
    unsigned imm_posted, imm_seen, imm_checked;
    int up_stop, up_checked;
    uint64_t up_elapsed;
    uint64_t a_closed_at; /* regwait: when process A's nic_dev_close returned (0: not yet) */
    int a_registered, b_done;
    unsigned hot_fills; /* evict: fills of the hot line on node 1 (the driver's observer) */
};

struct prog {
    struct run *r;
    unsigned node;
};

#define CHECK(cond) SYSTEST_CHECK("systest_evq", cond)
#define CHECK_RC(call, want) SYSTEST_CHECK_RC("systest_evq", call, want, nic_strerror)

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
        fprintf(stderr, "systest_evq: node %u: %" PRIu64 " pages still pinned\n", p->node, os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

/* ---- the initiator node ---- */
struct ctx {
    nicdrv_t *drv;
    os_t *os;
    nic_dev_t *dev;
    uint32_t pid;
    struct nic_mr mr;
};

/* The initiator process: probe, wait for the targets, the event queue (attr), n endpoints, a
 * registered local buffer with pattern lbyte. */
static int open_proc(struct prog *p, struct ctx *c, const struct nic_eq_attr *attr, nic_ep_t *ep, unsigned n)
{
    struct run *r = p->r;
    char err[200] = "";
    uint8_t *b;
    int rc;

    memset(c, 0, sizeof *c);
    c->drv = hostsw_driver(r->hs[0]);
    c->os = os_of(r, 0);
    if ((rc = nicdrv_probe(c->drv, r->img, r->img_len, err, sizeof err))) {
        fprintf(stderr, "systest_evq: node 0: probe: %s: %s\n", nicdrv_strerror(rc), err);
        return -1;
    }
    while (r->published < r->nodes - 1)
        coro_sleep(2000);
    if (os_proc_create(c->os, 48, &c->pid) || nic_dev_open(c->drv, c->pid, NULL, &c->dev) || nic_eq_open(c->dev, attr))
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (nic_ep_open(c->dev, &ep[i]))
            return -1;
    if (!(b = malloc(L_LEN)))
        return -1;
    for (uint64_t i = 0; i < L_LEN; i++)
        b[i] = lbyte(i);
    rc = os_write(c->os, c->pid, VA_L, b, L_LEN);
    free(b);
    return rc || nic_reg(c->dev, VA_L, L_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &c->mr) ? -1 : 0;
}

static void finish_a(struct prog *p)
{
    struct run *r = p->r;
    r->may_close = 1;
    nicdrv_remove(hostsw_driver(r->hs[0]));
    if (os_pinned_pages_total(os_of(r, 0))) {
        fprintf(stderr, "systest_evq: node 0: %" PRIu64 " pages still pinned\n", os_pinned_pages_total(os_of(r, 0)));
        r->failed++;
    }
}

static void set_faults(struct run *r, unsigned port, double drop, double delay)
{
    struct switch_faults f = { .drop = drop, .delay = delay, .delay_max = 4000 };
    switch_set_link_faults(cluster_switch(r->cl), port, &f);
}

struct req {
    int write, signaled, bad;
    unsigned peer, ep;
    uint32_t len, loff, roff;
};

static int verify_req(struct run *r, struct ctx *c, const struct req *q, uint8_t *buf)
{
    int target = q->write; /* where to look: the target slot for a write, the local slot for a read */
    os_t *os = target ? os_of(r, q->peer) : c->os;
    uint32_t pid = target ? r->tpid[q->peer] : c->pid;
    uint64_t va = target ? VA_T + q->roff : VA_L + q->loff;

    if (os_read(os, pid, va, buf, q->len))
        return -1;
    for (uint32_t i = 0; i < q->len; i++) {
        uint8_t want = q->bad ? (target ? tbyte(q->peer, q->roff + i) : lbyte(q->loff + i)) /* nothing moved */
                       : target ? lbyte(q->loff + i) : tbyte(q->peer, q->roff + i);
        if (buf[i] != want)
            return -1;
    }
    return 0;
}

#define MU_N 160u
#define MU_EPS 4u
_Static_assert(MU_N * SLOT + SLOT <= RD_SRC, "the writes' target slots stay below the reads' source");
static void a_multi(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    nic_ep_t ep[MU_EPS];
    static struct req q[MU_N];
    static uint8_t reported[MU_N], buf[SLOT];
    uint32_t next_verify[MU_EPS] = { 0 }; /* per endpoint: its requests verified so far (index into its list) */
    static uint32_t list[MU_EPS][MU_N];
    uint32_t nlist[MU_EPS] = { 0 }, expect_min[MU_EPS] = { 0 }, posted = 0, nrep = 0, want = 0, waits = 0, nbad = 0;
    uint64_t s = r->seed * 7919 + 3;
    struct nic_lib_counters lc;
    struct nicdrv_stats ds;
    struct nic_stats st;

    memset(&c, 0, sizeof c);
    CHECK(open_proc(p, &c, NULL, ep, MU_EPS) == 0);
    for (unsigned port = 0; port < r->nodes; port++)
        set_faults(r, port, 0.02, 0.05);
    for (uint32_t k = 0; k < MU_N; k++) {
        q[k].write = rnd(&s) % 4 != 0;
        q[k].signaled = k >= MU_N - MU_EPS || rnd(&s) % 10 >= 3;
        q[k].bad = k < MU_N - MU_EPS && rnd(&s) % 10 == 0;
        q[k].peer = 1 + k % (r->nodes - 1);
        q[k].ep = k % MU_EPS;
        q[k].len = 1 + rnd(&s) % (SLOT - 64);
        q[k].loff = k * SLOT + rnd(&s) % 61;
        q[k].roff = q[k].write ? k * SLOT + rnd(&s) % 61 : RD_SRC + rnd(&s) % 61;
        want += q[k].signaled || q[k].bad;
        list[q[k].ep][nlist[q[k].ep]++] = k;
    }
    while (nrep < want) {
        while (posted < MU_N) { /* post until a send queue is full */
            const struct req *e = &q[posted];
            struct nic_wr wr = { .local_va = VA_L + e->loff, .len = e->len, .remote_offset = e->roff,
                                 .wr_id = posted, .signaled = e->signaled };
            const struct nic_mr *m = &r->pub[e->peer];
            wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey ^ (e->bad ? 0x5A5A5A5Au : 0) };
            int rc = e->write ? nic_post_write(c.dev, ep[e->ep], &wr) : nic_post_read(c.dev, ep[e->ep], &wr);
            if (rc == NIC_EQFULL)
                break;
            CHECK_RC(rc, NIC_OK);
            posted++;
        }
        struct nic_ev ev;
        CHECK_RC(nic_eq_wait(c.dev, &ev, WAITC), NIC_OK);
        waits++;
        CHECK(ev.kind == NIC_EV_COMPLETION);
        uint64_t id = ev.wc.wr_id;
        if (id >= posted || reported[id] || !(q[id].signaled || q[id].bad) || ev.ep != ep[q[id].ep] ||
            id < expect_min[q[id].ep]) {
            fprintf(stderr, "systest_evq: multi: completion wr_id %" PRIu64 " (%s) on endpoint %x: posted %u\n", id,
                    nic_wc_status_str(ev.wc.status), ev.ep, posted);
            CHECK(0);
        }
        CHECK(ev.wc.status == (q[id].bad ? NIC_WC_KEY : NIC_WC_SUCCESS));
        CHECK((q[id].bad || ev.wc.bytes == q[id].len) && ev.wc.op == (q[id].write ? NIC_OP_RDMA_WRITE : NIC_OP_RDMA_READ));
        reported[id] = 1;
        nrep++;
        nbad += q[id].bad;
        unsigned e = q[id].ep;
        expect_min[e] = (uint32_t)id + 1;
        /* every earlier request of this endpoint is done, signalled or not */
        for (; next_verify[e] < nlist[e] && list[e][next_verify[e]] <= id; next_verify[e]++)
            if (verify_req(r, &c, &q[list[e][next_verify[e]]], buf)) {
                fprintf(stderr, "systest_evq: multi: request %u not in place at the completion of %" PRIu64 "\n",
                        list[e][next_verify[e]], id);
                CHECK(0);
            }
    }
    CHECK(posted == MU_N);
    for (unsigned e = 0; e < MU_EPS; e++)
        CHECK(next_verify[e] == nlist[e] && nic_outstanding(c.dev, ep[e]) == 0);
    CHECK_RC(nic_lib_counters(c.dev, &lc), NIC_OK);
    CHECK(lc.stash_dropped == 0 && lc.cqe_bogus == 0 && lc.eqe_bogus == 0 && lc.eq_lost == 0);
    CHECK(lc.cq_reads == 0);         /* no completion queue read without its event */
    CHECK(lc.eq_sleeps <= nrep);     /* at most one sleep per completion: no time-outs, no spinning */
    CHECK(lc.eq_reads <= 2 * nrep + lc.eq_sleeps);
    CHECK_RC(nicdrv_nic_stats(c.drv, &st), NICDRV_OK);
    nicdrv_stats(c.drv, &ds);
    CHECK(st.eq_lost == 0 && st.eq_entries >= nrep && ds.eq_wakeups <= st.eq_irqs && ds.eq_wakeups >= 1);
    printf("systest_evq: multi: %u requests on %u endpoints to %u peers, %u completions (%u KEY errors) through one "
           "queue; %" PRIu64 " sleeps, %" PRIu64 " queue reads, %" PRIu64 " counts told, NIC: %u entries, %u "
           "interrupts; retransmits %u\n",
           MU_N, MU_EPS, r->nodes - 1, nrep, nbad, lc.eq_sleeps, lc.eq_reads, lc.eq_credits, st.eq_entries, st.eq_irqs,
           st.retransmits);
    CHECK(nbad > 0 && waits == nrep);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    for (unsigned port = 0; port < r->nodes; port++)
        set_faults(r, port, 0, 0);
    finish_a(p);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define SL_N 20u
#define SL_LEN (64u << 10)
static void a_sleep(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    nic_ep_t ep[1];
    uint64_t lat[2][SL_N];
    uint64_t reads[2] = { 0 }, sleeps = 0;
    struct nic_lib_counters l0, l1;

    memset(&c, 0, sizeof c);
    CHECK(open_proc(p, &c, NULL, ep, 1) == 0);
    for (unsigned mode = 0; mode < 2; mode++) /* 0: nic_wait (polling), 1: nic_eq_wait (interrupt) */
        for (unsigned i = 0; i < SL_N; i++) {
            const struct nic_mr *m = &r->pub[1];
            struct nic_wr wr = { .local_va = VA_L, .len = SL_LEN, .remote_offset = 0, .wr_id = i, .signaled = 1 };
            wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
            CHECK_RC(nic_lib_counters(c.dev, &l0), NIC_OK);
            uint64_t t0 = coro_now();
            CHECK_RC(nic_post_write(c.dev, ep[0], &wr), NIC_OK);
            if (mode == 0) {
                struct nic_wc wc;
                CHECK_RC(nic_wait(c.dev, ep[0], &wc, WAITC), NIC_OK);
                CHECK(wc.wr_id == i && wc.status == NIC_WC_SUCCESS);
            } else {
                struct nic_ev ev;
                CHECK_RC(nic_eq_wait(c.dev, &ev, WAITC), NIC_OK);
                CHECK(ev.kind == NIC_EV_COMPLETION && ev.ep == ep[0] && ev.wc.wr_id == i && ev.wc.status == NIC_WC_SUCCESS);
            }
            lat[mode][i] = coro_now() - t0;
            CHECK_RC(nic_lib_counters(c.dev, &l1), NIC_OK);
            if (mode == 0) {
                /* the polling wait also sees the queue entry of this completion: drain it */
                struct nic_ev ev;
                CHECK(nic_eq_poll(c.dev, &ev, 1) == 0); /* nic_wait took the completion: nothing to report */
                reads[0] += l1.cq_reads - l0.cq_reads;
            } else {
                uint64_t rd = l1.eq_reads - l0.eq_reads, sl = l1.eq_sleeps - l0.eq_sleeps;
                CHECK(rd <= 3 && sl <= 2); /* it slept: no polling while the write was in flight */
                reads[1] += rd;
                sleeps += sl;
            }
        }
    qsort(lat[0], SL_N, sizeof lat[0][0], cmp_u64);
    qsort(lat[1], SL_N, sizeof lat[1][0], cmp_u64);
    printf("systest_evq: sleep: 64 KiB write, post -> completion returned, median of %u: polling nic_wait %" PRIu64
           " cycles, %.1f completion queue reads per completion; blocking nic_eq_wait %" PRIu64
           " cycles, %.1f event queue reads and %.1f sleeps per completion\n",
           SL_N, lat[0][SL_N / 2], (double)reads[0] / SL_N, lat[1][SL_N / 2], (double)reads[1] / SL_N,
           (double)sleeps / SL_N);
    CHECK(reads[0] > 10u * SL_N); /* the polling wait polled all along (the write takes > 10 us) */
    CHECK(reads[1] <= 3u * SL_N);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

#define OV_N 24u
static void a_overflow(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    nic_ep_t ep[2];
    const struct nic_eq_attr attr = { .log2_entries = 2 };
    uint8_t seen[OV_N + 1] = { 0 };
    uint32_t n = 0, overflows = 0, lost = 0;
    struct nic_stats st;
    struct nic_lib_counters lc;
    struct nic_ev ev[64];
    int k;

    memset(&c, 0, sizeof c);
    CHECK(open_proc(p, &c, &attr, ep, 2) == 0);
    for (uint32_t i = 0; i < OV_N; i++) {
        const struct nic_mr *m = &r->pub[1];
        struct nic_wr wr = { .local_va = VA_L + i * 512, .len = 512, .remote_offset = i * 512, .wr_id = i, .signaled = 1 };
        wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
        CHECK_RC(nic_post_write(c.dev, ep[i % 2], &wr), NIC_OK);
    }
    coro_sleep(2000000); /* 10 ms: every write completed; the queue was not read meanwhile */
    CHECK_RC(nicdrv_nic_stats(c.drv, &st), NICDRV_OK);
    CHECK(st.eq_lost > 0);
    while ((k = nic_eq_poll(c.dev, ev, 64)) > 0 || n < OV_N) {
        CHECK(k >= 0);
        if (k == 0) { /* the overflow report comes once the NIC got our count */
            CHECK_RC(nic_eq_wait(c.dev, &ev[0], WAITC), NIC_OK);
            k = 1;
        }
        for (int i = 0; i < k; i++) {
            if (ev[i].kind == NIC_EV_OVERFLOW) {
                overflows++;
                lost += ev[i].lost;
                continue;
            }
            CHECK(ev[i].kind == NIC_EV_COMPLETION && ev[i].wc.wr_id < OV_N && !seen[ev[i].wc.wr_id]);
            CHECK(ev[i].ep == ep[ev[i].wc.wr_id % 2] && ev[i].wc.status == NIC_WC_SUCCESS);
            seen[ev[i].wc.wr_id] = 1;
            n++;
        }
    }
    /* the reports may trail the completions (the last one comes once the NIC has room) */
    while (lost < st.eq_lost) {
        CHECK_RC(nic_eq_wait(c.dev, &ev[0], 20000000), NIC_OK);
        CHECK(ev[0].kind == NIC_EV_OVERFLOW);
        overflows++;
        lost += ev[0].lost;
    }
    CHECK_RC(nicdrv_nic_stats(c.drv, &st), NICDRV_OK);
    CHECK(n == OV_N && lost == st.eq_lost && overflows >= 1);
    CHECK_RC(nic_lib_counters(c.dev, &lc), NIC_OK);
    CHECK(lc.eq_lost == lost && lc.stash_dropped == 0 && lc.cqe_bogus == 0 && lc.eqe_bogus == 0);
    printf("systest_evq: overflow: 4-entry queue, %u completions on 2 endpoints while not read: the NIC lost %u "
           "entries, reported by %u overflow events; all %u completions reported once\n",
           OV_N, st.eq_lost, overflows, n);
    { /* the queue works on */
        const struct nic_mr *m = &r->pub[1];
        struct nic_wr wr = { .local_va = VA_L, .len = 100, .wr_id = 99, .signaled = 1 };
        wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
        CHECK_RC(nic_post_write(c.dev, ep[1], &wr), NIC_OK);
        CHECK_RC(nic_eq_wait(c.dev, &ev[0], WAITC), NIC_OK);
        CHECK(ev[0].kind == NIC_EV_COMPLETION && ev[0].wc.wr_id == 99 && ev[0].ep == ep[1]);
        CHECK(nic_eq_poll(c.dev, ev, 64) == 0);
    }
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

/* The imm mode's target (node 1): a notify queue opened before its endpoint, a published buffer;
 * it takes events only from its queue. */
static void prog_imm_target(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[p->node]);
    os_t *os = os_of(r, p->node);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    uint32_t pid, want = 0;
    const struct nic_eq_attr notify = { .flags = NIC_EQ_NOTIFY };
    static uint8_t seen[IM_N], buf[40u << 10];
    struct nic_stats st;

    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    CHECK(os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_eq_open(dev, &notify), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK_RC(nic_reg(dev, VA_T, T_LEN, NIC_ACCESS_REMOTE_WRITE, &r->pub[p->node]), NIC_OK);
    r->tpid[p->node] = pid;
    r->published++;
    for (unsigned k = 0; k < IM_N; k++)
        want += r->im[k].with_imm;
    while (r->imm_seen < want) {
        struct nic_ev ev;
        CHECK_RC(nic_eq_wait(dev, &ev, WAITC), NIC_OK);
        CHECK(ev.kind == NIC_EV_IMM && ev.imm < IM_N && r->im[ev.imm].with_imm && !seen[ev.imm]);
        const struct imm_req *q = &r->im[ev.imm];
        CHECK(ev.len == q->len && ev.offset == q->roff && ev.handle == r->pub[p->node].handle && ev.src_node == 0);
        CHECK(os_read(os, pid, VA_T + q->roff, buf, q->len) == SIM_OK);
        for (uint32_t i = 0; i < q->len; i++)
            if (buf[i] != lbyte(q->loff + i)) {
                fprintf(stderr, "systest_evq: imm: write %u: byte %u not in place at its notification\n", ev.imm, i);
                CHECK(0);
            }
        seen[ev.imm] = 1;
        r->imm_seen++;
    }
    /* all posted and completed at the writer, then 2 ms more: nothing else comes */
    while (r->imm_posted < IM_N)
        coro_sleep(20000);
    {
        struct nic_ev ev;
        CHECK_RC(nic_eq_wait(dev, &ev, 400000), NIC_ETIMEDOUT);
    }
    CHECK_RC(nicdrv_nic_stats(drv, &st), NICDRV_OK);
    CHECK(st.imm_no_eq == 0 && st.eq_lost == 0 && st.dup_packets > 0); /* duplicates did arrive */
    printf("systest_evq: imm: %u notifications for %u writes with an immediate (of %u), each once, data in place; "
           "duplicate frames dropped at the target %u\n",
           r->imm_seen, want, IM_N, st.dup_packets);
    r->imm_checked = 1;
    while (!r->may_close)
        coro_sleep(2000);
out:
    if (dev)
        nic_dev_close(dev);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest_evq: node %u: %" PRIu64 " pages still pinned\n", p->node, os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

static void a_imm(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    nic_ep_t ep[1];
    unsigned completed = 0;

    memset(&c, 0, sizeof c);
    CHECK(open_proc(p, &c, NULL, ep, 1) == 0);
    set_faults(r, 0, 0.03, 0.05);
    set_faults(r, 1, 0.03, 0.05);
    {
        struct switch_faults f = { .drop = 0.03, .duplicate = 0.05, .delay = 0.05, .delay_max = 4000 };
        switch_set_link_faults(cluster_switch(r->cl), 0, &f);
    }
    for (unsigned k = 0; k < IM_N; k++) {
        const struct imm_req *q = &r->im[k];
        const struct nic_mr *m = &r->pub[1];
        struct nic_wr wr = { .local_va = VA_L + q->loff, .len = q->len, .remote_offset = q->roff, .wr_id = k,
                             .signaled = 1, .with_imm = q->with_imm, .imm = q->imm };
        wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
        int rc;
        while ((rc = nic_post_write(c.dev, ep[0], &wr)) == NIC_EQFULL) {
            struct nic_ev ev;
            CHECK_RC(nic_eq_wait(c.dev, &ev, WAITC), NIC_OK);
            CHECK(ev.kind == NIC_EV_COMPLETION && ev.wc.status == NIC_WC_SUCCESS);
            completed++;
        }
        CHECK_RC(rc, NIC_OK);
    }
    while (completed < IM_N) {
        struct nic_ev ev;
        CHECK_RC(nic_eq_wait(c.dev, &ev, WAITC), NIC_OK);
        CHECK(ev.kind == NIC_EV_COMPLETION && ev.wc.status == NIC_WC_SUCCESS);
        completed++;
    }
    r->imm_posted = IM_N;
    while (!r->imm_checked && !r->failed) /* the target's checks */
        coro_sleep(100000);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    set_faults(r, 0, 0, 0);
    set_faults(r, 1, 0, 0);
    finish_a(p);
}

/* The upcall modes' target (node 1): a queue, a buffer of 8 lines, upcalls answered or not. */
static void prog_up_target(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[p->node]);
    os_t *os = os_of(r, p->node);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    uint32_t pid, ups = 0, late_token = 0;
    int answer = r->mode == M_UPCALL_ANSWER, late_done = 0;
    struct nicdrv_stats ds;

    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    CHECK(os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_eq_open(dev, NULL), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK_RC(nic_reg(dev, VA_T, T_LEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &r->pub[p->node]), NIC_OK);
    r->tpid[p->node] = pid;
    r->published++;
    while (!r->up_stop) {
        struct nic_ev ev;
        int rc = nic_eq_wait(dev, &ev, 200000);
        if (rc == NIC_ETIMEDOUT) {
            if (late_token && !late_done) { /* the grace period is long over: too late */
                CHECK_RC(nic_upcall_done(dev, late_token), NIC_ELATE);
                late_done = 1;
            }
            continue;
        }
        CHECK_RC(rc, NIC_OK);
        CHECK(ev.kind == NIC_EV_UPCALL);
        CHECK(ev.va >= VA_T && ev.va + ev.len <= VA_T + T_LEN && ev.len == UP_LINE && ev.va % UP_LINE == 0);
        ups++;
        if (answer) {
            coro_sleep(1000); /* 5 us: the process lets go of the range */
            CHECK_RC(nic_upcall_done(dev, ev.token), NIC_OK);
        } else if (!late_token) {
            late_token = ev.token;
        }
    }
    nicdrv_stats(drv, &ds);
    printf("systest_evq: upcall %s: %u upcalls seen; driver: %" PRIu64 " posted, %" PRIu64 " answered, %" PRIu64
           " ignored, %" PRIu64 " late, %" PRIu64 " unposted, %" PRIu64 " evictions, waited %" PRIu64
           " cycles for answers; write phase %" PRIu64 " cycles\n",
           answer ? "answer" : "ignore", ups, ds.upcalls, ds.upcalls_answered, ds.upcalls_ignored, ds.upcalls_late,
           ds.upcalls_unposted, ds.evictions, ds.upcall_wait, r->up_elapsed);
    CHECK(ups >= 8 && ds.upcalls == ups && ds.evictions >= ds.upcalls && ds.upcalls_unposted == 0);
    if (answer) {
        CHECK(ds.upcalls_answered == ds.upcalls && ds.upcalls_ignored == 0 && ds.upcalls_late == 0);
        CHECK(ds.upcall_wait < ds.upcalls * UP_GRACE / 2); /* answered well within the grace period */
    } else {
        CHECK(ds.upcalls_ignored == ds.upcalls && ds.upcalls_answered == 0 && late_done && ds.upcalls_late == 1);
        CHECK(ds.upcall_wait >= ds.upcalls * UP_GRACE); /* each eviction waited the grace period */
        CHECK(r->up_elapsed >= ds.upcalls * UP_GRACE);
    }
    r->up_checked = 1;
    while (!r->may_close)
        coro_sleep(2000);
out:
    r->up_checked = 1;
    if (dev)
        nic_dev_close(dev);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest_evq: node %u: %" PRIu64 " pages still pinned\n", p->node, os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

static void a_upcall(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    nic_ep_t ep[1];
    static uint8_t buf[16u << 10];

    memset(&c, 0, sizeof c);
    CHECK(open_proc(p, &c, NULL, ep, 1) == 0);
    uint64_t t0 = coro_now();
    for (unsigned round = 0; round < 2; round++)
        for (unsigned k = 0; k < 8; k++) {
            const struct nic_mr *m = &r->pub[1];
            uint64_t roff = (uint64_t)k * UP_LINE + round * sizeof buf, loff = roff + 17;
            struct nic_wr wr = { .local_va = VA_L + loff, .len = sizeof buf, .remote_offset = roff,
                                 .wr_id = round * 8 + k, .signaled = 1 };
            struct nic_ev ev;
            wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
            CHECK_RC(nic_post_write(c.dev, ep[0], &wr), NIC_OK);
            CHECK_RC(nic_eq_wait(c.dev, &ev, WAITC), NIC_OK);
            CHECK(ev.kind == NIC_EV_COMPLETION && ev.wc.status == NIC_WC_SUCCESS && ev.wc.wr_id == wr.wr_id);
            CHECK(os_read(os_of(r, 1), r->tpid[1], VA_T + roff, buf, sizeof buf) == SIM_OK);
            for (uint32_t i = 0; i < sizeof buf; i++)
                if (buf[i] != lbyte(loff + i)) {
                    fprintf(stderr, "systest_evq: upcall: write %u: byte %u not in place\n", round * 8 + k, i);
                    CHECK(0);
                }
        }
    r->up_elapsed = coro_now() - t0;
    r->up_stop = 1;
    while (!r->up_checked)
        coro_sleep(20000);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    r->up_stop = 1;
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

/* One 8 KiB write from (dev, ep, local VA_L) to node 1's buffer at roff, verified. */
static int write_verified(struct run *r, nic_dev_t *dev, nic_ep_t ep, uint32_t pid, uint64_t roff)
{
    static uint8_t buf[8192];
    const struct nic_mr *m = &r->pub[1];
    struct nic_wr wr = { .local_va = VA_L, .len = sizeof buf, .remote_offset = roff, .wr_id = 1, .signaled = 1 };
    struct nic_wc wc;

    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    for (uint32_t i = 0; i < sizeof buf; i++)
        buf[i] = lbyte(roff + i);
    if (os_write(os_of(r, 0), pid, VA_L, buf, sizeof buf) || nic_post_write(dev, ep, &wr) ||
        nic_wait(dev, ep, &wc, WAITC) || wc.status != NIC_WC_SUCCESS)
        return -1;
    if (os_read(os_of(r, 1), r->tpid[1], VA_T + roff, buf, sizeof buf))
        return -1;
    for (uint32_t i = 0; i < sizeof buf; i++)
        if (buf[i] != lbyte(roff + i))
            return -1;
    return 0;
}

/* regwait: process B on node 0 waits for room that process A (a_regwait) holds. */
static void prog_regwait_b(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[0]);
    nic_dev_t *dev = NULL;
    nic_ep_t ep;
    struct nic_mr mr;
    struct nic_lib_counters lc;
    uint32_t pid;

    while (!r->a_registered)
        coro_sleep(2000);
    CHECK(os_proc_create(os_of(r, 0), 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_reg(dev, VA_L, 8192, NIC_ACCESS_LOCAL_READ, &mr), NIC_ENOMEM); /* no room: A holds it */
    uint64_t t0 = coro_now();
    CHECK_RC(nic_reg_wait(dev, VA_L, 8192, NIC_ACCESS_LOCAL_READ, &mr, 200000), NIC_ETIMEDOUT);
    CHECK(coro_now() >= t0 + 200000 && !r->a_closed_at);
    CHECK_RC(nic_reg_wait(dev, VA_L, 8192, NIC_ACCESS_LOCAL_READ, &mr, 4000000), NIC_OK);
    CHECK(r->a_closed_at && coro_now() >= r->a_closed_at); /* it got the room A gave back */
    printf("systest_evq: regwait: B's registration waited %" PRIu64 " cycles after its first refusal, got room %"
           PRIu64 " cycles after A closed\n", coro_now() - t0, coro_now() - r->a_closed_at);
    CHECK_RC(nic_lib_counters(dev, &lc), NIC_OK);
    CHECK(lc.reg_waits >= 2);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK(write_verified(r, dev, ep, pid, 65536) == 0);
    CHECK_RC(nic_dev_close(dev), NIC_OK);
    dev = NULL;
out:
    if (dev)
        nic_dev_close(dev);
    r->b_done = 1;
    r->done++;
}

static void a_regwait(struct prog *p)
{
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[0]);
    nic_dev_t *dev = NULL;
    nic_ep_t ep;
    struct nic_mr mr;
    char err[200] = "";
    uint32_t pid;

    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    while (r->published < r->nodes - 1)
        coro_sleep(2000);
    CHECK(os_proc_create(os_of(r, 0), 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    CHECK_RC(nic_reg(dev, VA_L, 8192, NIC_ACCESS_LOCAL_READ, &mr), NIC_OK);
    r->a_registered = 1;
    CHECK(write_verified(r, dev, ep, pid, 0) == 0);
    coro_sleep(400000); /* holds the driver's only process slot for 2 ms */
    CHECK_RC(nic_dev_close(dev), NIC_OK);
    dev = NULL;
    r->a_closed_at = coro_now();
    while (!r->b_done)
        coro_sleep(20000);
out:
    r->a_registered = 1;
    if (!r->a_closed_at)
        r->a_closed_at = coro_now();
    if (dev)
        nic_dev_close(dev);
    while (!r->b_done)
        coro_sleep(20000);
    finish_a(p);
}

#define EV_HOT_LINE ((uint32_t)((VA_T >> 12) / 64u))

static void observe_fill(void *ctx, const char *kind, unsigned cache, uint16_t pid, uint32_t key)
{
    struct run *r = ctx;
    (void)pid;
    if (cache == NIC_CACHE_VMH && key == EV_HOT_LINE && !strcmp(kind, "fill"))
        r->hot_fills++;
}

static void a_evict(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    nic_ep_t ep[1];
    struct nicdrv_stats ds;
    int lru = r->mode == M_EVICT_LRU;

    memset(&c, 0, sizeof c);
    CHECK(open_proc(p, &c, NULL, ep, 1) == 0);
    uint64_t t0 = coro_now();
    for (unsigned i = 0; i < 28; i++) {
        CHECK(write_verified(r, c.dev, ep[0], c.pid, (uint64_t)(i % 8) * 4096u) == 0);       /* hot: line 0 */
        CHECK(write_verified(r, c.dev, ep[0], c.pid, (uint64_t)(1 + i % 7) * UP_LINE) == 0); /* cold: 1..7 */
    }
    uint64_t t = coro_now() - t0;
    nicdrv_stats(hostsw_driver(r->hs[1]), &ds);
    printf("systest_evq: evict %s: hot line filled %u times, %" PRIu64 " evictions, %" PRIu64 " VMH fills, %" PRIu64
           " usage reads on node 1; 56 writes in %" PRIu64 " cycles\n",
           lru ? "lru" : "lrf", r->hot_fills, ds.evictions, ds.fills, ds.usage_reads, t);
    if (lru)
        CHECK(r->hot_fills == 1 && ds.usage_reads >= ds.evictions && ds.evictions > 0);
    else
        CHECK(r->hot_fills > 5 && ds.usage_reads == 0);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
out:
    if (c.dev)
        nic_dev_close(c.dev);
    finish_a(p);
}

static void prog_init(void *arg)
{
    struct prog *p = arg;
    switch (p->r->mode) {
    case M_MULTI: a_multi(p); break;
    case M_SLEEP: a_sleep(p); break;
    case M_OVERFLOW: a_overflow(p); break;
    case M_IMM:
    case M_IMM_SR: a_imm(p); break; /* M_IMM_SR runs as M_IMM (main) */
    case M_UPCALL_ANSWER:
    case M_UPCALL_IGNORE: a_upcall(p); break;
    case M_REGWAIT: a_regwait(p); break;
    case M_EVICT_LRF:
    case M_EVICT_LRU: a_evict(p); break;
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
    static const char *const names[M__N] = { "multi", "sleep", "overflow", "imm", "upcall-answer", "upcall-ignore", "regwait", "evict-lrf", "evict-lru", "imm-sr" };
    static struct run r;
    struct cluster_config cc;
    struct prog pr[MAXN];
    struct nicdrv_config dc;
    unsigned m;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (m = 0; argc >= 3 && m < M__N && strcmp(argv[1], names[m]); m++)
        ;
    if (argc < 3 || argc > 4 || m == M__N) {
        fprintf(stderr, "usage: systest_evq multi|sleep|overflow|imm|imm-sr|upcall-answer|upcall-ignore|regwait|evict-lrf|evict-lru IMAGE [SEED]\n");
        return 1;
    }
    r.mode = (enum mode)m;
    if (r.mode == M_IMM_SR) {
        r.mode = M_IMM;
        r.sr = 1;
    }
    r.seed = argc == 4 ? strtoull(argv[3], NULL, 0) : 1;
    r.nodes = r.mode == M_MULTI ? 3 : 2;
    r.img = read_file(argv[2], &r.img_len);
    if (!r.img) {
        fprintf(stderr, "systest_evq: cannot read %s\n", argv[2]);
        return 1;
    }
    cluster_config_default(&cc, r.nodes);
    cc.console = stdout;
    cc.seed = r.seed;
    {
        uint64_t s = r.seed * 31337 + 7;
        for (unsigned k = 0; k < IM_N; k++) {
            struct imm_req *q = &r.im[k];
            q->with_imm = k % 3 != 2;
            q->len = 1 + rnd(&s) % (40u << 10);
            q->loff = k * (40u << 10) + rnd(&s) % 61;
            q->roff = k * (40u << 10) + rnd(&s) % 61;
            q->imm = k;
        }
    }
    r.costs = costs_create(0, 1);
    r.cl = cluster_create(&cc, r.costs);
    if (!r.cl)
        return 1;
    for (unsigned i = 0; i < r.nodes; i++) {
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = (uint16_t)r.nodes;
        dc.xport_opts = r.sr ? NIC_XOPT_SR : 0u;
        if (i == 1 && (r.mode == M_EVICT_LRF || r.mode == M_EVICT_LRU)) {
            dc.pin_hwm_pages = 3 * 64 + 1; /* three lines and the completion queue */
            dc.fill_residency = 0;
            dc.evict_policy = r.mode == M_EVICT_LRU ? NICDRV_EVICT_LRU : NICDRV_EVICT_LRF;
            dc.observe = observe_fill;
            dc.observe_ctx = &r;
        }
        if (i == 0 && r.mode == M_REGWAIT)
            dc.max_procs = 1; /* room for one process's tables */
        if (i == 1 && (r.mode == M_UPCALL_ANSWER || r.mode == M_UPCALL_IGNORE)) {
            dc.pin_hwm_pages = UP_HWM;
            dc.upcall_grace = UP_GRACE;
        }
        r.hs[i] = hostsw_create(r.cl, i, r.costs, &dc);
        pr[i] = (struct prog){ &r, i };
        node_set_reset(cluster_node(r.cl, i), false);
        void (*fn)(void *) = !i                                                          ? prog_init
                             : r.mode == M_IMM                                           ? prog_imm_target
                             : r.mode == M_UPCALL_ANSWER || r.mode == M_UPCALL_IGNORE ? prog_up_target
                                                                                         : prog_target;
        if (!r.hs[i] || coro_spawn(cluster_sched(r.cl), "prog", fn, &pr[i], NULL))
            return 1;
        r.progs++;
    }
    if (r.mode == M_REGWAIT) {
        static struct prog pb;
        pb = (struct prog){ &r, 0 };
        if (coro_spawn(cluster_sched(r.cl), "procb", prog_regwait_b, &pb, NULL))
            return 1;
        r.progs++;
    }
    if (cluster_run(r.cl, 1000000000, all_done, &r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest_evq: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r.cl));
        r.failed++;
    }
    for (unsigned i = 0; i < r.nodes; i++)
        if (hostmem_counters(node_hostmem(cluster_node(r.cl, i)))->violations) {
            fprintf(stderr, "systest_evq: node %u: oracle violations\n", i);
            r.failed++;
        }
    printf("systest_evq: %s seed %" PRIu64 ": %" PRIu64 " simulated cycles: %s\n", names[m], r.seed,
           (uint64_t)cluster_now(r.cl), r.failed ? "FAIL" : "PASS");
    for (unsigned i = 0; i < r.nodes; i++)
        hostsw_destroy(r.hs[i]);
    cluster_destroy(r.cl);
    costs_destroy(r.costs);
    free(r.img);
    return r.failed ? 1 : 0;
}
