/*
 * systest_e2e - end-to-end cluster tests of driver + library + NCP (issues 5 and 6), 2 nodes:
 * node 0 (A) is the initiator, node 1 (B) the target that registers buffers and publishes
 * (node, pid, handle, key) out of band. The unpinned-DMA oracle is armed in fail-loudly mode in
 * every mode (a violation aborts the run); the violation counters are also checked at the end.
 *
 *   sizes IMAGE     RDMA write and read of 1, 7, 4095, 4096, 4097, 3 pages, 64 KiB, 64 KiB + 61
 *                   at 4 (local, remote) offset pairs (aligned, misaligned both sides); the whole
 *                   target and local buffers are compared with a shadow after every transfer
 *   misses IMAGE    4 local buffers and 4 target buffers each in its own VMH line: NCP counters
 *                   show send-path VMH misses at A and receive-path VMH and CBH misses at B; the
 *                   driver served them; the miss penalty split (delay / processing) is printed
 *   evict IMAGE     pin high-water mark of 24 pages on both drivers, working set of 6 x 8 pages
 *                   per side, 36 transfers verified; pins bounded by the mark, evictions happened,
 *                   zero pins after cleanup
 *   close IMAGE     endpoint close with outstanding work (link to B dead: all FLUSHED; link
 *                   alive: each SUCCESS or FLUSHED, in order); old handle dead; reopen 20 times
 *                   (> NIC endpoints); the transport still delivers; nothing pinned, no driver
 *                   objects left
 *   errors IMAGE    every API error at the call, remote protection errors as error completions
 *                   with the target buffer unchanged, peer unreachable after the retry limit,
 *                   queue full, recovery of the link, EDEV after remove
 *   nackcmp IMG_NACK IMG_NONACK   the same receive-path-miss writes on the NACK build and the
 *                   seed-faithful timeout build: both deliver, the timeout build pays more per miss
 *   read_dead IMAGE a 1 MiB RDMA read whose responder goes silent (every frame to A dropped once
 *                   the responses flow): the read completes UNREACHABLE after the NCP's read
 *                   timeout, not before and not much after; once the link is back, B's late
 *                   (void) responses are discarded, nothing is written into the failed read's
 *                   buffer, and a read works again
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
#define SPACING 0x100000ull /* buffers 1 MiB apart: each in its own VMH line for L <= 256 */
#define MAXBUF 8
#define WAITC 100000000ull
#define HWM 24u

enum mode { M_SIZES, M_MISSES, M_EVICT, M_CLOSE, M_ERRORS, M_NACK, M_READDEAD, M__N };

struct bufspec {
    uint64_t len;
    uint32_t rights;
};

struct run {
    enum mode mode;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    unsigned done, failed;
    /* the target's buffers (B fills buffer k with 0xB0 + k) */
    unsigned nb;
    struct bufspec bs[MAXBUF];
    struct nic_mr pub[MAXBUF];
    int published, b_may_close;
    /* A asks B for its NCP counters */
    int variant; /* close_dead, errors_read */
    int want_stats, stats_rc;
    struct nic_stats bstats;
    /* nackcmp results */
    double cold_avg, warm_avg;
    struct nic_stats astats_end, bstats_end;
};

struct prog {
    struct run *r;
    unsigned node;
};

#define CHECK(cond) SYSTEST_CHECK("systest_e2e", cond)
#define CHECK_RC(call, want) SYSTEST_CHECK_RC("systest_e2e", call, want, nic_wc_status_str)

static os_t *os_of(struct run *r, unsigned n)
{
    return node_os(cluster_node(r->cl, n));
}

static uint32_t misses(const struct nic_cache_stats *c, int recv)
{
    return recv ? c->miss_cold_recv + c->miss_recv : c->miss_cold_send + c->miss_send;
}

static void print_stats(const char *who, const struct nic_stats *s)
{
    static const char *const cn[] = { "VMH", "CBH", "PCH" };
    for (unsigned c = 0; c < NIC_CACHE__COUNT && c < 3; c++)
        printf("systest_e2e: %s %s: lookups %u hits %u miss send %u (cold %u) recv %u (cold %u) evict %u inval %u "
               "fills %u rejected %u\n",
               who, cn[c], s->cache[c].lookups, s->cache[c].hits, misses(&s->cache[c], 0), s->cache[c].miss_cold_send,
               misses(&s->cache[c], 1), s->cache[c].miss_cold_recv, s->cache[c].evictions, s->cache[c].invalidations,
               s->cache[c].fills, s->cache[c].fills_rejected);
    printf("systest_e2e: %s: tx %u rx %u retransmits %u timeouts %u nacks sent %u recv %u drops miss %u bad %u "
           "protection %u dup %u\n",
           who, s->tx_packets, s->rx_packets, s->retransmits, s->timeouts, s->nacks_sent, s->nacks_received,
           s->drops_miss, s->drops_bad, s->protection_errors, s->dup_packets);
}

/* B's NCP counters, taken by B's own process (process context of B's driver). */
static int b_stats(struct run *r, struct nic_stats *out)
{
    r->want_stats = 1;
    while (r->want_stats)
        coro_sleep(500);
    *out = r->bstats;
    return r->stats_rc;
}

static void set_link(struct run *r, double drop)
{
    struct switch_faults f;
    memset(&f, 0, sizeof f);
    f.drop = drop;
    f.delay_max = 2000;
    switch_set_link_faults(cluster_switch(r->cl), 1, &f); /* frames headed to B */
    switch_set_link_faults(cluster_switch(r->cl), 0, &f); /* and to A */
}

/* ---- node B: the target ---- */
static void prog_target(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[1]);
    os_t *os = os_of(r, 1);
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    uint32_t pid;
    uint8_t *fill = NULL;

    CHECK_RC(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err), NICDRV_OK);
    CHECK(os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK_RC(nic_dev_open(drv, pid, NULL, &dev), NIC_OK);
    CHECK_RC(nic_ep_open(dev, &ep), NIC_OK);
    for (unsigned k = 0; k < r->nb; k++) {
        fill = realloc(fill, r->bs[k].len);
        CHECK(fill);
        memset(fill, 0xB0 + k, r->bs[k].len);
        CHECK(os_write(os, pid, VA_B + k * SPACING, fill, r->bs[k].len) == SIM_OK);
        CHECK_RC(nic_reg(dev, VA_B + k * SPACING, r->bs[k].len, r->bs[k].rights, &r->pub[k]), NIC_OK);
    }
    r->published = 1;
    while (!r->b_may_close) {
        if (r->want_stats) {
            r->stats_rc = nicdrv_nic_stats(drv, &r->bstats);
            r->want_stats = 0;
        }
        coro_sleep(500);
    }
out:
    free(fill);
    r->published = r->published ? 1 : -1;
    if (dev)
        nic_dev_close(dev);
    nicdrv_remove(drv);
    if (os_pinned_pages_total(os)) {
        fprintf(stderr, "systest_e2e: node 1: %" PRIu64 " pages still pinned\n", os_pinned_pages_total(os));
        r->failed++;
    }
    r->done++;
}

/* ---- node A helpers ---- */
struct ctx {
    nicdrv_t *drv;
    os_t *os;
    nic_dev_t *dev;
    nic_ep_t ep;
    uint32_t pid;
};

static int setup_a(struct prog *p, struct ctx *c)
{
    struct run *r = p->r;
    char err[200] = "";
    memset(c, 0, sizeof *c);
    c->drv = hostsw_driver(r->hs[0]);
    c->os = os_of(r, 0);
    int rc = nicdrv_probe(c->drv, r->img, r->img_len, err, sizeof err);
    if (rc) {
        fprintf(stderr, "systest_e2e: node 0: probe: %s: %s\n", nicdrv_strerror(rc), err);
        return -1;
    }
    if (os_proc_create(c->os, 48, &c->pid) || nic_dev_open(c->drv, c->pid, NULL, &c->dev) ||
        nic_ep_open(c->dev, &c->ep))
        return -1;
    while (!r->published)
        coro_sleep(2000);
    return r->published > 0 ? 0 : -1;
}

/* Post one request, wait for its completion; returns the completion status (or an API error). */
static int xfer(struct ctx *c, int write, uint64_t lva, uint32_t len, const struct nic_mr *m, uint64_t roff,
                uint64_t id, uint32_t *bytes)
{
    struct nic_wr wr = { .local_va = lva, .len = len, .remote_offset = roff, .wr_id = id, .signaled = 1 };
    struct nic_wc wc;
    int rc;
    wr.remote = (struct nic_remote){ m->node, m->pid, m->handle, m->rkey };
    rc = write ? nic_post_write(c->dev, c->ep, &wr) : nic_post_read(c->dev, c->ep, &wr);
    if (rc)
        return rc;
    rc = nic_wait(c->dev, c->ep, &wc, WAITC);
    if (rc)
        return rc;
    if (wc.wr_id != id || wc.op != (write ? NIC_OP_RDMA_WRITE : NIC_OP_RDMA_READ)) {
        fprintf(stderr, "systest_e2e: completion for wr_id %" PRIu64 " op %u, want %" PRIu64 "\n", wc.wr_id, wc.op, id);
        return -100;
    }
    if (bytes)
        *bytes = wc.bytes;
    return wc.status;
}

static void teardown_a(struct prog *p, struct ctx *c)
{
    struct run *r = p->r;
    if (c->dev)
        nic_dev_close(c->dev);
    c->dev = NULL;
    r->b_may_close = 1;
    nicdrv_remove(c->drv);
    if (os_pinned_pages_total(c->os)) {
        fprintf(stderr, "systest_e2e: node 0: %" PRIu64 " pages still pinned\n", os_pinned_pages_total(c->os));
        r->failed++;
    }
}

/* ---- sizes ---- */
#define SZ_BUF 73728u
static void a_sizes(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    static const uint32_t sizes[] = { 1, 7, 4095, 4096, 4097, 3 * 4096, 65536, 65536 + 61 };
    static const uint32_t offs[][2] = { { 0, 0 }, { 1, 4095 }, { 4093, 3 }, { 2049, 4097 } };
    uint8_t *la = calloc(1, SZ_BUF), *sb = malloc(SZ_BUF), *got = malloc(SZ_BUF);
    struct nic_mr mr;
    unsigned n = 0;
    uint64_t bytes = 0;

    CHECK(la && sb && got);
    CHECK(setup_a(p, &c) == 0);
    CHECK(os_write(c.os, c.pid, VA_A, la, SZ_BUF) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A, SZ_BUF, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    CHECK(os_read(os_of(r, 1), r->pub[0].pid, VA_B, sb, SZ_BUF) == SIM_OK);
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (unsigned o = 0; o < sizeof offs / sizeof offs[0]; o++, n++) {
            uint32_t len = sizes[s], lo = offs[o][0], ro = offs[o][1], b = 0;
            uint64_t ro2 = ((uint64_t)ro * 7 + 13 * n + 1) % (SZ_BUF - len + 1);
            for (uint32_t i = 0; i < len; i++)
                la[lo + i] = (uint8_t)(i * 31 + n * 17 + (i >> 8) + 1);
            CHECK(os_write(c.os, c.pid, VA_A, la, SZ_BUF) == SIM_OK);
            CHECK_RC(xfer(&c, 1, VA_A + lo, len, &r->pub[0], ro, 2 * n, &b), NIC_WC_SUCCESS);
            CHECK(b == len);
            memcpy(sb + ro, la + lo, len);
            CHECK(os_read(os_of(r, 1), r->pub[0].pid, VA_B, got, SZ_BUF) == SIM_OK);
            if (memcmp(got, sb, SZ_BUF)) {
                fprintf(stderr, "systest_e2e: write %u bytes local +%u remote +%u: target differs\n", len, lo, ro);
                CHECK(0);
            }
            /* read a different remote piece back into a cleared local buffer */
            memset(la, 0, SZ_BUF);
            CHECK(os_write(c.os, c.pid, VA_A, la, SZ_BUF) == SIM_OK);
            CHECK_RC(xfer(&c, 0, VA_A + lo, len, &r->pub[0], ro2, 2 * n + 1, &b), NIC_WC_SUCCESS);
            CHECK(b == len);
            memcpy(la + lo, sb + ro2, len);
            CHECK(os_read(c.os, c.pid, VA_A, got, SZ_BUF) == SIM_OK);
            if (memcmp(got, la, SZ_BUF)) {
                fprintf(stderr, "systest_e2e: read %u bytes local +%u remote +%" PRIu64 ": local differs\n", len, lo,
                        ro2);
                CHECK(0);
            }
            bytes += 2ull * len;
        }
    }
    printf("systest_e2e: sizes: %u writes and %u reads verified (%" PRIu64 " bytes)\n", n, n, bytes);
    CHECK_RC(nic_dereg(c.dev, mr.handle), NIC_OK);
    CHECK(os_pinned_pages(c.os, c.pid) == 1); /* only the completion queue page */
out:
    teardown_a(p, &c);
    free(la);
    free(sb);
    free(got);
}

/* ---- misses ---- */
static void a_misses(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    struct nic_stats a0, a1, b0, b1;
    struct nicdrv_stats da, db;
    struct costs_stats cs;
    uint8_t buf[8192], got[8192];
    struct nic_mr mr[4];

    CHECK(setup_a(p, &c) == 0);
    CHECK_RC(nicdrv_nic_stats(c.drv, &a0), NICDRV_OK);
    CHECK_RC(b_stats(r, &b0), NICDRV_OK);
    for (unsigned k = 0; k < 4; k++) {
        for (unsigned i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)(i + 3 * k + 1);
        CHECK(os_write(c.os, c.pid, VA_A + k * SPACING, buf, sizeof buf) == SIM_OK);
        CHECK_RC(nic_reg(c.dev, VA_A + k * SPACING, sizeof buf, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr[k]),
                 NIC_OK);
    }
    for (unsigned k = 0; k < 4; k++) { /* cold on both sides: send-path miss at A, receive-path at B */
        CHECK_RC(xfer(&c, 1, VA_A + k * SPACING, sizeof buf, &r->pub[k], 0, k, NULL), NIC_WC_SUCCESS);
        CHECK(os_read(c.os, c.pid, VA_A + k * SPACING, buf, sizeof buf) == SIM_OK);
        CHECK(os_read(os_of(r, 1), r->pub[k].pid, VA_B + k * SPACING, got, sizeof got) == SIM_OK);
        CHECK(!memcmp(buf, got, sizeof buf));
    }
    CHECK_RC(nicdrv_nic_stats(c.drv, &a1), NICDRV_OK);
    CHECK_RC(b_stats(r, &b1), NICDRV_OK);
    print_stats("initiator A", &a1);
    print_stats("target B", &b1);
    nicdrv_stats(c.drv, &da);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    costs_stats(r->costs, &cs);
    printf("systest_e2e: misses: A send-path VMH %u, B recv-path VMH %u CBH %u PCH %u; driver misses A %" PRIu64
           " B %" PRIu64 ", served A %" PRIu64 " B %" PRIu64 "\n",
           misses(&a1.cache[NIC_CACHE_VMH], 0) - misses(&a0.cache[NIC_CACHE_VMH], 0),
           misses(&b1.cache[NIC_CACHE_VMH], 1) - misses(&b0.cache[NIC_CACHE_VMH], 1),
           misses(&b1.cache[NIC_CACHE_CBH], 1) - misses(&b0.cache[NIC_CACHE_CBH], 1),
           misses(&b1.cache[NIC_CACHE_PCH], 1) - misses(&b0.cache[NIC_CACHE_PCH], 1), da.misses, db.misses,
           hostsw_stats(r->hs[0])->misses_served, hostsw_stats(r->hs[1])->misses_served);
    printf("systest_e2e: miss penalty split over %" PRIu64 " misses: delay p50 %" PRIu64 " p99 %" PRIu64 " max %" PRIu64
           " cycles; processing p50 %" PRIu64 " p99 %" PRIu64 " max %" PRIu64 " cycles; total p50 %" PRIu64 "\n",
           (uint64_t)cs.count, (uint64_t)cs.delay_p50, (uint64_t)cs.delay_p99, (uint64_t)cs.delay_max,
           (uint64_t)cs.proc_p50, (uint64_t)cs.proc_p99, (uint64_t)cs.proc_max, (uint64_t)cs.total_p50);
    CHECK(misses(&a1.cache[NIC_CACHE_VMH], 0) - misses(&a0.cache[NIC_CACHE_VMH], 0) >= 4); /* 4 local lines */
    CHECK(misses(&b1.cache[NIC_CACHE_VMH], 1) - misses(&b0.cache[NIC_CACHE_VMH], 1) >= 4); /* 4 target lines */
    CHECK(misses(&b1.cache[NIC_CACHE_CBH], 1) - misses(&b0.cache[NIC_CACHE_CBH], 1) >= 1); /* the buffer ids' line */
    CHECK(b1.drops_miss > b0.drops_miss || b1.nacks_sent > b0.nacks_sent); /* receive-path misses dropped */
    CHECK(hostsw_stats(r->hs[0])->misses_served >= 4 && hostsw_stats(r->hs[1])->misses_served >= 5);
    CHECK(hostsw_stats(r->hs[0])->miss_errors == 0 && hostsw_stats(r->hs[1])->miss_errors == 0);
    CHECK(cs.count >= 9 && cs.proc_p50 > 0);
    /* warm: the same transfers hit everywhere and raise no miss */
    for (unsigned k = 0; k < 4; k++)
        CHECK_RC(xfer(&c, 0, VA_A + k * SPACING, sizeof buf, &r->pub[k], 0, 10 + k, NULL), NIC_WC_SUCCESS);
    CHECK_RC(nicdrv_nic_stats(c.drv, &a0), NICDRV_OK);
    CHECK(misses(&a0.cache[NIC_CACHE_VMH], 0) == misses(&a1.cache[NIC_CACHE_VMH], 0));
    CHECK(a0.cache[NIC_CACHE_VMH].hits > a1.cache[NIC_CACHE_VMH].hits);
out:
    teardown_a(p, &c);
}

/* ---- eviction under pressure ---- */
#define EV_N 6
#define EV_LEN (8 * 4096u)
static void a_evict(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    static uint8_t la[EV_N][EV_LEN], sb[EV_N][EV_LEN], got[EV_LEN];
    struct nic_mr mr[EV_N];
    struct nicdrv_stats da, db;
    uint64_t maxa = 0, maxb = 0;
    os_t *osb = os_of(r, 1);

    CHECK(setup_a(p, &c) == 0);
    for (unsigned k = 0; k < EV_N; k++) {
        for (unsigned i = 0; i < EV_LEN; i++)
            la[k][i] = (uint8_t)(i * 13 + k * 7 + (i >> 12));
        memset(sb[k], 0xB0 + k, EV_LEN);
        CHECK(os_write(c.os, c.pid, VA_A + k * SPACING, la[k], EV_LEN) == SIM_OK);
        CHECK_RC(nic_reg(c.dev, VA_A + k * SPACING, EV_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr[k]),
                 NIC_OK);
    }
    for (unsigned n = 0; n < 24; n++) {
        unsigned ka = n % EV_N, kb = (n * 5 + 1) % EV_N;
        uint32_t off = (n * 389) % 4096, len = EV_LEN - off - (n * 97) % 2048, b = 0;
        int write = n % 3 != 2;
        if (write) {
            CHECK_RC(xfer(&c, 1, VA_A + ka * SPACING + off, len, &r->pub[kb], off, n, &b), NIC_WC_SUCCESS);
            memcpy(sb[kb] + off, la[ka] + off, len);
        } else {
            CHECK_RC(xfer(&c, 0, VA_A + ka * SPACING + off, len, &r->pub[kb], off, n, &b), NIC_WC_SUCCESS);
            memcpy(la[ka] + off, sb[kb] + off, len);
        }
        CHECK(b == len);
        CHECK(os_read(osb, r->pub[kb].pid, VA_B + kb * SPACING, got, EV_LEN) == SIM_OK);
        CHECK(!memcmp(got, sb[kb], EV_LEN));
        CHECK(os_read(c.os, c.pid, VA_A + ka * SPACING, got, EV_LEN) == SIM_OK);
        CHECK(!memcmp(got, la[ka], EV_LEN));
        if (os_pinned_pages_total(c.os) > maxa)
            maxa = os_pinned_pages_total(c.os);
        if (os_pinned_pages_total(osb) > maxb)
            maxb = os_pinned_pages_total(osb);
    }
    nicdrv_stats(c.drv, &da);
    nicdrv_stats(hostsw_driver(r->hs[1]), &db);
    printf("systest_e2e: evict: mark %u pages, working set %u pages per side; A: pinned max %" PRIu64 " peak %" PRIu64
           " evictions %" PRIu64 " misses %" PRIu64 " fills rejected %" PRIu64 "; B: pinned max %" PRIu64
           " peak %" PRIu64 " evictions %" PRIu64 " misses %" PRIu64 " fills rejected %" PRIu64 "\n",
           HWM, EV_N * EV_LEN / 4096, maxa, da.pinned_peak, da.evictions, da.misses, da.fills_rejected, maxb,
           db.pinned_peak, db.evictions, db.misses, db.fills_rejected);
    CHECK(da.pinned_peak <= HWM && db.pinned_peak <= HWM && maxa <= HWM && maxb <= HWM);
    CHECK(da.evictions > 0 && db.evictions > 0);
    CHECK(hostmem_counters(node_hostmem(cluster_node(r->cl, 0)))->violations == 0);
    CHECK(hostmem_counters(node_hostmem(cluster_node(r->cl, 1)))->violations == 0);
    for (unsigned k = 0; k < EV_N; k++)
        CHECK_RC(nic_dereg(c.dev, mr[k].handle), NIC_OK);
    nicdrv_stats(c.drv, &da);
    CHECK(os_pinned_pages(c.os, c.pid) == 1 && da.pinned_pages == 1); /* the completion queue */
out:
    teardown_a(p, &c);
}

/* ---- endpoint close with outstanding work ---- */
#define CL_N 8
#define CL_LEN 65536u
static void a_close(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    static uint8_t buf[CL_LEN], got[CL_LEN];
    struct nic_wc wc[32];
    struct nic_mr mr;
    struct nicdrv_stats ds;
    nic_ep_t old;
    int n, flushed = 0;

    CHECK(setup_a(p, &c) == 0);
    for (unsigned i = 0; i < CL_LEN; i++)
        buf[i] = (uint8_t)(i * 5 + 1);
    CHECK(os_write(c.os, c.pid, VA_A, buf, CL_LEN) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A, CL_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    for (int phase = r->variant ? 0 : 1; phase < 2; phase++) { /* 0: link to B dead, all outstanding */
        struct nic_wr wr = { .local_va = VA_A, .len = CL_LEN, .signaled = 1 };
        wr.remote = (struct nic_remote){ r->pub[0].node, r->pub[0].pid, r->pub[0].handle, r->pub[0].rkey };
        if (phase == 0)
            set_link(r, 1.0);
        for (unsigned i = 0; i < CL_N; i++) {
            wr.wr_id = 100 * (phase + 1) + i;
            CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_OK);
        }
        if (phase == 0)
            coro_sleep(20000); /* let the NCP start and retransmit */
        CHECK(nic_outstanding(c.dev, c.ep) > 0);
        old = c.ep;
        n = nic_ep_close(c.dev, c.ep, wc, 32);
        c.ep = 0;
        flushed = 0;
        if (n != CL_N)
            for (int i = 0; i < n; i++)
                fprintf(stderr, "systest_e2e: close: completion %d: wr_id %" PRIu64 " %s\n", i, wc[i].wr_id,
                        nic_wc_status_str(wc[i].status));
        CHECK(n == CL_N);
        for (int i = 0; i < n; i++) {
            CHECK(wc[i].wr_id == 100u * (phase + 1) + (unsigned)i); /* in request order, each once */
            CHECK(wc[i].status == NIC_WC_FLUSHED || (phase == 1 && wc[i].status == NIC_WC_SUCCESS));
            flushed += wc[i].status == NIC_WC_FLUSHED;
        }
        printf("systest_e2e: close (%s link): %d completions, %d flushed\n", phase ? "live" : "dead", n, flushed);
        CHECK(flushed > 0);
        CHECK_RC(nic_post_write(c.dev, old, &wr), NIC_EBADEP);
        CHECK_RC(nic_poll(c.dev, old, wc, 1), NIC_EBADEP);
        CHECK_RC(nic_outstanding(c.dev, old), NIC_EBADEP);
        CHECK_RC(nic_ep_close(c.dev, old, wc, 1), NIC_EBADEP);
        nicdrv_stats(c.drv, &ds);
        CHECK(ds.eps == 0);
        if (phase == 0)
            set_link(r, 0.0);
        CHECK_RC(nic_ep_open(c.dev, &c.ep), NIC_OK);
        CHECK(c.ep != old);
        /* the transport still delivers: a fresh pattern lands at B */
        for (unsigned i = 0; i < 4096; i++)
            buf[i] = (uint8_t)(i * 3 + phase + 7);
        CHECK(os_write(c.os, c.pid, VA_A, buf, 4096) == SIM_OK);
        CHECK_RC(xfer(&c, 1, VA_A, 4096, &r->pub[0], 8192, 999, NULL), NIC_WC_SUCCESS);
        CHECK(os_read(os_of(r, 1), r->pub[0].pid, VA_B + 8192, got, 4096) == SIM_OK);
        CHECK(!memcmp(got, buf, 4096));
    }
    /* endpoints are returned to the NIC: more open/close cycles than it has endpoints */
    for (unsigned i = 0; i < 20; i++) {
        CHECK_RC(nic_ep_close(c.dev, c.ep, wc, 32), 0);
        CHECK_RC(nic_ep_open(c.dev, &c.ep), NIC_OK);
    }
    CHECK_RC(xfer(&c, 0, VA_A, 4096, &r->pub[0], 8192, 1000, NULL), NIC_WC_SUCCESS);
    CHECK_RC(nic_ep_close(c.dev, c.ep, wc, 32), 0);
    CHECK_RC(nic_dereg(c.dev, mr.handle), NIC_OK);
    CHECK(os_pinned_pages(c.os, c.pid) == 0);
    CHECK_RC(nic_dev_close(c.dev), NIC_OK);
    c.dev = NULL;
    nicdrv_stats(c.drv, &ds);
    printf("systest_e2e: close: after cleanup pinned %" PRIu64 " procs %u bufs %u eps %u\n", ds.pinned_pages, ds.procs,
           ds.bufs, ds.eps);
    CHECK(ds.pinned_pages == 0 && ds.procs == 0 && ds.bufs == 0 && ds.eps == 0);
out:
    teardown_a(p, &c);
}

/* ---- every API error path ---- */
static void a_errors(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    static uint8_t buf[8192], before[8192], got[8192];
    struct nic_mr mr, ro, wo;
    struct nic_stats b0, b1, a0, a1;
    struct nic_wc wc;
    struct nic_wr wr = { .local_va = VA_A, .len = 100, .wr_id = 1, .signaled = 1 };
    nic_ep_t ep2;
    os_t *osb = os_of(r, 1);
    uint32_t sq;
    int posted = 0, rc;
    uint64_t t0;

    CHECK(setup_a(p, &c) == 0);
    sq = nicdrv_fw_info(c.drv)->sq_entries;
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 11 + 5);
    CHECK(os_write(c.os, c.pid, VA_A, buf, sizeof buf) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A, 4096, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    CHECK_RC(nic_reg(c.dev, VA_A + 4096, 2048, NIC_ACCESS_LOCAL_READ, &ro), NIC_OK);  /* write source only */
    CHECK_RC(nic_reg(c.dev, VA_A + 6144, 2048, NIC_ACCESS_LOCAL_WRITE, &wo), NIC_OK); /* read target only */
    wr.remote = (struct nic_remote){ r->pub[0].node, r->pub[0].pid, r->pub[0].handle, r->pub[0].rkey };

    /* at the call */
    CHECK_RC(nic_ep_open(c.dev, &ep2), NIC_OK); /* several endpoints per process (ABI 2.1 library) */
    CHECK(ep2 != c.ep);
    CHECK_RC(nic_ep_close(c.dev, ep2, NULL, 0), 0);
    CHECK_RC(nic_post_write(c.dev, ep2, &wr), NIC_EBADEP); /* closed */
    CHECK_RC(nic_post_write(c.dev, 0, &wr), NIC_EBADEP);
    CHECK_RC(nic_post_write(c.dev, c.ep + 1, &wr), NIC_EBADEP);
    CHECK_RC(nic_post_write(c.dev, c.ep ^ 0x10000u, &wr), NIC_EBADEP); /* another generation */
    CHECK_RC(nic_post_write(c.dev, c.ep, NULL), NIC_EINVAL);
    wr.len = 0;
    CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_EINVAL);
    wr.len = NIC_MAX_XFER + 1;
    CHECK_RC(nic_post_read(c.dev, c.ep, &wr), NIC_EINVAL);
    wr.len = 4097;
    CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_EBOUNDS); /* one past the buffer */
    wr.len = 100;
    wr.local_va = VA_A + 4096 - 50; /* straddles two buffers: not inside one */
    CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_EBOUNDS);
    wr.local_va = VA_A + 0x100000; /* never registered */
    CHECK_RC(nic_post_read(c.dev, c.ep, &wr), NIC_EBOUNDS);
    wr.local_va = VA_A + 6144; /* LOCAL_WRITE only: not a write source */
    CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_ERIGHTS);
    wr.local_va = VA_A + 4096; /* LOCAL_READ only: not a read target */
    CHECK_RC(nic_post_read(c.dev, c.ep, &wr), NIC_ERIGHTS);
    wr.local_va = VA_A;
    wr.remote.node = 2;
    CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_EPEER);
    wr.remote.node = r->pub[0].node;
    CHECK_RC(nic_dereg(c.dev, 200), NIC_EBADHANDLE);
    CHECK_RC(nic_dereg(c.dev, 100000), NIC_EBADHANDLE);
    CHECK_RC(nic_reg(c.dev, VA_A, 0, NIC_ACCESS_LOCAL_READ, &mr), NIC_EINVAL);
    CHECK_RC(nic_reg(c.dev, VA_A, 4096, 0x80000000u, &mr), NIC_EINVAL);
    CHECK(nic_outstanding(c.dev, c.ep) == 0);
    printf("systest_e2e: errors at the call: ok\n");

    if (r->variant) { /* RDMA read protection errors: key, REMOTE_WRITE-only buffer, bounds, handle */
        struct nic_mr bad = r->pub[0];
        CHECK(os_read(c.os, c.pid, VA_A + 6144, before, 2048) == SIM_OK);
        CHECK_RC(b_stats(r, &b0), NICDRV_OK);
        bad.rkey ^= 1;
        CHECK_RC(xfer(&c, 0, VA_A + 6144, 100, &bad, 0, 17, NULL), NIC_WC_KEY);
        CHECK_RC(xfer(&c, 0, VA_A + 6144, 100, &r->pub[2], 0, 18, NULL), NIC_WC_RIGHTS); /* REMOTE_WRITE only */
        CHECK_RC(xfer(&c, 0, VA_A + 6144, 100, &r->pub[0], r->pub[0].len - 50, 19, NULL), NIC_WC_BOUNDS);
        bad = r->pub[0];
        bad.handle = 77;
        CHECK_RC(xfer(&c, 0, VA_A + 6144, 100, &bad, 0, 20, NULL), NIC_WC_BAD_HANDLE);
        CHECK(os_read(c.os, c.pid, VA_A + 6144, got, 2048) == SIM_OK);
        CHECK(!memcmp(got, before, 2048));
        CHECK_RC(b_stats(r, &b1), NICDRV_OK);
        CHECK(b1.protection_errors - b0.protection_errors >= 4);
        CHECK_RC(xfer(&c, 0, VA_A + 6144, 100, &r->pub[0], 0, 21, NULL), NIC_WC_SUCCESS);
        goto out;
    }
    /* remote protection errors: error completions, nothing written at the target */
    CHECK_RC(b_stats(r, &b0), NICDRV_OK);
    CHECK(os_read(osb, r->pub[0].pid, VA_B, before, sizeof before) == SIM_OK);
    struct nic_mr bad = r->pub[0];
    bad.rkey ^= 0x5a5a;
    CHECK_RC(xfer(&c, 1, VA_A, 100, &bad, 0, 11, NULL), NIC_WC_KEY);
    bad = r->pub[0];
    bad.handle = 77;
    CHECK_RC(xfer(&c, 1, VA_A, 100, &bad, 0, 12, NULL), NIC_WC_BAD_HANDLE);
    CHECK_RC(xfer(&c, 1, VA_A, 100, &r->pub[0], r->pub[0].len - 50, 13, NULL), NIC_WC_BOUNDS);
    CHECK_RC(xfer(&c, 1, VA_A, 100, &r->pub[0], 1ull << 40, 14, NULL), NIC_WC_BOUNDS);
    CHECK_RC(xfer(&c, 1, VA_A, 100, &r->pub[1], 0, 15, NULL), NIC_WC_RIGHTS); /* B buffer 1: REMOTE_READ only */
    bad = r->pub[0];
    bad.pid = (uint16_t)(bad.pid + 5);
    rc = xfer(&c, 1, VA_A, 100, &bad, 0, 16, NULL);
    CHECK(rc == NIC_WC_BAD_HANDLE || rc == NIC_WC_RIGHTS || rc == NIC_WC_KEY); /* another process's buffer */
    CHECK(os_read(osb, r->pub[0].pid, VA_B, got, sizeof got) == SIM_OK);
    CHECK(!memcmp(got, before, sizeof got));
    CHECK(os_read(osb, r->pub[1].pid, VA_B + SPACING, got, 4096) == SIM_OK);
    for (unsigned i = 0; i < 4096; i++)
        CHECK(got[i] == 0xB1);
    CHECK_RC(b_stats(r, &b1), NICDRV_OK);
    printf("systest_e2e: remote protection errors: B counted %u\n", b1.protection_errors - b0.protection_errors);
    CHECK(b1.protection_errors - b0.protection_errors >= 6);
    /* and the connection is fine afterwards */
    CHECK_RC(xfer(&c, 1, VA_A, 100, &r->pub[0], 0, 19, NULL), NIC_WC_SUCCESS);
    CHECK(os_read(osb, r->pub[0].pid, VA_B, got, 100) == SIM_OK);
    CHECK(!memcmp(got, buf, 100));

    /* peer unreachable after the retry limit, then queue full while the link is dead */
    CHECK_RC(nicdrv_nic_stats(c.drv, &a0), NICDRV_OK);
    set_link(r, 1.0);
    t0 = coro_now();
    CHECK_RC(xfer(&c, 1, VA_A, 100, &r->pub[0], 200, 20, NULL), NIC_WC_UNREACHABLE);
    CHECK_RC(nicdrv_nic_stats(c.drv, &a1), NICDRV_OK);
    printf("systest_e2e: unreachable after %" PRIu64 " cycles, %u retransmits, %u timeouts\n", coro_now() - t0,
           a1.retransmits - a0.retransmits, a1.timeouts - a0.timeouts);
    CHECK(a1.timeouts > a0.timeouts);
    wr.len = 1;
    wr.signaled = 0;
    for (posted = 0; posted <= (int)sq; posted++) {
        wr.wr_id = 1000 + posted;
        rc = nic_post_write(c.dev, c.ep, &wr);
        if (rc == NIC_EQFULL)
            break;
        CHECK_RC(rc, NIC_OK);
    }
    printf("systest_e2e: queue full after %d posts (send queue %u)\n", posted, sq);
    CHECK(rc == NIC_EQFULL && posted == (int)sq && nic_outstanding(c.dev, c.ep) == (int)sq);
    for (int i = 0; i < posted; i++) { /* failures always complete, even unsignalled ones */
        CHECK_RC(nic_wait(c.dev, c.ep, &wc, WAITC), NIC_OK);
        if (wc.status != NIC_WC_UNREACHABLE || wc.wr_id != 1000u + (unsigned)i)
            fprintf(stderr, "systest_e2e: completion %d: wr_id %" PRIu64 " %s\n", i, wc.wr_id,
                    nic_wc_status_str(wc.status));
        CHECK(wc.status == NIC_WC_UNREACHABLE && wc.wr_id == 1000u + (unsigned)i);
    }
    CHECK(nic_outstanding(c.dev, c.ep) == 0);
    CHECK_RC(nic_poll(c.dev, c.ep, &wc, 1), 0);
    /* the link comes back: the peer is reachable again */
    set_link(r, 0.0);
    for (unsigned i = 0; i < 100; i++)
        buf[i] = (uint8_t)(0x40 + i);
    CHECK(os_write(c.os, c.pid, VA_A, buf, 100) == SIM_OK);
    CHECK_RC(xfer(&c, 1, VA_A, 100, &r->pub[0], 300, 21, NULL), NIC_WC_SUCCESS);
    CHECK(os_read(osb, r->pub[0].pid, VA_B + 300, got, 100) == SIM_OK);
    CHECK(!memcmp(got, buf, 100));
    printf("systest_e2e: link restored: write delivered\n");
    /* device gone: EDEV at the call, close still clean */
    CHECK_RC(nicdrv_remove(c.drv), NICDRV_OK);
    wr.len = 100;
    CHECK_RC(nic_post_write(c.dev, c.ep, &wr), NIC_EDEV);
out:
    teardown_a(p, &c);
}

/* ---- NACK vs timeout ---- */
static void a_nack(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    uint8_t buf[4096], got[4096];
    struct nic_mr mr;
    uint64_t cold = 0, warm = 0;

    CHECK(setup_a(p, &c) == 0);
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i ^ 0x5c);
    CHECK(os_write(c.os, c.pid, VA_A, buf, sizeof buf) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A, sizeof buf, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    CHECK_RC(xfer(&c, 1, VA_A, sizeof buf, &r->pub[0], 0, 0, NULL), NIC_WC_SUCCESS); /* warms A, B's CBH */
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned k = 1; k < r->nb; k++) {
            uint64_t t = coro_now();
            CHECK_RC(xfer(&c, 1, VA_A, sizeof buf, &r->pub[k], 0, 10 * pass + k, NULL), NIC_WC_SUCCESS);
            *(pass ? &warm : &cold) += coro_now() - t;
            CHECK(os_read(os_of(r, 1), r->pub[k].pid, VA_B + k * SPACING, got, sizeof got) == SIM_OK);
            CHECK(!memcmp(got, buf, sizeof buf));
        }
    }
    r->cold_avg = (double)cold / (r->nb - 1);
    r->warm_avg = (double)warm / (r->nb - 1);
    CHECK_RC(nicdrv_nic_stats(c.drv, &r->astats_end), NICDRV_OK);
    CHECK_RC(b_stats(r, &r->bstats_end), NICDRV_OK);
out:
    teardown_a(p, &c);
}

/* ---- a read whose responder goes silent ---- */
#define RD_LEN (1u << 20)
#define RD_TIMEOUT UINT64_C(15680000) /* the NCP's read timeout, ncp_read_timeout(): 78.4 ms */
static void a_read_dead(struct prog *p)
{
    struct run *r = p->r;
    struct ctx c;
    uint8_t *snap = malloc(RD_LEN), *got = malloc(RD_LEN);
    struct nic_mr mr;
    struct nic_wc wc;
    struct nic_stats a0, a1;
    switch_t *sw = cluster_switch(r->cl);
    struct switch_faults cut = { .drop = 1.0, .delay_max = 2000 }, ok = { .delay_max = 2000 };
    uint64_t f0, t0, waited;
    uint32_t b = 0;

    CHECK(snap && got);
    CHECK(setup_a(p, &c) == 0);
    memset(got, 0x11, RD_LEN);
    CHECK(os_write(c.os, c.pid, VA_A, got, RD_LEN) == SIM_OK);
    CHECK(os_write(c.os, c.pid, VA_A + RD_LEN, got, 65536) == SIM_OK);
    CHECK_RC(nic_reg(c.dev, VA_A, RD_LEN + 65536, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    /* translations warm on both sides: the timed read's responses are accepted as they come */
    CHECK_RC(xfer(&c, 0, VA_A, RD_LEN, &r->pub[0], 0, 0, NULL), NIC_WC_SUCCESS);
    CHECK_RC(xfer(&c, 0, VA_A + RD_LEN, 65536, &r->pub[0], 0, 1, NULL), NIC_WC_SUCCESS);
    CHECK_RC(nicdrv_nic_stats(c.drv, &a0), NICDRV_OK);
    /* the read; once responses flow (16 frames delivered to A), every frame to A is dropped */
    struct nic_wr wr = { .local_va = VA_A, .len = RD_LEN, .wr_id = 2, .signaled = 1,
                         .remote = { r->pub[0].node, r->pub[0].pid, r->pub[0].handle, r->pub[0].rkey } };
    f0 = switch_port_counters(sw, 0)->tx_frames;
    t0 = coro_now();
    CHECK_RC(nic_post_read(c.dev, c.ep, &wr), NIC_OK);
    while (switch_port_counters(sw, 0)->tx_frames < f0 + 16) {
        CHECK(coro_now() - t0 < WAITC);
        coro_sleep(100);
    }
    CHECK(switch_set_link_faults(sw, 0, &cut) == SIM_OK);
    t0 = coro_now();
    CHECK_RC(nic_wait(c.dev, c.ep, &wc, WAITC), NIC_OK);
    waited = coro_now() - t0;
    printf("systest_e2e: read_dead: the read completed %s after %" PRIu64 " cycles of silence (read timeout %" PRIu64
           ")\n", nic_wc_status_str(wc.status), waited, RD_TIMEOUT);
    CHECK(wc.wr_id == 2 && wc.status == NIC_WC_UNREACHABLE);
    CHECK(waited + 200000 >= RD_TIMEOUT && waited <= RD_TIMEOUT + RD_TIMEOUT / 4 + 200000);
    CHECK(os_read(c.os, c.pid, VA_A, snap, RD_LEN) == SIM_OK);
    /* B is heard again: what it still sends for the failed read is discarded; reads work */
    CHECK(switch_set_link_faults(sw, 0, &ok) == SIM_OK);
    CHECK_RC(xfer(&c, 0, VA_A + RD_LEN, 65536, &r->pub[0], 65536, 3, &b), NIC_WC_SUCCESS);
    CHECK(b == 65536);
    CHECK(os_read(c.os, c.pid, VA_A + RD_LEN, got, 65536) == SIM_OK);
    for (unsigned i = 0; i < 65536; i++)
        CHECK(got[i] == 0xB0);
    CHECK(os_read(c.os, c.pid, VA_A, got, RD_LEN) == SIM_OK);
    CHECK(!memcmp(got, snap, RD_LEN)); /* nothing written into the failed read's buffer afterwards */
    CHECK_RC(nicdrv_nic_stats(c.drv, &a1), NICDRV_OK);
    printf("systest_e2e: read_dead: %u late responses discarded, %u timeouts; the next read verified\n",
           a1.stale_resps - a0.stale_resps, a1.timeouts - a0.timeouts);
    CHECK(a1.stale_resps > a0.stale_resps);
out:
    free(snap);
    free(got);
    teardown_a(p, &c);
}

static void prog_init(void *arg)
{
    struct prog *p = arg;
    switch (p->r->mode) {
    case M_SIZES: a_sizes(p); break;
    case M_MISSES: a_misses(p); break;
    case M_EVICT: a_evict(p); break;
    case M_CLOSE: a_close(p); break;
    case M_ERRORS: a_errors(p); break;
    case M_NACK: a_nack(p); break;
    case M_READDEAD: a_read_dead(p); break;
    case M__N: break;
    }
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
        fprintf(stderr, "systest_e2e: cannot read %s\n", img);
        return 1;
    }
    r->nb = 1;
    r->bs[0] = (struct bufspec){ SZ_BUF, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ };
    if (r->mode == M_MISSES || r->mode == M_NACK || r->mode == M_EVICT) {
        r->nb = r->mode == M_EVICT ? EV_N : 4;
        for (unsigned k = 0; k < r->nb; k++)
            r->bs[k] = (struct bufspec){ r->mode == M_EVICT ? EV_LEN : 8192,
                                         NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ };
    } else if (r->mode == M_READDEAD) {
        r->bs[0] = (struct bufspec){ RD_LEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ };
    } else if (r->mode == M_ERRORS) {
        r->nb = 3;
        r->bs[0] = (struct bufspec){ 8192, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ };
        r->bs[1] = (struct bufspec){ 4096, NIC_ACCESS_REMOTE_READ };
        r->bs[2] = (struct bufspec){ 4096, NIC_ACCESS_REMOTE_WRITE };
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
        if (r->mode == M_EVICT)
            dc.pin_hwm_pages = HWM;
        if (r->mode == M_MISSES)
            dc.prefill = false; /* every line on demand (the seed): the CBH misses on the receive path too */
        r->hs[i] = hostsw_create(r->cl, i, r->costs, &dc);
        pr[i] = (struct prog){ r, i };
        node_set_reset(cluster_node(r->cl, i), false);
        if (!r->hs[i] || coro_spawn(cluster_sched(r->cl), "prog", i ? prog_target : prog_init, &pr[i], NULL))
            return 1;
    }
    if (cluster_run(r->cl, 400000000, all_done, r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest_e2e: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r->cl));
        r->failed++;
    }
    for (unsigned i = 0; i < 2; i++)
        if (hostmem_counters(node_hostmem(cluster_node(r->cl, i)))->violations) {
            fprintf(stderr, "systest_e2e: node %u: oracle violations\n", i);
            r->failed++;
        }
    printf("systest_e2e: %s: %" PRIu64 " simulated cycles\n", img, (uint64_t)cluster_now(r->cl));
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(r->hs[i]);
    cluster_destroy(r->cl);
    costs_destroy(r->costs);
    free(r->img);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const names[M__N] = { "sizes", "misses", "evict", "close", "errors", "nackcmp", "read_dead" };
    struct run r;
    unsigned m;
    int variant = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && (!strcmp(argv[1], "close_dead") || !strcmp(argv[1], "errors_read"))) {
        variant = 1;
        argv[1] = argv[1][0] == 'c' ? "close" : "errors";
    }
    for (m = 0; argc >= 3 && m < M__N && strcmp(argv[1], names[m]); m++)
        ;
    if (argc < 3 || m == M__N || (m == M_NACK) != (argc == 4) || argc > 4) {
        fprintf(stderr, "usage: systest_e2e sizes|misses|evict|close|errors|read_dead IMAGE | nackcmp NACK.img NONACK.img\n");
        return 1;
    }
    memset(&r, 0, sizeof r);
    r.mode = (enum mode)m;
    r.variant = variant;
    if (run_once(&r, argv[2]))
        return 1;
    if (m == M_NACK && !r.failed) {
        struct run t;
        memset(&t, 0, sizeof t);
        t.mode = M_NACK;
        if (run_once(&t, argv[3]))
            return 1;
        r.failed += t.failed;
        double pn = r.cold_avg - r.warm_avg, pt = t.cold_avg - t.warm_avg;
        printf("systest_e2e: receive-path miss, NACK mode: write %.0f cycles cold, %.0f warm: %.0f per miss "
               "(nacks sent %u received %u, retransmits %u)\n",
               r.cold_avg, r.warm_avg, pn, r.bstats_end.nacks_sent, r.astats_end.nacks_received, r.astats_end.retransmits);
        printf("systest_e2e: receive-path miss, timeout mode: write %.0f cycles cold, %.0f warm: %.0f per miss "
               "(nacks sent %u received %u, retransmits %u); timeout/NACK %.2fx\n",
               t.cold_avg, t.warm_avg, pt, t.bstats_end.nacks_sent, t.astats_end.nacks_received, t.astats_end.retransmits,
               pn > 0 ? pt / pn : 0.0);
        if (!t.failed && !(r.bstats_end.nacks_sent > 0 && r.astats_end.nacks_received > 0 &&
                           t.bstats_end.nacks_sent == 0 && t.astats_end.nacks_received == 0 &&
                           pt > pn + 10000.0)) {
            fprintf(stderr, "systest_e2e: NACK/timeout comparison failed\n");
            r.failed++;
        }
    }
    printf("systest_e2e: %s\n", r.failed ? "FAIL" : "PASS");
    return r.failed ? 1 : 0;
}
