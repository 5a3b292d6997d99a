/*
 * systest_pf - cluster tests of prefetch on a miss and of the three pinning modes (issue 14, items 2
 * and 3), 2 nodes: node 0 (A) initiates, node 1 (B) registers and deregisters target buffers when
 * A asks (out of band, through the run structure). The unpinned-DMA oracle of both hosts must stay
 * silent, every transfer is verified byte for byte, and nothing may stay pinned at the end.
 *
 *   prefetch IMAGE   (an image with small VMH lines, e.g. build/fwvar/c1024-l8-a2) runs twice,
 *                    cfg.prefetch_lines 0 then 16: a cold 512 KiB RDMA write (A's source: send path,
 *                    B's target: receive path) and a cold 512 KiB RDMA read (B's source: read
 *                    responses, A's destination: receive path). Off: every line is one miss request
 *                    (>= 16 per side and direction); on: at most 3, the driver prefetched the rest
 *                    (prefetch_fills >= 15), and the run is faster. Then, with prefetch on, B
 *                    deregisters a 1 MiB target while a write into it is being served (its missed
 *                    line filled, the prefetched lines still coming): the write fails or completes, nothing stray lands
 *                    (oracle), B holds no pins for it, and a write to a new buffer works.
 *   pinmodes IMAGE   runs three times, cfg.pin_mode on-miss, at-reg, overlap: B and A register fresh
 *                    256 KiB buffers at the same moment, A writes the first 4 KiB (time to first
 *                    byte from the registrations' start), then 4 x 1 MiB into fresh buffers (the
 *                    fraction of packets that arrived before their page was pinned); every byte
 *                    checked. on-miss: VMH misses on both sides and no line pinned ahead; at-reg:
 *                    lines pinned at registration, no VMH miss during the transfers; overlap:
 *                    lines pinned in the background, registration as fast as on-miss. Then, in
 *                    each mode, B registers 4 MiB and deregisters it at once (the background
 *                    pinning of it in flight): B holds only its completion queue page after.
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
#define SPACING 0x1000000ull /* 16 MiB apart: never a shared VMH line */
#define WAITC 400000000ull
#define NB 8

enum mode { M_PREFETCH, M_PINMODES };

struct run {
    enum mode mode;
    uint32_t prefetch, pin_mode;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    unsigned done, failed;
    /* A -> B requests: register buffer k of len (0: deregister it), stats; B answers by clearing */
    int b_ready, b_exit;
    int req_k, req_pending, req_rc;
    uint64_t req_len;
    sim_cycle_t req_t0, req_t1; /* B's registration call */
    int want_stats;
    struct nic_stats bstats;
    struct nic_mr pub[NB];
    uint32_t bpid;
    /* figures */
    uint64_t miss_req[2][2]; /* [write, read][A, B] */
    uint64_t pf_fills[2];
    sim_cycle_t t_xfer;
    sim_cycle_t t_reg_a, t_reg_b, t_ttfb;
    uint64_t early, packets, bg_lines[2], vmh_miss_xfer[2];
};

struct prog {
    struct run *r;
    unsigned node;
};

#define CHECK(cond) SYSTEST_CHECK("systest_pf", cond)
#define CHECK_RC(call, want) SYSTEST_CHECK_RC("systest_pf", call, want, nic_wc_status_str)

static os_t *os_of(struct run *r, unsigned n)
{
    return node_os(cluster_node(r->cl, n));
}

static uint32_t vmh_misses(const struct nic_stats *s)
{
    const struct nic_cache_stats *c = &s->cache[NIC_CACHE_VMH];
    return c->miss_cold_send + c->miss_cold_recv + c->miss_send + c->miss_recv;
}

static void pattern(uint8_t *b, uint64_t len, uint32_t seed)
{
    for (uint64_t i = 0; i < len; i++)
        b[i] = (uint8_t)(i * 131u + (i >> 12) * 7u + seed * 29u + 1u);
}

/* ---- node B: registers / deregisters on request ---- */
static void prog_b(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[1]);
    os_t *os = os_of(r, 1);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    uint8_t *fill = NULL;

    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    CHECK(os_proc_create(os, 48, &r->bpid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, r->bpid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    r->b_ready = 1;
    while (!r->b_exit) {
        if (r->want_stats) {
            r->req_rc = nicdrv_nic_stats(drv, &r->bstats);
            r->want_stats = 0;
        }
        if (r->req_pending) {
            int k = r->req_k;
            if (r->req_len) {
                fill = realloc(fill, r->req_len);
                CHECK(fill);
                memset(fill, 0xB0 + k, r->req_len);
                CHECK(os_write(os, r->bpid, VA_B + (uint64_t)k * SPACING, fill, r->req_len) == SIM_OK);
                r->req_t0 = coro_now();
                r->req_rc = nic_reg(dev, VA_B + (uint64_t)k * SPACING, r->req_len,
                                    NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &r->pub[k]);
                r->req_t1 = coro_now();
            } else {
                r->req_rc = nic_dereg(dev, r->pub[k].handle);
            }
            r->req_pending = 0;
        }
        coro_sleep(200);
    }
out:
    free(fill);
    r->b_ready = r->b_ready ? 1 : -1;
    if (dev)
        nic_dev_close(dev);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest_pf: node 1: %" PRIu64 " pages still pinned\n", os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

/* Asks B (k, len: register; len 0: deregister) and, if wait, waits for the answer. */
static void b_ask(struct run *r, int k, uint64_t len)
{
    r->req_k = k;
    r->req_len = len;
    r->req_pending = 1;
}
static int b_wait(struct run *r)
{
    while (r->req_pending)
        coro_sleep(100);
    return r->req_rc;
}
static int b_stats(struct run *r, struct nic_stats *s)
{
    r->want_stats = 1;
    while (r->want_stats)
        coro_sleep(200);
    *s = r->bstats;
    return r->req_rc;
}

/* ---- node A ---- */
struct ctx {
    nicdrv_t *drv;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
};

static int post_at(struct ctx *c, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                   uint64_t id)
{
    struct nic_wr wr = { .local_va = lva, .len = len, .remote_offset = roff, .wr_id = id, .signaled = 1 };
    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    return write ? nic_post_write(c->dev, c->ep, &wr) : nic_post_read(c->dev, c->ep, &wr);
}

static int post(struct ctx *c, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t id)
{
    return post_at(c, write, lva, len, m, 0, id);
}

static int wait_wc(struct ctx *c, uint64_t id)
{
    struct nic_wc wc;
    int rc = nic_wait(c->dev, c->ep, &wc, WAITC);
    if (rc)
        return rc;
    if (wc.wr_id != id)
        return -100;
    return wc.status;
}

static int xfer(struct ctx *c, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t id)
{
    int rc = post(c, write, lva, len, m, id);
    return rc ? rc : wait_wc(c, id);
}

/* B's buffer k holds exactly want[0, len)? */
static int b_holds(struct run *r, int k, const uint8_t *want, uint64_t len)
{
    uint8_t *got = malloc(len);
    int ok = got && os_read(os_of(r, 1), r->bpid, VA_B + (uint64_t)k * SPACING, got, len) == SIM_OK &&
             !memcmp(got, want, len);
    free(got);
    return ok;
}

static int a_setup(struct prog *p, struct ctx *c)
{
    struct run *r = p->r;
    char err[200] = "";
    memset(c, 0, sizeof *c);
    c->drv = hostsw_driver(r->hs[0]);
    c->os = os_of(r, 0);
    if (nicdrv_probe(c->drv, r->img, r->img_len, err, sizeof err)) {
        fprintf(stderr, "systest_pf: probe: %s\n", err);
        return -1;
    }
    if (os_proc_create(c->os, 48, &c->pid) || nic_dev_open(c->drv, c->pid, NULL, &c->dev) || nic_ep_open(c->dev, &c->ep))
        return -1;
    while (!r->b_ready)
        coro_sleep(1000);
    return r->b_ready > 0 ? 0 : -1;
}

static void a_teardown(struct prog *p, struct ctx *c)
{
    struct run *r = p->r;
    if (c->dev)
        nic_dev_close(c->dev);
    r->b_exit = 1;
    nicdrv_remove(c->drv);
    if (os_pinned_pages_total(c->os)) {
        fprintf(stderr, "systest_pf: node 0: %" PRIu64 " pages still pinned\n", os_pinned_pages_total(c->os));
        r->failed++;
    }
}

#define PF_LEN (512u << 10)
#define PF_BIG (1u << 20)
static void a_prefetch(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    struct nic_stats a0, a1, b0, b1;
    struct nicdrv_stats da, db;
    uint8_t *src = malloc(PF_BIG), *got = malloc(PF_BIG);
    struct nic_mr ms, md, mb;
    sim_cycle_t t0;
    int rc;

    CHECK(src && got);
    CHECK(a_setup(p, &c) == 0);
    /* cold write: A's source (send path), B's target 0 (receive path) */
    pattern(src, PF_LEN, 1);
    CHECK(os_write(c.os, c.pid, VA_A, src, PF_LEN) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A, PF_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &ms), NIC_OK);
    b_ask(r, 0, PF_LEN);
    CHECK_RC(b_wait(r), NIC_OK);
    CHECK_RC(nicdrv_nic_stats(c.drv, &a0), NICDRV_OK);
    CHECK_RC(b_stats(r, &b0), NICDRV_OK);
    t0 = coro_now();
    CHECK_RC(xfer(&c, 1, VA_A, PF_LEN, &r->pub[0], 1), NIC_WC_SUCCESS);
    r->t_xfer = coro_now() - t0;
    CHECK(b_holds(r, 0, src, PF_LEN));
    CHECK_RC(nicdrv_nic_stats(c.drv, &a1), NICDRV_OK);
    CHECK_RC(b_stats(r, &b1), NICDRV_OK);
    r->miss_req[0][0] = a1.miss_requests - a0.miss_requests;
    r->miss_req[0][1] = b1.miss_requests - b0.miss_requests;
    /* cold read: B's buffer 1 (read responses: B's send path) into A's fresh destination */
    b_ask(r, 1, PF_LEN);
    CHECK_RC(b_wait(r), NIC_OK);
    CHECK(os_write(c.os, c.pid, VA_A + SPACING, got, PF_LEN) == SIM_OK); /* whatever: overwritten */
    CHECK_RC(nic_reg(c.dev, VA_A + SPACING, PF_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &md), NIC_OK);
    a0 = a1;
    b0 = b1;
    t0 = coro_now();
    CHECK_RC(xfer(&c, 0, VA_A + SPACING, PF_LEN, &r->pub[1], 2), NIC_WC_SUCCESS);
    r->t_xfer += coro_now() - t0;
    memset(src, 0xB1, PF_LEN);
    CHECK(os_read(c.os, c.pid, VA_A + SPACING, got, PF_LEN) == SIM_OK);
    CHECK(!memcmp(got, src, PF_LEN));
    CHECK_RC(nicdrv_nic_stats(c.drv, &a1), NICDRV_OK);
    CHECK_RC(b_stats(r, &b1), NICDRV_OK);
    r->miss_req[1][0] = a1.miss_requests - a0.miss_requests;
    r->miss_req[1][1] = b1.miss_requests - b0.miss_requests;
    nicdrv_stats(c.drv, &da);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    r->pf_fills[0] = da.prefetch_fills;
    r->pf_fills[1] = db.prefetch_fills;
    printf("systest_pf: prefetch %u: miss requests write A %" PRIu64 " B %" PRIu64 ", read A %" PRIu64 " B %" PRIu64
           "; prefetch fills A %" PRIu64 " B %" PRIu64 "; lines prefetched (NCP) A %u B %u; 2 x 512 KiB cold in %" PRIu64
           " cycles\n",
           r->prefetch, r->miss_req[0][0], r->miss_req[0][1], r->miss_req[1][0], r->miss_req[1][1], da.prefetch_fills,
           db.prefetch_fills, a1.miss_prefetch_lines, b1.miss_prefetch_lines, (uint64_t)r->t_xfer);
    if (!r->prefetch) {
        for (int d = 0; d < 2; d++)
            for (int s = 0; s < 2; s++)
                CHECK(r->miss_req[d][s] >= PF_LEN / (8u * 4096u)); /* one per line of the 8-page lines */
        CHECK(da.prefetch_fills == 0 && db.prefetch_fills == 0 && a1.miss_prefetch_lines == 0);
        goto out;
    }
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 2; s++)
            CHECK(r->miss_req[d][s] >= 1 && r->miss_req[d][s] <= 3);
    CHECK(da.prefetch_fills >= 2 * 15 && db.prefetch_fills >= 2 * 15);
    CHECK(a1.miss_prefetch_lines >= 2 * 15 && b1.miss_prefetch_lines >= 2 * 15);

    /* deregistration while a prefetch is in flight: a 1 MiB write into B's buffer 2, which B
     * deregisters as soon as its driver has taken the first miss */
    pattern(src, PF_BIG, 3);
    CHECK(os_write(c.os, c.pid, VA_A + 2 * SPACING, src, PF_BIG) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A + 2 * SPACING, PF_BIG, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mb), NIC_OK);
    b_ask(r, 2, PF_BIG);
    CHECK_RC(b_wait(r), NIC_OK);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    uint64_t f0 = db.fills, pf0 = db.prefetch_fills;
    CHECK_RC(post(&c, 1, VA_A + 2 * SPACING, PF_BIG, &r->pub[2], 3), NIC_OK);
    for (unsigned i = 0; i < 100000; i++) {
        nicdrv_stats(hostsw_driver(r->hs[1]), &db);
        if (db.fills > f0)
            break;
        coro_sleep(20);
    }
    CHECK(db.fills > f0); /* the missed line is in: its prefetched lines are being filled */
    b_ask(r, 2, 0);
    CHECK_RC(b_wait(r), NIC_OK);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    rc = wait_wc(&c, 3);
    printf("systest_pf: write into a target deregistered during its prefetch: %s (B prefetch fills before the "
           "deregistration returned: %" PRIu64 ")\n", nic_wc_status_str(rc), db.prefetch_fills - pf0);
    CHECK(rc == NIC_WC_SUCCESS || rc == NIC_WC_BAD_HANDLE || rc == NIC_WC_BOUNDS || rc == NIC_WC_RIGHTS);
    CHECK(os_pinned_pages(os_of(r, 1), r->bpid) == 2u * (PF_LEN / 4096u) + 1u); /* buffers 0, 1 and the CQ */
    /* the NIC keeps serving: a new buffer takes the same write */
    b_ask(r, 3, PF_BIG);
    CHECK_RC(b_wait(r), NIC_OK);
    CHECK_RC(xfer(&c, 1, VA_A + 2 * SPACING, PF_BIG, &r->pub[3], 4), NIC_WC_SUCCESS);
    CHECK(b_holds(r, 3, src, PF_BIG));
out:
    a_teardown(p, &c);
    free(src);
    free(got);
}

#define PM_LEN (256u << 10)
#define PM_BIG (1u << 20)
#define PM_HUGE (4u << 20)
static void a_pinmodes(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    struct nic_stats a0, a1, b0, b1;
    struct nicdrv_stats da, db;
    uint8_t *src = malloc(PM_BIG);
    struct nic_mr ms;
    sim_cycle_t t0;

    CHECK(src);
    CHECK(a_setup(p, &c) == 0);
    pattern(src, PM_LEN, 5);
    CHECK(os_write(c.os, c.pid, VA_A, src, PM_LEN) == SIM_OK);
    CHECK_RC(nicdrv_nic_stats(c.drv, &a0), NICDRV_OK);
    CHECK_RC(b_stats(r, &b0), NICDRV_OK);
    /* both sides register at once; the first 4 KiB goes as soon as both have returned */
    t0 = coro_now();
    b_ask(r, 0, PM_LEN);
    CHECK_RC(nic_reg(c.dev, VA_A, PM_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &ms), NIC_OK);
    r->t_reg_a = coro_now() - t0;
    CHECK_RC(b_wait(r), NIC_OK);
    r->t_reg_b = r->req_t1 - r->req_t0;
    CHECK_RC(xfer(&c, 1, VA_A, 4096, &r->pub[0], 1), NIC_WC_SUCCESS);
    r->t_ttfb = coro_now() - t0;
    CHECK_RC(post_at(&c, 1, VA_A + 4096, PM_LEN - 4096, &r->pub[0], 4096, 2), NIC_OK);
    CHECK_RC(wait_wc(&c, 2), NIC_WC_SUCCESS);
    CHECK(b_holds(r, 0, src, PM_LEN));
    /* 4 x 1 MiB into fresh buffers, each registered on both sides just before */
    for (int k = 1; k <= 4; k++) {
        struct nic_mr m;
        pattern(src, PM_BIG, 10 + (uint32_t)k);
        CHECK(os_write(c.os, c.pid, VA_A + (uint64_t)k * SPACING, src, PM_BIG) == SIM_OK);
        b_ask(r, k, PM_BIG);
        CHECK_RC(nic_reg(c.dev, VA_A + (uint64_t)k * SPACING, PM_BIG, NIC_ACCESS_LOCAL_READ, &m), NIC_OK);
        CHECK_RC(b_wait(r), NIC_OK);
        CHECK_RC(xfer(&c, 1, VA_A + (uint64_t)k * SPACING, PM_BIG, &r->pub[k], 10 + (uint64_t)k), NIC_WC_SUCCESS);
        CHECK(b_holds(r, k, src, PM_BIG));
    }
    CHECK_RC(nicdrv_nic_stats(c.drv, &a1), NICDRV_OK);
    CHECK_RC(b_stats(r, &b1), NICDRV_OK);
    nicdrv_stats(c.drv, &da);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    r->early = da.pin_early + db.pin_early;
    r->packets = (a1.tx_packets - a0.tx_packets) + (b1.rx_packets - b0.rx_packets);
    r->bg_lines[0] = da.bg_lines;
    r->bg_lines[1] = db.bg_lines;
    r->vmh_miss_xfer[0] = vmh_misses(&a1) - vmh_misses(&a0);
    r->vmh_miss_xfer[1] = vmh_misses(&b1) - vmh_misses(&b0);
    printf("systest_pf: pin mode %u: registration A %" PRIu64 " B %" PRIu64 " cycles; first 4 KiB after %" PRIu64
           " cycles; VMH misses A %" PRIu64 " B %" PRIu64 "; lines pinned ahead A %" PRIu64 " B %" PRIu64
           "; packets before their page was pinned %" PRIu64 " of %" PRIu64 "\n",
           r->pin_mode, (uint64_t)r->t_reg_a, (uint64_t)r->t_reg_b, (uint64_t)r->t_ttfb, r->vmh_miss_xfer[0],
           r->vmh_miss_xfer[1], da.bg_lines, db.bg_lines, r->early, r->packets);
    switch (r->pin_mode) {
    case NICDRV_PIN_ON_MISS:
        CHECK(r->vmh_miss_xfer[0] >= 5 && r->vmh_miss_xfer[1] >= 5); /* every buffer's first line */
        CHECK(da.bg_lines == 0 && db.bg_lines == 0 && r->early == 0);
        break;
    case NICDRV_PIN_AT_REG:
        CHECK(r->vmh_miss_xfer[0] == 0 && r->vmh_miss_xfer[1] == 0);
        CHECK(da.bg_lines >= 5 && db.bg_lines >= 5 && r->early == 0);
        break;
    default:
        CHECK(da.bg_lines + db.bg_lines >= 5);
        break;
    }
    /* deregistration with the background (or registration-time) pinning of 4 MiB just started:
     * overlap: once the pin worker has done a line of it, with the others still to come */
    uint64_t bg0 = db.bg_lines;
    b_ask(r, 6, PM_HUGE);
    CHECK_RC(b_wait(r), NIC_OK);
    for (unsigned i = 0; r->pin_mode == NICDRV_PIN_OVERLAP && i < 100000; i++) {
        nicdrv_stats(hostsw_driver(r->hs[1]), &db);
        if (db.bg_lines > bg0)
            break;
        coro_sleep(20);
    }
    b_ask(r, 6, 0);
    CHECK_RC(b_wait(r), NIC_OK);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    if (r->pin_mode == NICDRV_PIN_OVERLAP) /* started, cut short: 16 lines of 64 pages registered */
        CHECK(db.bg_lines > bg0 && db.bg_lines - bg0 < PM_HUGE / (64u * 4096u));
    if (r->pin_mode == NICDRV_PIN_AT_REG) /* all of it before the registration returned */
        CHECK(db.bg_lines - bg0 == PM_HUGE / (64u * 4096u));
    CHECK(os_pinned_pages(os_of(r, 1), r->bpid) <= (PM_LEN + 4u * PM_BIG) / 4096u + 1u);
    for (int k = 0; k <= 4; k++) {
        b_ask(r, k, 0);
        CHECK_RC(b_wait(r), NIC_OK);
    }
    for (unsigned i = 0; i < 200 && nicdrv_pin_step(hostsw_driver(r->hs[1])) == NICDRV_OK; i++)
        ; /* nothing left to pin for deregistered buffers */
    CHECK(nicdrv_pin_step(hostsw_driver(r->hs[1])) == NICDRV_ENOENT);
    CHECK(os_pinned_pages(os_of(r, 1), r->bpid) == 1); /* the completion queue only */
out:
    a_teardown(p, &c);
    free(src);
}

static void prog_a(void *arg)
{
    struct prog *p = arg;
    if (p->r->mode == M_PREFETCH)
        a_prefetch(p);
    else
        a_pinmodes(p);
    p->r->done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct run *r = ctx;
    (void)c;
    return r->done == 2;
}

static int run_once(struct run *r, const char *img)
{
    struct cluster_config cc;
    struct prog pr[2];
    struct nicdrv_config dc;

    r->img = read_file(img, &r->img_len);
    if (!r->img) {
        fprintf(stderr, "systest_pf: cannot read %s\n", img);
        return 1;
    }
    cluster_config_default(&cc, 2);
    cc.console = stdout;
    cc.seed = 1;
    r->costs = costs_create(0, 1);
    r->cl = cluster_create(&cc, r->costs);
    if (!r->cl)
        return 1;
    for (unsigned i = 0; i < 2; i++) {
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = 2;
        dc.prefetch_lines = r->prefetch;
        dc.pin_mode = r->pin_mode;
        r->hs[i] = hostsw_create(r->cl, i, r->costs, &dc);
        pr[i] = (struct prog){ r, i };
        node_set_reset(cluster_node(r->cl, i), false);
        if (!r->hs[i] || coro_spawn(cluster_sched(r->cl), "prog", i ? prog_b : prog_a, &pr[i], NULL))
            return 1;
    }
    if (cluster_run(r->cl, 2000000000ull, all_done, r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest_pf: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r->cl));
        r->failed++;
    }
    for (unsigned i = 0; i < 2; i++)
        if (hostmem_counters(node_hostmem(cluster_node(r->cl, i)))->violations) {
            fprintf(stderr, "systest_pf: node %u: oracle violations\n", i);
            r->failed++;
        }
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(r->hs[i]);
    cluster_destroy(r->cl);
    costs_destroy(r->costs);
    free(r->img);
    return 0;
}

int main(int argc, char **argv)
{
    struct run r[3];
    unsigned failed = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 3 || (strcmp(argv[1], "prefetch") && strcmp(argv[1], "pinmodes"))) {
        fprintf(stderr, "usage: systest_pf prefetch|pinmodes IMAGE\n");
        return 1;
    }
    memset(r, 0, sizeof r);
    if (!strcmp(argv[1], "prefetch")) {
        for (unsigned i = 0; i < 2; i++) {
            r[i].mode = M_PREFETCH;
            r[i].prefetch = i ? 16 : 0;
            if (run_once(&r[i], argv[2]))
                return 1;
            failed += r[i].failed;
        }
        if (!failed && r[1].t_xfer >= r[0].t_xfer) {
            fprintf(stderr, "systest_pf: prefetch did not make the cold transfers faster (%" PRIu64 " vs %" PRIu64
                            " cycles)\n", (uint64_t)r[1].t_xfer, (uint64_t)r[0].t_xfer);
            failed++;
        }
        if (!failed)
            printf("systest_pf: prefetch: cold 2 x 512 KiB %" PRIu64 " -> %" PRIu64 " cycles (%.2fx)\n",
                   (uint64_t)r[0].t_xfer, (uint64_t)r[1].t_xfer, (double)r[0].t_xfer / (double)r[1].t_xfer);
    } else {
        static const char *const names[3] = { "on-miss", "at-reg", "overlap" };
        for (unsigned i = 0; i < 3; i++) {
            r[i].mode = M_PINMODES;
            r[i].pin_mode = i;
            if (run_once(&r[i], argv[2]))
                return 1;
            failed += r[i].failed;
        }
        for (unsigned i = 0; i < 3; i++)
            printf("systest_pf: %-8s registration %8" PRIu64 " cycles, time to first byte %8" PRIu64
                   " cycles, packets before their page was pinned %" PRIu64 " / %" PRIu64 "\n",
                   names[i], (uint64_t)(r[i].t_reg_a > r[i].t_reg_b ? r[i].t_reg_a : r[i].t_reg_b),
                   (uint64_t)r[i].t_ttfb, r[i].early, r[i].packets);
        /* registration: at-reg pays the pinning, overlap returns as on-miss does */
        if (!failed && !(r[1].t_reg_b > r[0].t_reg_b && r[2].t_reg_b < r[1].t_reg_b)) {
            fprintf(stderr, "systest_pf: registration times do not show the modes\n");
            failed++;
        }
    }
    printf("systest_pf: %s\n", failed ? "FAIL" : "PASS");
    return failed ? 1 : 0;
}
