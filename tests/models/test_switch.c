/* Unit tests of the switch: delivery, latency and bandwidth timing, bounded queues, broadcast,
 * each fault kind at rates 1, 0 and 0.1, CRC detection of corruption, reordering, per-link
 * faults, 64 ports, same seed -> same run, and link pause. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nic_crc32.h"
#include "sim_rng.h"
#include "switch.h"

static uint8_t rxbuf[SWITCH_MAX_FRAME];

/* A frame as the MAC would send it: dst, src, sequence number, payload, CRC-32 FCS (LE). */
static size_t make_frame(uint8_t *f, uint16_t dst, uint16_t src, uint32_t seq, size_t len)
{
    uint32_t crc;

    f[0] = (uint8_t)(dst >> 8);
    f[1] = (uint8_t)dst;
    f[2] = (uint8_t)(src >> 8);
    f[3] = (uint8_t)src;
    memcpy(f + 4, &seq, 4);
    for (size_t i = 8; i < len - 4; i++)
        f[i] = (uint8_t)(i * 31 + seq);
    crc = nic_crc32(f, len - 4);
    for (int i = 0; i < 4; i++)
        f[len - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
    return len;
}

static int crc_ok(const uint8_t *f, size_t len)
{
    uint32_t crc = nic_crc32(f, len - 4), got = 0;

    for (int i = 0; i < 4; i++)
        got |= (uint32_t)f[len - 4 + (size_t)i] << (8 * i);
    return crc == got;
}

static uint32_t seq_of(const uint8_t *f)
{
    uint32_t s;

    memcpy(&s, f + 4, 4);
    return s;
}

static switch_t *make_switch(uint32_t nports, uint64_t seed)
{
    struct switch_config cfg;

    switch_config_default(&cfg, nports);
    cfg.seed = seed;
    cfg.slots_per_port = 4096;
    cfg.queue_bytes = 1u << 26;
    return switch_create(&cfg);
}

static void switch_delivers_after_serialization_and_latency(void **state)
{
    switch_t *sw = make_switch(2, 1);
    uint8_t f[1001];
    size_t len;

    (void)state;
    make_frame(f, 1, 0, 7, 1000);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 1000), SIM_OK);
    /* handed out latency (100) after its first bit leaves; the receiving PHY clocks it in over
     * its serialization time, (1000 + 20 gap) * 8 bits at 50 bits/cycle = 163.2 cycles */
    assert_int_equal(switch_next_event(sw), 100);
    assert_int_equal(switch_egress(sw, 99, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 100, 0, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 100, 1, rxbuf, 10, &len), SIM_EINVAL); /* too small: stays */
    assert_int_equal(switch_egress(sw, 100, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(len, 1000);
    assert_memory_equal(rxbuf, f, 1000);
    assert_true(crc_ok(rxbuf, len));
    /* Three 1001-byte frames back to back: exact bit-time accounting, (1001 + 20) * 8 = 8168 bits
     * each (163.36 cycles): they start at 1000, 1163.36 and 1326.72. */
    make_frame(f, 1, 0, 8, 1001);
    assert_int_equal(switch_ingress(sw, 1000, 0, f, 1001), SIM_OK);
    assert_int_equal(switch_ingress(sw, 1000, 0, f, 1001), SIM_OK);
    assert_int_equal(switch_ingress(sw, 1000, 0, f, 1001), SIM_OK);
    assert_int_equal(switch_egress(sw, 1099, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 1100, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(switch_egress(sw, 1263, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 1264, 1, rxbuf, sizeof rxbuf, &len), SIM_OK); /* 1163.36 -> 1164 */
    assert_int_equal(switch_egress(sw, 1426, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 1427, 1, rxbuf, sizeof rxbuf, &len), SIM_OK); /* 1326.72 -> 1327 */
    assert_int_equal(switch_port_counters(sw, 1)->tx_frames, 4);
    assert_int_equal(switch_port_counters(sw, 0)->rx_bytes, 4003);
    switch_destroy(sw);
}

static void switch_per_port_bandwidth_and_latency(void **state)
{
    switch_t *sw = make_switch(3, 1);
    struct switch_port_config slow = { 10, 7 };
    uint8_t f[100];
    size_t len;

    (void)state;
    assert_int_equal(switch_set_port(sw, 2, &slow), SIM_OK);
    make_frame(f, 2, 0, 1, 100);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 100), SIM_OK);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 100), SIM_OK);
    assert_int_equal(switch_egress(sw, 6, 2, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 7, 2, rxbuf, sizeof rxbuf, &len), SIM_OK); /* first bit + 7 */
    assert_int_equal(switch_egress(sw, 102, 2, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 103, 2, rxbuf, sizeof rxbuf, &len), SIM_OK); /* (100+20)*8/10 + 7 */
    switch_destroy(sw);
}

/* Two senders to one receiver: the output link serializes one frame after the other (the second
 * waits for the first's bits and gap), each handed out latency after its own first bit. */
static void switch_two_senders_queue_at_one_output(void **state)
{
    switch_t *sw = make_switch(3, 1);
    uint8_t f[1000];
    size_t len;

    (void)state;
    make_frame(f, 2, 0, 1, 1000);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 1000), SIM_OK);
    make_frame(f, 2, 1, 2, 1000);
    assert_int_equal(switch_ingress(sw, 0, 1, f, 1000), SIM_OK);
    assert_int_equal(switch_egress(sw, 100, 2, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 1);
    assert_int_equal(switch_egress(sw, 263, 2, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 264, 2, rxbuf, sizeof rxbuf, &len), SIM_OK); /* 163.2 -> 164, + 100 */
    assert_int_equal(seq_of(rxbuf), 2);
    /* a third frame at 200 waits for the second's (1020 line bytes) end at 326.4 */
    make_frame(f, 2, 0, 3, 1000);
    assert_int_equal(switch_ingress(sw, 200, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_next_event(sw), 427);
    switch_destroy(sw);
}

static void switch_output_queue_drops_tail_and_slots_are_bounded(void **state)
{
    struct switch_config cfg;
    switch_t *sw;
    uint8_t f[1000];
    size_t len;
    int got = 0;

    (void)state;
    switch_config_default(&cfg, 2);
    cfg.queue_bytes = 4080; /* line bytes: 4 x (1000 + 20 gap) */
    cfg.slots_per_port = 8;
    sw = switch_create(&cfg);
    make_frame(f, 1, 0, 1, 1000);
    for (int i = 0; i < 10; i++)
        assert_int_equal(switch_ingress(sw, 0, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_port_counters(sw, 1)->queue_drops, 6); /* 4 x 1000 bytes fit */
    while (switch_egress(sw, 10000, 1, rxbuf, sizeof rxbuf, &len) == SIM_OK)
        got++;
    assert_int_equal(got, 4);
    /* Slots: 8 frames delivered but never popped, the 9th is dropped. */
    for (int i = 0; i < 9; i++)
        assert_int_equal(switch_ingress(sw, 20000 + 1000 * (sim_cycle_t)i, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_port_counters(sw, 1)->slot_drops, 1);
    switch_destroy(sw);
}

static void switch_rejects_bad_frames_and_destinations_and_broadcasts(void **state)
{
    switch_t *sw = make_switch(4, 1);
    uint8_t f[64];
    size_t len;

    (void)state;
    make_frame(f, 9, 0, 1, 64);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 64), SIM_OK);
    assert_int_equal(switch_port_counters(sw, 0)->bad_dest, 1);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 5), SIM_EINVAL);
    assert_int_equal(switch_ingress(sw, 0, 0, f, SWITCH_MAX_FRAME + 1), SIM_EINVAL);
    assert_int_equal(switch_ingress(sw, 0, 4, f, 64), SIM_EINVAL);
    assert_int_equal(switch_port_counters(sw, 0)->rx_bad, 2);
    make_frame(f, SWITCH_BROADCAST, 2, 1, 64);
    assert_int_equal(switch_ingress(sw, 0, 2, f, 64), SIM_OK);
    for (uint32_t p = 0; p < 4; p++)
        assert_int_equal(switch_egress(sw, 1000, p, rxbuf, sizeof rxbuf, &len), p == 2 ? SIM_EAGAIN : SIM_OK);
    assert_int_equal(switch_next_event(sw), SIM_CYCLE_NEVER);
    switch_destroy(sw);
}

/* Sends n frames 0 -> 1, one every 400 cycles, and drains port 1. Returns frames delivered;
 * counts corrupted (bad CRC) ones and inversions of sequence order. */
struct outcome {
    int delivered, bad_crc, inversions, late;
};

static void drain_at(switch_t *sw, sim_cycle_t t, struct outcome *po, uint32_t *plast);

static struct outcome traffic(switch_t *sw, int n)
{
    static uint8_t f[512];
    struct outcome o = { 0, 0, 0, 0 };
    uint32_t last = 0;

    for (int i = 0;; i++) {
        sim_cycle_t t, next_send = i < n ? 400 * (sim_cycle_t)i : SIM_CYCLE_NEVER;
        /* Drain everything due before the next send (as the harness would), then send. */
        while ((t = switch_next_event(sw)) < next_send)
            drain_at(sw, t, &o, &last);
        if (i >= n)
            break;
        make_frame(f, 1, 0, (uint32_t)i + 1, 512);
        assert_int_equal(switch_ingress(sw, next_send, 0, f, 512), SIM_OK);
    }
    return o;
}

static void drain_at(switch_t *sw, sim_cycle_t t, struct outcome *po, uint32_t *plast)
{
    struct outcome o = *po;
    uint32_t last = *plast;
    size_t len;

    {
        while (switch_egress(sw, t, 1, rxbuf, sizeof rxbuf, &len) == SIM_OK) {
            uint32_t s = seq_of(rxbuf);
            o.delivered++;
            if (!crc_ok(rxbuf, len)) {
                o.bad_crc++;
                continue; /* the sequence number may be the corrupted part */
            }
            /* On time = 400 * (s - 1) + 100: handed out latency after its first bit */
            o.late += t > 400 * (sim_cycle_t)(s - 1) + 100;
            o.inversions += s < last;
            if (s > last)
                last = s;
        }
    }
    *po = o;
    *plast = last;
}

static struct outcome run_fault(double drop, double dup, double corrupt, double delay, int n, uint64_t seed)
{
    switch_t *sw = make_switch(2, seed);
    struct switch_faults fl = { drop, dup, corrupt, delay, 2000 };
    struct outcome o;

    assert_int_equal(switch_set_global_faults(sw, &fl), SIM_OK);
    o = traffic(sw, n);
    switch_destroy(sw);
    return o;
}

static void switch_each_fault_at_rate_one_and_zero(void **state)
{
    struct outcome o;

    (void)state;
    o = run_fault(0, 0, 0, 0, 200, 1);
    assert_int_equal(o.delivered, 200);
    assert_int_equal(o.bad_crc + o.inversions + o.late, 0);
    o = run_fault(1, 0, 0, 0, 200, 1);
    assert_int_equal(o.delivered, 0);
    o = run_fault(0, 1, 0, 0, 200, 1);
    assert_int_equal(o.delivered, 400);
    assert_int_equal(o.bad_crc, 0);
    o = run_fault(0, 0, 1, 0, 200, 1);
    assert_int_equal(o.delivered, 200);
    assert_int_equal(o.bad_crc, 200); /* every corruption is caught by the CRC */
    o = run_fault(0, 0, 0, 1, 200, 1);
    assert_int_equal(o.delivered, 200);
    assert_int_equal(o.late, 200);
    assert_true(o.inversions > 0); /* delays up to 2000 cycles vs 400 between frames */
}

static void switch_fault_rates_of_one_tenth_are_statistically_right(void **state)
{
    const int n = 10000;
    switch_t *sw = make_switch(2, 12345);
    struct switch_faults fl = { 0.1, 0.1, 0.1, 0.1, 2000 };
    const struct switch_port_counters *c;
    struct outcome o;

    (void)state;
    assert_int_equal(switch_set_global_faults(sw, &fl), SIM_OK);
    o = traffic(sw, n);
    c = switch_port_counters(sw, 1);
    /* Binomial(10000, 0.1): sd 30; +-200 is more than 6 sd. Copies of non-dropped frames
     * (about 9000, plus duplicates) draw corruption and delay. */
    assert_true(c->fault_drop > 800 && c->fault_drop < 1200);
    assert_true(c->fault_duplicate > 700 && c->fault_duplicate < 1100);
    assert_true(c->fault_corrupt > 790 && c->fault_corrupt < 1190);
    assert_true(c->fault_delay > 790 && c->fault_delay < 1190);
    assert_int_equal(o.delivered, (int)(n - c->fault_drop + c->fault_duplicate));
    assert_int_equal(o.bad_crc, (int)c->fault_corrupt);
    switch_destroy(sw);
}

static void switch_link_faults_apply_to_that_link_only(void **state)
{
    switch_t *sw = make_switch(3, 1);
    struct switch_faults dead = { 1, 0, 0, 0, 1 };
    uint8_t f[64];
    size_t len;

    (void)state;
    assert_int_equal(switch_set_link_faults(sw, 1, &dead), SIM_OK);
    make_frame(f, 1, 0, 1, 64);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 64), SIM_OK); /* into the dead link */
    make_frame(f, 2, 1, 2, 64);
    assert_int_equal(switch_ingress(sw, 0, 1, f, 64), SIM_OK); /* out of the dead link */
    make_frame(f, 2, 0, 3, 64);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 64), SIM_OK); /* healthy path */
    assert_int_equal(switch_egress(sw, 1000, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 1000, 2, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 3);
    assert_int_equal(switch_egress(sw, 1000, 2, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    struct switch_faults bad = { 1.5, 0, 0, 0, 1 };
    assert_int_equal(switch_set_link_faults(sw, 1, &bad), SIM_EINVAL);
    switch_destroy(sw);
}

/* Random all-to-all traffic on 8 ports with every fault at 0.1; returns a hash of the delivery
 * log (cycle, port, bytes) and fills n. */
static uint64_t delivery_log_hash(uint64_t seed, int *n)
{
    switch_t *sw = make_switch(8, seed);
    struct switch_faults fl = { 0.1, 0.1, 0.1, 0.1, 500 };
    sim_rng_t traffic_rng;
    static uint8_t f[2048];
    uint64_t h = 1469598103934665603ull;
    size_t len;

    sim_rng_seed(&traffic_rng, 99, 0); /* the same offered traffic for every switch seed */
    switch_set_global_faults(sw, &fl);
    *n = 0;
    for (sim_cycle_t t = 0; t < 40000; t++) {
        if (sim_rng_chance(&traffic_rng, 0.05)) {
            uint16_t src = (uint16_t)sim_rng_below(&traffic_rng, 8), dst = (uint16_t)sim_rng_below(&traffic_rng, 8);
            size_t l = (size_t)sim_rng_range(&traffic_rng, 64, 1024);
            make_frame(f, dst, src, (uint32_t)t, l);
            switch_ingress(sw, t, src, f, l);
        }
        for (uint32_t p = 0; p < 8; p++) {
            while (switch_egress(sw, t, p, rxbuf, sizeof rxbuf, &len) == SIM_OK) {
                uint64_t rec[3] = { t, p, nic_crc32(rxbuf, len) };
                for (size_t i = 0; i < sizeof rec; i++) {
                    h ^= ((const uint8_t *)rec)[i];
                    h *= 1099511628211ull;
                }
                (*n)++;
            }
        }
    }
    switch_destroy(sw);
    return h;
}

static void switch_same_seed_same_run_different_seed_differs(void **state)
{
    int n1, n2, n3;
    uint64_t a = delivery_log_hash(7, &n1), b = delivery_log_hash(7, &n2), c = delivery_log_hash(8, &n3);

    (void)state;
    assert_true(n1 > 1000);
    assert_int_equal(n1, n2);
    assert_true(a == b);
    assert_true(a != c);
}

static void switch_sixty_four_ports_all_to_all(void **state)
{
    switch_t *sw = make_switch(64, 1);
    uint8_t f[128];
    size_t len;
    int got[64] = { 0 };

    (void)state;
    for (uint16_t s = 0; s < 64; s++)
        for (uint16_t d = 0; d < 64; d++) {
            make_frame(f, d, s, (uint32_t)s << 8 | d, 128);
            assert_int_equal(switch_ingress(sw, s, s, f, 128), SIM_OK);
        }
    for (sim_cycle_t t = switch_next_event(sw); t != SIM_CYCLE_NEVER; t = switch_next_event(sw))
        for (uint32_t p = 0; p < 64; p++)
            while (switch_egress(sw, t, p, rxbuf, sizeof rxbuf, &len) == SIM_OK) {
                assert_int_equal(rxbuf[1], p);
                assert_true(crc_ok(rxbuf, len));
                got[p]++;
            }
    for (int p = 0; p < 64; p++)
        assert_int_equal(got[p], 64);
    switch_destroy(sw);
}

/* Source check: a frame handed in at port p in another port's name is dropped and counted; its own
 * name passes; the tap sees every frame handed in. Off: the spoofed frame is delivered. */
static unsigned tapped;
static void tap(void *ctx, sim_cycle_t now, uint32_t port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)now;
    (void)frame;
    (void)len;
    tapped += port == 2;
}

static void switch_check_src_drops_spoofed_frames(void **state)
{
    switch_t *sw = make_switch(3, 1);
    uint8_t f[200];
    size_t len;

    (void)state;
    switch_set_tap(sw, tap, NULL);
    switch_set_check_src(sw, true);
    make_frame(f, 1, 0, 1, 100); /* port 2 claims to be node 0 */
    assert_int_equal(switch_ingress(sw, 0, 2, f, 100), SIM_OK);
    make_frame(f, 1, 2, 2, 100); /* port 2 as itself */
    assert_int_equal(switch_ingress(sw, 0, 2, f, 100), SIM_OK);
    assert_int_equal(switch_port_counters(sw, 2)->src_spoofed, 1);
    assert_int_equal(switch_egress(sw, 100000, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 2);
    assert_int_equal(switch_egress(sw, 100000, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    switch_set_check_src(sw, false);
    make_frame(f, 1, 0, 3, 100);
    assert_int_equal(switch_ingress(sw, 200000, 2, f, 100), SIM_OK);
    assert_int_equal(switch_egress(sw, 300000, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 3);
    assert_int_equal(switch_port_counters(sw, 2)->src_spoofed, 1);
    assert_int_equal(tapped, 3);
    switch_destroy(sw);
}

/* One switch over several processes (switch.h "one switch over several processes"): three
 * replicas, each owning a third of 10 ports, deferred ingress applied at every quantum (the
 * latency) from all three in rank order, give exactly the deliveries (cycle, port, bytes) and the
 * per-port counters of one switch with immediate ingress, under every fault kind at 0.1 and with
 * broadcasts; records applied in another rank order give the same too; a malformed record is
 * refused whole. */
#define REP_PORTS 10
#define REP_K 3
struct dlog {
    uint64_t h[REP_PORTS];
    int n;
};

static void dlog_add(struct dlog *d, sim_cycle_t t, uint32_t p, const uint8_t *f, size_t len)
{
    uint64_t rec[2] = { t, nic_crc32(f, len) ^ len };
    for (size_t i = 0; i < sizeof rec; i++) {
        d->h[p] ^= ((const uint8_t *)rec)[i];
        d->h[p] *= 1099511628211ull;
    }
    d->n++;
}

static unsigned owner(uint32_t p)
{
    return p * REP_K / REP_PORTS;
}

static void replicated_run(int replicas, int reverse, struct dlog *d, struct switch_port_counters *ctr)
{
    struct switch_faults fl = { 0.1, 0.1, 0.1, 0.1, 500 };
    switch_t *sw[REP_K];
    sim_rng_t traffic;
    static uint8_t f[2048];
    size_t len;
    int k = replicas ? REP_K : 1;

    memset(d, 0, sizeof *d);
    for (int r = 0; r < k; r++) {
        sw[r] = make_switch(REP_PORTS, 5);
        assert_non_null(sw[r]);
        assert_int_equal(switch_set_global_faults(sw[r], &fl), SIM_OK);
        if (replicas) {
            switch_set_deferred(sw[r], true);
            for (uint32_t p = 0; p < REP_PORTS; p++)
                assert_int_equal(switch_set_local(sw[r], p, owner(p) == (unsigned)r), SIM_OK);
        }
    }
    assert_int_equal(switch_min_latency(sw[0]), 100);
    sim_rng_seed(&traffic, 42, 0);
    for (sim_cycle_t t = 0; t < 30000; t++) {
        for (uint32_t src = 0; src < REP_PORTS; src++) {
            if (!sim_rng_chance(&traffic, 0.01))
                continue;
            uint16_t dst = sim_rng_chance(&traffic, 0.05) ? SWITCH_BROADCAST : (uint16_t)sim_rng_below(&traffic, REP_PORTS);
            size_t l = (size_t)sim_rng_range(&traffic, 64, 1500);
            make_frame(f, dst, (uint16_t)src, (uint32_t)t, l);
            assert_int_equal(switch_ingress(sw[replicas ? owner(src) : 0], t, src, f, l), SIM_OK);
        }
        for (uint32_t p = 0; p < REP_PORTS; p++) {
            switch_t *s = sw[replicas ? owner(p) : 0];
            while (switch_egress(s, t, p, rxbuf, sizeof rxbuf, &len) == SIM_OK)
                dlog_add(d, t, p, rxbuf, len);
        }
        if (replicas && (t + 1) % 100 == 0) { /* the boundary: every replica applies every record */
            const uint8_t *b[REP_K];
            size_t n[REP_K];
            uint8_t *copy[REP_K];
            for (int r = 0; r < k; r++) {
                const uint8_t *p = switch_pending(sw[r], &n[r], NULL);
                copy[r] = malloc(n[r] ? n[r] : 1);
                assert_non_null(copy[r]);
                memcpy(copy[r], p, n[r]);
                b[r] = copy[r];
                switch_pending_clear(sw[r]);
            }
            if (reverse) { /* the order of the blocks must not matter */
                const uint8_t *tb = b[0];
                size_t tn = n[0];
                b[0] = b[2], n[0] = n[2], b[2] = tb, n[2] = tn;
            }
            for (int r = 0; r < k; r++)
                assert_int_equal(switch_apply(sw[r], b, n, REP_K), SIM_OK);
            for (int r = 0; r < k; r++)
                free(copy[r]);
        }
    }
    for (uint32_t p = 0; p < REP_PORTS; p++)
        ctr[p] = *switch_port_counters(sw[replicas ? owner(p) : 0], p);
    if (replicas) { /* a truncated record is refused, nothing applied */
        uint8_t junk[20] = { 0 };
        const uint8_t *b[1] = { junk };
        size_t n[1] = { sizeof junk };
        junk[12] = 200; /* a 200-byte frame in a 20-byte block */
        assert_int_equal(switch_apply(sw[0], b, n, 1), SIM_EINVAL);
    }
    for (int r = 0; r < k; r++)
        switch_destroy(sw[r]);
}

static void switch_replicas_over_processes_match_one_switch(void **state)
{
    static struct switch_port_counters one[REP_PORTS], rep[REP_PORTS], rev[REP_PORTS];
    struct dlog a, b, c;

    (void)state;
    replicated_run(0, 0, &a, one);
    replicated_run(1, 0, &b, rep);
    replicated_run(1, 1, &c, rev);
    assert_true(a.n > 2000);
    uint64_t faults = 0;
    for (uint32_t p = 0; p < REP_PORTS; p++)
        faults += one[p].fault_drop + one[p].fault_corrupt + one[p].fault_duplicate + one[p].fault_delay;
    assert_true(faults > 100); /* the faults and their draws are part of what must match */
    assert_int_equal(a.n, b.n);
    assert_int_equal(a.n, c.n);
    for (uint32_t p = 0; p < REP_PORTS; p++) {
        assert_true(a.h[p] == b.h[p]);
        assert_true(a.h[p] == c.h[p]);
        assert_memory_equal(&one[p], &rep[p], sizeof one[p]);
        assert_memory_equal(&one[p], &rev[p], sizeof one[p]);
    }
}

/* ECN-like marking (issue 14): frames enqueued above ecn_bytes get the bit, their FCS kept exactly
 * as right (or wrong) as it was; below the threshold, or with marking off, nothing changes. */
static void switch_marks_above_the_threshold_and_keeps_the_fcs(void **state)
{
    for (int on = 0; on < 2; on++) {
        struct switch_config cfg;
        uint8_t f[1000], g[1000];
        size_t len;
        switch_config_default(&cfg, 2);
        cfg.queue_bytes = 1u << 20;
        cfg.ecn_bytes = on ? 3000u : 0u; /* frames of 1000 + 20 gap: the 4th sees 3060 queued */
        switch_t *sw = switch_create(&cfg);
        (void)state;
        assert_non_null(sw);
        for (uint32_t k = 0; k < 6; k++) {
            make_frame(f, 1, 0, k, sizeof f);
            if (k == 5)
                f[100] ^= 0x40; /* a frame with a bad FCS: must stay bad */
            assert_int_equal(switch_ingress(sw, 0, 0, f, sizeof f), SIM_OK);
        }
        for (uint32_t k = 0; k < 6; k++) {
            assert_int_equal(switch_egress(sw, 1000000, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
            assert_int_equal(len, sizeof f);
            make_frame(g, 1, 0, k, sizeof g);
            if (k == 5)
                g[100] ^= 0x40;
            int marked = on && k >= 3;
            assert_int_equal(rxbuf[cfg.ecn_offset] & cfg.ecn_mask, marked ? cfg.ecn_mask : 0);
            g[cfg.ecn_offset] |= marked ? cfg.ecn_mask : 0; /* the rest of the frame is unchanged */
            assert_memory_equal(rxbuf, g, sizeof g - 4);
            assert_int_equal(crc_ok(rxbuf, len), k != 5);
        }
        assert_int_equal(switch_port_counters(sw, 1)->ecn_marked, on ? 3 : 0);
        switch_destroy(sw);
    }
}

/* Link pause (cfg.pause, switch_pause): frames that started before the request are delivered, those
 * that were to start at or after it wait with every frame accepted meanwhile, in acceptance order,
 * counted in the queue's bound; at the resume they start in that order from the resume's cycle;
 * with cfg.pause off a request changes nothing. */
static switch_t *make_pause_switch(bool pause, uint32_t queue_bytes)
{
    struct switch_config cfg;

    switch_config_default(&cfg, 3);
    cfg.seed = 1;
    cfg.slots_per_port = 64;
    cfg.queue_bytes = queue_bytes;
    cfg.pause = pause;
    return switch_create(&cfg);
}

static void switch_pause_holds_and_resumes_in_order(void **state)
{
    switch_t *sw = make_pause_switch(true, 1u << 20);
    uint8_t f[1000];
    size_t len;

    (void)state;
    assert_true(switch_pause_enabled(sw));
    assert_int_equal(switch_pause(sw, 0, 3, true), SIM_EINVAL);
    /* three 1000-byte frames at 0: their serializations start at 0, 163.2 and 326.4 */
    for (uint32_t i = 1; i <= 3; i++) {
        make_frame(f, 1, 0, i, 1000);
        assert_int_equal(switch_ingress(sw, 0, 0, f, 1000), SIM_OK);
    }
    /* paused at 200: the second started at 163.2 and is delivered; the third (326.4) waits */
    assert_int_equal(switch_pause(sw, 200, 1, true), SIM_OK);
    assert_true(switch_paused(sw, 1));
    assert_false(switch_paused(sw, 0));
    assert_int_equal(switch_egress(sw, 100, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 1);
    assert_int_equal(switch_egress(sw, 264, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 2);
    assert_int_equal(switch_port_next_event(sw, 1), SIM_CYCLE_NEVER);
    assert_int_equal(switch_egress(sw, 100000, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    /* accepted while paused: waits behind the third; other ports are not held up */
    make_frame(f, 1, 0, 4, 1000);
    assert_int_equal(switch_ingress(sw, 300, 0, f, 1000), SIM_OK);
    make_frame(f, 2, 0, 5, 1000);
    assert_int_equal(switch_ingress(sw, 300, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_egress(sw, 400, 2, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 5);
    assert_int_equal(switch_pause(sw, 500, 1, true), SIM_OK); /* already paused: nothing */
    assert_int_equal(switch_port_counters(sw, 1)->pauses, 1);
    /* resumed at 1000: the third starts at once (1000), the fourth after it (1163.2 -> 1164) */
    assert_int_equal(switch_pause(sw, 1000, 1, false), SIM_OK);
    assert_false(switch_paused(sw, 1));
    assert_int_equal(switch_port_next_event(sw, 1), 1100);
    assert_int_equal(switch_egress(sw, 1099, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 1100, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 3);
    assert_int_equal(len, 1000);
    assert_true(crc_ok(rxbuf, len));
    assert_int_equal(switch_egress(sw, 1263, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 1264, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 4);
    assert_int_equal(switch_port_counters(sw, 1)->paused_cycles, 800);
    assert_int_equal(switch_port_counters(sw, 1)->tx_frames, 4);
    assert_int_equal(switch_port_counters(sw, 1)->queue_drops, 0);
    /* a frame due to start exactly at the request's cycle waits too: 2000 and 2163.2 -> the
     * second is held by a pause at 2163 (its start, 2163.2, is not before it) */
    make_frame(f, 1, 0, 6, 1000);
    assert_int_equal(switch_ingress(sw, 2000, 0, f, 1000), SIM_OK);
    make_frame(f, 1, 0, 7, 1000);
    assert_int_equal(switch_ingress(sw, 2000, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_pause(sw, 2163, 1, true), SIM_OK);
    assert_int_equal(switch_egress(sw, 2100, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 6);
    assert_int_equal(switch_egress(sw, 5000, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    /* resumed before the link is free (it carries the sixth until 2163.2): the seventh starts then */
    assert_int_equal(switch_pause(sw, 2100, 1, false), SIM_OK);
    assert_int_equal(switch_egress(sw, 2263, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    assert_int_equal(switch_egress(sw, 2264, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(seq_of(rxbuf), 7);
    assert_int_equal(switch_port_counters(sw, 1)->pauses, 2);
    switch_destroy(sw);
}

static void switch_pause_counts_held_frames_in_the_queue_bound(void **state)
{
    /* room for three frames with their gaps (3 x 1020 line bytes) */
    switch_t *sw = make_pause_switch(true, 3 * 1020);
    uint8_t f[1000];
    size_t len;

    (void)state;
    assert_int_equal(switch_pause(sw, 0, 1, true), SIM_OK);
    for (uint32_t i = 1; i <= 4; i++) {
        make_frame(f, 1, 0, i, 1000);
        assert_int_equal(switch_ingress(sw, 10, 0, f, 1000), SIM_OK);
    }
    assert_int_equal(switch_port_counters(sw, 1)->queue_drops, 1);
    assert_int_equal(switch_pause(sw, 50, 1, false), SIM_OK);
    for (uint32_t i = 1; i <= 3; i++) {
        assert_int_equal(switch_egress(sw, 10000, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
        assert_int_equal(seq_of(rxbuf), i);
    }
    assert_int_equal(switch_egress(sw, 10000, 1, rxbuf, sizeof rxbuf, &len), SIM_EAGAIN);
    switch_destroy(sw);
}

static void switch_pause_off_changes_nothing(void **state)
{
    switch_t *sw = make_pause_switch(false, 1u << 20);
    uint8_t f[1000];
    size_t len;

    (void)state;
    assert_false(switch_pause_enabled(sw));
    make_frame(f, 1, 0, 1, 1000);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_ingress(sw, 0, 0, f, 1000), SIM_OK);
    assert_int_equal(switch_pause(sw, 50, 1, true), SIM_OK);
    assert_false(switch_paused(sw, 1));
    assert_int_equal(switch_egress(sw, 100, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(switch_egress(sw, 264, 1, rxbuf, sizeof rxbuf, &len), SIM_OK);
    assert_int_equal(switch_port_counters(sw, 1)->pauses, 0);
    switch_destroy(sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(switch_delivers_after_serialization_and_latency),
        cmocka_unit_test(switch_per_port_bandwidth_and_latency),
        cmocka_unit_test(switch_two_senders_queue_at_one_output),
        cmocka_unit_test(switch_output_queue_drops_tail_and_slots_are_bounded),
        cmocka_unit_test(switch_rejects_bad_frames_and_destinations_and_broadcasts),
        cmocka_unit_test(switch_each_fault_at_rate_one_and_zero),
        cmocka_unit_test(switch_fault_rates_of_one_tenth_are_statistically_right),
        cmocka_unit_test(switch_link_faults_apply_to_that_link_only),
        cmocka_unit_test(switch_same_seed_same_run_different_seed_differs),
        cmocka_unit_test(switch_sixty_four_ports_all_to_all),
        cmocka_unit_test(switch_check_src_drops_spoofed_frames),
        cmocka_unit_test(switch_replicas_over_processes_match_one_switch),
        cmocka_unit_test(switch_marks_above_the_threshold_and_keeps_the_fcs),
        cmocka_unit_test(switch_pause_holds_and_resumes_in_order),
        cmocka_unit_test(switch_pause_counts_held_frames_in_the_queue_bound),
        cmocka_unit_test(switch_pause_off_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
