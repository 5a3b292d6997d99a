/*
 * systest_mal - a malicious node on the switch (issue 18 item 10; docs/wire-protocol.md "Threat
 * model"). Nodes 0 (A) and 1 (B) run the driver, library and NCP and do verified RDMA: A writes
 * random, misaligned pieces into B's buffer and reads them back, every byte checked against a
 * shadow of B's buffer, every completion SUCCESS and prompt. Node 2's port is the attacker: a
 * harness coroutine hands frames in at that port (switch_ingress), which is exactly what a node
 * whose NIC sends raw frames can do. The attacker cannot read A's and B's traffic, but the test
 * makes it stronger than that: a switch tap shows it every genuine frame, so its forgeries carry
 * the real sequence numbers, acknowledgements, operation ids and even B's remote key; only the
 * connection token is not known to it (the fabric secret is not given to node 2). Per burst:
 *   forged    with A's or B's id as source, a random token: ACKs (acknowledging what is in
 *             flight), NACKs of every reason (GAP, MISS, PROTECTION, MALFORMED, BUSY, RESUME) for
 *             the packets in flight, RESYNC writes far ahead into B's buffer with B's real key,
 *             READ_REQs, READ_RESPs for A's live reads
 *   malformed short frames, unknown types, lengths that disagree with the frame
 *   replayed  genuine frames seen earlier (valid tokens, old sequence numbers)
 *   own id    frames with the attacker's own id (not a member of the cluster)
 *
 *   open IMAGE     the switch does not check sources: the NCP alone must drop every forgery
 *                  (auth_drops counts exactly the well-formed forged frames that reached a node),
 *                  replays are duplicates (dup_packets), nothing is refused, failed or late
 *   stamped IMAGE  the switch checks the source against the ingress port: every frame in A's or
 *                  B's name from port 2 is dropped there (src_spoofed), none reaches an NCP
 *   open-sr IMAGE  as open, both NCPs running selective repeat (INIT NIC_XOPT_SR): replayed ACKs
 *                  carry genuine SACKs, forged ones random ones
 *
 * Exit: 0 pass, 1 fail.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "coro.h"
#include "hostbus.h"
#include "hostsw.h"
#include "nic.h"
#include "nic_crc32.h"
#include "nic_regs.h"
#include "pkt.h"
#include "switch.h"
#include "systest_util.h"

#define VA_A 0x20000000ull
#define VA_B 0x30000000ull
#define BUF 65536u
#define ROUNDS 40u
#define ATTACKER 2u
#define OP_LIMIT 2000000ull /* cycles (10 ms): an op slower than this was stalled */
#define RING 64u

struct run {
    int stamped;
    cluster_t *cl;
    costs_t *costs;
    hostsw_t *hs[2];
    uint8_t *img;
    size_t img_len;
    unsigned done, failed, stop;
    struct nic_mr pub;
    int published, b_may_close;
    /* the tap: genuine frames between A and B */
    struct {
        uint8_t f[PKT_HDR_BYTES + 4096 + 4];
        size_t len;
    } ring[RING];
    unsigned nring;
    struct pkt_hdr last[2]; /* the latest genuine sequenced header and ACK-carrying header from each of A, B */
    int have_last[2];
    /* what the attacker sent, per destination node */
    uint64_t forged[2], malformed[2], replayed[2], own;
    uint64_t rng, arng; /* the honest traffic's generator, the attacker's (and the tap's) */
    struct nic_stats sa, sb;
    uint32_t mac_drops[2]; /* frames the node's MAC dropped (ring full, FIFO overflow) */
    sim_cycle_t worst_op;
};

struct prog {
    struct run *r;
    unsigned node;
};

#define CHECK(cond) SYSTEST_CHECK("systest_mal", cond)

static uint32_t rnd(struct run *r)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return (uint32_t)(r->rng >> 11);
}

static uint32_t ardn(struct run *r)
{
    r->arng ^= r->arng << 13;
    r->arng ^= r->arng >> 7;
    r->arng ^= r->arng << 17;
    return (uint32_t)(r->arng >> 11);
}

/* Frames node n's MAC dropped before the NCP saw them (read over the host bus, as the driver does). */
static uint32_t mac_drops(struct run *r, unsigned n)
{
    struct nicdrv_bus bus;
    uint32_t a = 0, b = 0;
    hostbus_init(&bus, cluster_node(r->cl, n));
    bus.rd32(bus.ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_RX_NOBUF, &a);
    bus.rd32(bus.ctx, NICDRV_BAR_REGS, NIC_MAC_OFFSET + NIC_MAC_RX_OVERFLOW, &b);
    return a + b;
}

static void tap(void *ctx, sim_cycle_t now, uint32_t port, const uint8_t *f, size_t len)
{
    struct run *r = ctx;
    struct pkt_hdr h;
    (void)now;
    if (port >= 2 || len < PKT_HDR_BYTES + 4 || len > sizeof r->ring[0].f)
        return;
    pkt_decode(f, &h);
    if (h.src != port)
        return;
    r->last[port] = h;
    r->have_last[port] = 1;
    if ((ardn(r) & 3u) == 0) { /* keep a sample of genuine frames to replay */
        unsigned i = r->nring < RING ? r->nring++ : ardn(r) % RING;
        memcpy(r->ring[i].f, f, len);
        r->ring[i].len = len;
    }
}

/* Hands in a frame at the attacker's port: header (+ payload of `plen` bytes 0xEE), FCS appended. */
static void inject(struct run *r, const struct pkt_hdr *h, uint32_t plen, uint32_t frame_len_override)
{
    static uint8_t f[PKT_HDR_BYTES + 4096 + 4] __attribute__((aligned(16)));
    uint32_t len = frame_len_override ? frame_len_override : PKT_HDR_BYTES + plen;
    pkt_encode(f, h);
    memset(f + PKT_HDR_BYTES, 0xEE, plen);
    uint32_t crc = nic_crc32(f, len);
    for (int i = 0; i < 4; i++)
        f[len + (uint32_t)i] = (uint8_t)(crc >> (8 * i));
    switch_ingress(cluster_switch(r->cl), cluster_now(r->cl), ATTACKER, f, len + 4u);
}

static void burst(struct run *r)
{
    for (unsigned from = 0; from < 2; from++) {
        unsigned to = 1u - from;
        struct pkt_hdr g = r->last[from], t = r->last[to]; /* the victims' latest genuine headers */
        if (!r->have_last[from] || !r->have_last[to])
            continue;
        /* the sender `to` has packets [t.seq - k, t.seq] in flight: forge answers from `from` */
        struct pkt_hdr base = {.dst = (uint16_t)to, .src = (uint16_t)from, .token = ardn(r), .ack = g.ack};
        struct pkt_hdr h = base;
        /* ACKs acknowledging everything in flight and more */
        for (uint32_t k = 1; k <= 4; k++) {
            h = base;
            h.type = PKT_ACK;
            h.ack = t.seq + k * 8u;
            h.token = ardn(r);
            inject(r, &h, 0, 0);
            r->forged[to]++;
        }
        /* NACKs of every reason for the packets in flight, naming their op */
        for (uint16_t reason = 1; reason < PKT__NACK_REASONS; reason++) {
            h = base;
            h.type = PKT_NACK;
            h.reason = reason;
            h.seq = t.seq - (ardn(r) & 3u);
            h.ack = reason == PKT_NACK_GAP ? t.seq - 20u : t.ack;
            h.op = t.op;
            h.status = -5; /* NIC_ST_KEY */
            h.token = ardn(r);
            inject(r, &h, 0, 0);
            r->forged[to]++;
        }
        if (to == 1) {
            /* a RESYNC write far ahead into B's buffer, with B's real key */
            h = base;
            h.type = PKT_WRITE;
            h.flags = PKT_F_RESYNC | PKT_F_LAST;
            h.seq = g.seq + 1000u;
            h.pid = (uint16_t)r->pub.pid;
            h.buf = r->pub.handle;
            h.key = r->pub.rkey;
            h.off = ardn(r) % (BUF - 64u);
            h.len = 64;
            h.token = ardn(r);
            inject(r, &h, 64, 0);
            r->forged[to]++;
            /* the next expected number too (a guess that is right) */
            h.flags = PKT_F_LAST;
            h.seq = g.seq + 1u;
            h.token = ardn(r);
            inject(r, &h, 64, 0);
            r->forged[to]++;
            /* a read request: B would stream its buffer to A */
            h = base;
            h.type = PKT_READ_REQ;
            h.seq = g.seq + 1u;
            h.pid = (uint16_t)r->pub.pid;
            h.buf = r->pub.handle;
            h.key = r->pub.rkey;
            h.xlen = 4096;
            h.token = ardn(r);
            inject(r, &h, 0, 0);
            r->forged[to]++;
        } else {
            /* read responses for A's op ids, at the next expected number */
            h = base;
            h.type = PKT_READ_RESP;
            h.seq = g.seq + 1u;
            h.op = t.op;
            h.off = 0;
            h.len = 64;
            h.flags = PKT_F_RESYNC;
            h.token = ardn(r);
            inject(r, &h, 64, 0);
            r->forged[to]++;
            h.flags = PKT_F_VOID;
            h.len = 0;
            h.status = -6;
            inject(r, &h, 0, 0);
            r->forged[to]++;
        }
        /* malformed: short, unknown type, length disagreeing with the frame */
        h = base;
        h.type = PKT_ACK;
        inject(r, &h, 0, 20);
        h.type = 9;
        inject(r, &h, 0, 0);
        h.type = PKT_WRITE;
        h.len = 100;
        inject(r, &h, 64, 0);
        r->malformed[to] += 3;
        /* the attacker in its own name */
        h = base;
        h.src = ATTACKER;
        h.type = PKT_ACK;
        inject(r, &h, 0, 0);
        r->own++;
    }
    /* replays of genuine frames (valid tokens, old numbers) */
    for (unsigned k = 0; k < 4 && r->nring; k++) {
        unsigned i = ardn(r) % r->nring;
        switch_ingress(cluster_switch(r->cl), cluster_now(r->cl), ATTACKER, r->ring[i].f, r->ring[i].len);
        r->replayed[r->ring[i].f[1] & 1u]++;
    }
}

static void attacker(void *arg)
{
    struct run *r = arg;
    while (!r->stop) {
        coro_sleep(2000u + ardn(r) % 6000u);
        if (!r->stop && !getenv("SYSTEST_MAL_QUIET")) /* quiet: the same run without the attacker */
            burst(r);
    }
}

static void prog_target(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[1]);
    os_t *os = node_os(cluster_node(r->cl, 1));
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    char err[200] = "";
    uint32_t pid;
    uint8_t *fill = calloc(1, BUF);

    CHECK(fill);
    CHECK(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err) == NICDRV_OK);
    CHECK(os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK(nic_dev_open(drv, pid, NULL, &dev) == NIC_OK);
    CHECK(nic_ep_open(dev, &ep) == NIC_OK);
    CHECK(os_write(os, pid, VA_B, fill, BUF) == SIM_OK);
    CHECK(nic_reg(dev, VA_B, BUF, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &r->pub) == NIC_OK);
    r->published = 1;
    while (!r->b_may_close)
        coro_sleep(2000);
    CHECK(nicdrv_nic_stats(drv, &r->sb) == NICDRV_OK);
    r->mac_drops[1] = mac_drops(r, 1);
out:
    free(fill);
    r->published = r->published ? 1 : -1;
    if (dev)
        nic_dev_close(dev);
    nicdrv_remove(drv);
    r->done++;
}

static int xfer(struct run *r, nic_dev_t *dev, nic_ep_t ep, int write, uint64_t lva, uint32_t len, uint64_t roff,
                uint64_t id)
{
    struct nic_wr wr = {.local_va = lva, .len = len, .remote_offset = roff, .wr_id = id, .signaled = 1};
    struct nic_wc wc;
    sim_cycle_t t0 = cluster_now(r->cl);
    int rc;
    wr.remote = (struct nic_remote){r->pub.node, r->pub.pid, r->pub.handle, r->pub.rkey};
    rc = write ? nic_post_write(dev, ep, &wr) : nic_post_read(dev, ep, &wr);
    if (!rc)
        rc = nic_wait(dev, ep, &wc, 100000000ull);
    if (rc)
        return rc;
    if (cluster_now(r->cl) - t0 > r->worst_op)
        r->worst_op = cluster_now(r->cl) - t0;
    if (wc.wr_id != id || wc.bytes != len)
        return -100;
    return wc.status;
}

static void prog_init(void *arg)
{
    struct prog *p = arg;
    struct run *r = p->r;
    nicdrv_t *drv = hostsw_driver(r->hs[0]);
    os_t *os = node_os(cluster_node(r->cl, 0)), *osb = node_os(cluster_node(r->cl, 1));
    nic_dev_t *dev = NULL;
    nic_ep_t ep = 0;
    struct nic_mr mr;
    char err[200] = "";
    uint32_t pid;
    uint8_t *shadow = calloc(1, BUF), *src = malloc(BUF), *got = malloc(BUF);
    uint64_t bytes = 0;

    CHECK(shadow && src && got);
    CHECK(nicdrv_probe(drv, r->img, r->img_len, err, sizeof err) == NICDRV_OK);
    CHECK(os_proc_create(os, 48, &pid) == SIM_OK);
    CHECK(nic_dev_open(drv, pid, NULL, &dev) == NIC_OK);
    CHECK(nic_ep_open(dev, &ep) == NIC_OK);
    CHECK(nic_reg(dev, VA_A, 2u * BUF, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr) == NIC_OK);
    while (!r->published)
        coro_sleep(2000);
    CHECK(r->published > 0);
    for (unsigned i = 0; i < ROUNDS; i++) {
        uint32_t len = 1u + rnd(r) % (i % 4u == 0 ? BUF : 9000u), lo = rnd(r) % (BUF - len + 1u);
        uint32_t ro = rnd(r) % (BUF - len + 1u);
        for (uint32_t j = 0; j < len; j++)
            src[j] = (uint8_t)(rnd(r) | 1u);
        CHECK(os_write(os, pid, VA_A + lo, src, len) == SIM_OK);
        CHECK(xfer(r, dev, ep, 1, VA_A + lo, len, ro, 2u * i) == NIC_WC_SUCCESS);
        memcpy(shadow + ro, src, len);
        /* B's whole buffer is the shadow: nothing forged landed anywhere */
        CHECK(os_read(osb, r->pub.pid, VA_B, got, BUF) == SIM_OK);
        CHECK(!memcmp(got, shadow, BUF));
        /* read back a random piece of B's buffer into A's second half */
        uint32_t rl = 1u + rnd(r) % 20000u, rs = rnd(r) % (BUF - rl + 1u), rd = rnd(r) % (BUF - rl + 1u);
        CHECK(xfer(r, dev, ep, 0, VA_A + BUF + rd, rl, rs, 2u * i + 1u) == NIC_WC_SUCCESS);
        CHECK(os_read(os, pid, VA_A + BUF + rd, got, rl) == SIM_OK);
        CHECK(!memcmp(got, shadow + rs, rl));
        bytes += len + rl;
    }
    r->stop = 1; /* the attacker stops; what it sent has landed before the counters are read */
    coro_sleep(200000);
    CHECK(nicdrv_nic_stats(drv, &r->sa) == NICDRV_OK);
    r->mac_drops[0] = mac_drops(r, 0);
    printf("systest_mal: %u writes and %u reads verified, %" PRIu64 " bytes; slowest op %" PRIu64 " cycles\n", ROUNDS,
           ROUNDS, bytes, (uint64_t)r->worst_op);
    CHECK(r->worst_op < OP_LIMIT);
out:
    r->stop = 1;
    free(shadow);
    free(src);
    free(got);
    if (dev)
        nic_dev_close(dev);
    r->b_may_close = 1;
    nicdrv_remove(drv);
    r->done++;
}

static bool all_done(cluster_t *c, void *ctx)
{
    struct run *r = ctx;
    (void)c;
    return r->done == 2;
}

int main(int argc, char **argv)
{
    struct run *r = calloc(1, sizeof *r);
    struct cluster_config cc;
    struct nicdrv_config dc;
    struct prog pr[2];
    struct prog pp = {r, 9}, *p = &pp;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!r || argc != 3 || (strcmp(argv[1], "open") && strcmp(argv[1], "stamped") && strcmp(argv[1], "open-sr"))) {
        fprintf(stderr, "usage: systest_mal open|stamped|open-sr IMAGE\n");
        return 1;
    }
    r->stamped = !strcmp(argv[1], "stamped");
    int sr = !strcmp(argv[1], "open-sr"); /* as open, both NCPs with selective repeat */
    r->rng = 0x9E3779B97F4A7C15ull;
    r->arng = 0xD1B54A32D192ED03ull;
    r->img = read_file(argv[2], &r->img_len);
    if (!r->img) {
        fprintf(stderr, "systest_mal: cannot read %s\n", argv[2]);
        return 1;
    }
    cluster_config_default(&cc, 3);
    cc.console = stdout;
    cc.seed = 5;
    cc.sw.check_src = r->stamped != 0;
    r->costs = costs_create(0, 1);
    r->cl = cluster_create(&cc, r->costs);
    if (!r->cl)
        return 1;
    switch_set_tap(cluster_switch(r->cl), tap, r);
    for (unsigned i = 0; i < 2; i++) {
        nicdrv_config_default(&dc);
        dc.node_id = (uint16_t)i;
        dc.nodes = 2; /* node 2 is not a member: its id is refused as a source too */
        dc.xport_opts = sr ? NIC_XOPT_SR : 0u;
        r->hs[i] = hostsw_create(r->cl, i, r->costs, &dc);
        pr[i] = (struct prog){r, i};
        node_set_reset(cluster_node(r->cl, i), false);
        if (!r->hs[i] || coro_spawn(cluster_sched(r->cl), "prog", i ? prog_target : prog_init, &pr[i], NULL))
            return 1;
    }
    if (coro_spawn(cluster_sched(r->cl), "attacker", attacker, r, NULL))
        return 1;
    if (cluster_run(r->cl, 2000000000ull, all_done, r, getenv("SYSTEST_PROGRESS") ? stderr : NULL) != 0) {
        fprintf(stderr, "systest_mal: timeout at cycle %" PRIu64 "\n", (uint64_t)cluster_now(r->cl));
        r->failed++;
    }
    r->stop = 1;
    const struct switch_port_counters *c0 = switch_port_counters(cluster_switch(r->cl), 0),
                                      *c1 = switch_port_counters(cluster_switch(r->cl), 1),
                                      *c2 = switch_port_counters(cluster_switch(r->cl), ATTACKER);
    const struct nic_stats *s[2] = {&r->sa, &r->sb};
    const struct switch_port_counters *cp[2] = {c0, c1};
    for (unsigned n = 0; n < 2; n++) {
        uint64_t lost = cp[n]->queue_drops + cp[n]->slot_drops + r->mac_drops[n];
        printf("systest_mal: to node %u: forged %" PRIu64 " malformed %" PRIu64 " replayed %" PRIu64
               "; auth_drops %u drops_bad %u dup %u protection %u refused %u nacks_stale %u nacks_ignored %u "
               "resyncs_bad %u stale_resps %u; switch and MAC drops %" PRIu64 "\n",
               n, r->forged[n], r->malformed[n], r->replayed[n], s[n]->auth_drops, s[n]->drops_bad, s[n]->dup_packets,
               s[n]->protection_errors, s[n]->refused_ops, s[n]->nacks_stale, s[n]->nacks_ignored, s[n]->resyncs_bad,
               s[n]->stale_resps, lost);
        CHECK(r->forged[n] > 100 && r->replayed[n] > 10);
        /* nothing was refused, failed or answered for a forgery */
        CHECK(s[n]->protection_errors == 0 && s[n]->refused_ops == 0);
        if (r->stamped) {
            CHECK(s[n]->auth_drops == 0); /* no forgery reached the NCP */
        } else {
            /* every well-formed forgery that reached the node, and nothing else, was an auth drop */
            CHECK(s[n]->auth_drops <= r->forged[n] && s[n]->auth_drops + lost >= r->forged[n]);
            CHECK(s[n]->drops_bad + lost >= r->malformed[n]); /* and the malformed ones were dropped */
            CHECK(s[n]->dup_packets > 0 || n == 0);           /* replayed writes are duplicates at B */
        }
    }
    printf("systest_mal: switch port %u: src_spoofed %" PRIu64 ", own-id frames %" PRIu64 "\n", ATTACKER, c2->src_spoofed,
           r->own);
    if (r->stamped)
        CHECK(c2->src_spoofed >= r->forged[0] + r->forged[1] + r->malformed[0] + r->malformed[1]);
    else
        CHECK(c2->src_spoofed == 0);
    for (unsigned i = 0; i < 2; i++)
        CHECK(!hostmem_counters(node_hostmem(cluster_node(r->cl, i)))->violations);
out:
    printf("systest_mal: %s\n", r->failed ? "FAIL" : "PASS");
    int failed = r->failed != 0;
    for (unsigned i = 0; i < 2; i++)
        hostsw_destroy(r->hs[i]);
    cluster_destroy(r->cl);
    costs_destroy(r->costs);
    free(r->img);
    free(r);
    return failed;
}
