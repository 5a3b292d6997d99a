/*
 * test_prefetch.c - prefetch on a miss in the NCP, host-native (tests/fwhost; issue 14, item 2):
 * the miss request's range (MISS event `lines`) narrowed to the message (a write's source, a read
 * response's source, a write's target buffer, a read's destination) and bounded by INIT's N, the
 * prefetched lines' misses merged into the request, the range shrinking as its lines are filled,
 * N = 0 as the seed (one line per request), and INIT refusing an N beyond NIC_PREFETCH_MAX.
 */
#include "scen.h"

#define PF_N 8u
#define VA2 0x0F0020000000ull /* line-aligned for any L up to 2^17 pages */
#define PBUF 6u
#define PKEY 0x77u
#define OP_ID 0x00C0FFEEu

static uint64_t pa2;

static uint64_t line_bytes(void)
{
    return (uint64_t)fwh.info.cache[NIC_CACHE_VMH].line * 4096u;
}

static uint32_t line_of(uint64_t va)
{
    return (uint32_t)((va >> 12) / fwh.info.cache[NIC_CACHE_VMH].line);
}

/* scen_setup with INIT's prefetch N, plus buffer PBUF of 3 VMH lines at VA2 (its CBH, PCH filled) */
static int setup_n(uint16_t n)
{
    fwh_boot_prefetch = n;
    scen_setup(NULL);
    pa2 = fwh_map(PID, VA2, (uint32_t)(3 * line_bytes()), ALL_RIGHTS);
    fwh_reg_buf(PID, PBUF, VA2, 3 * line_bytes(), PKEY, ALL_RIGHTS);
    assert_int_equal(fwh_fill(NIC_CACHE_PCH, PID, PID), NIC_ST_OK);
    assert_int_equal(fwh_fill(NIC_CACHE_CBH, PID, PBUF), NIC_ST_OK);
    assert_int_equal(fwh_fill(NIC_CACHE_CBH, PID, LBUF), NIC_ST_OK);
    return 0;
}
static int setup_pf(void **state)
{
    (void)state;
    return setup_n(PF_N);
}
static int setup_pf2(void **state)
{
    (void)state;
    return setup_n(2);
}
static int setup_off(void **state)
{
    (void)state;
    return setup_n(0);
}

static void post_write2(uint64_t loff, uint32_t len, uint64_t wr_id)
{
    struct nic_sq_entry e = fwh_write_wr(PEER, VA2 + loff, PBUF, len, RPID, RBUF, 0, RKEY, wr_id);
    fwh_post(EP, &e);
}

/* Send path: an 8 KiB write across a line boundary asks once for its 2 lines (not N); the second
 * line's miss merges into the request; each fill lets its segment go; the data is the source's. */
static void send_miss_asks_for_the_message(void **state)
{
    (void)state;
    uint64_t loff = line_bytes() - 4096;
    fwh_fill_pattern(pa2 + loff, 8192, 21);
    fwh.auto_fill = 0;
    post_write2(loff, 8192, 1);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    assert_int_equal(fwh.last_miss.cache, NIC_CACHE_VMH);
    assert_int_equal(fwh.last_miss.path, NIC_PATH_SEND);
    assert_int_equal(fwh.last_miss.key, line_of(VA2));
    assert_int_equal(fwh.last_miss.lines, 2); /* the message's lines, not N */
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(VA2 >> 12)), NIC_ST_OK);
    fwh_run();
    const uint8_t *p;
    struct pkt_hdr h = tx_expect(PKT_WRITE, &p);
    assert_int_equal(h.len, 4096);
    assert_memory_equal(p, fh_host(pa2 + loff, 4096), 4096);
    assert_int_equal(fwh_tx_pending(), 0); /* the second segment waits for its prefetched line */
    assert_int_equal(fwh.misses, 1);       /* merged into the request: no second event */
    struct nic_stats s = stats();
    assert_int_equal(s.miss_requests, 1);
    assert_int_equal(s.miss_prefetch_lines, 1);
    assert_true(s.miss_range_merged >= 1);
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)((VA2 + line_bytes()) >> 12)), NIC_ST_OK);
    fwh_run();
    h = tx_expect(PKT_WRITE, &p);
    assert_int_equal(h.xlen, 4096);
    assert_memory_equal(p, fh_host(pa2 + loff + 4096, 4096), 4096);
    fwh_ack(PEER);
    fwh_run();
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 8192);
    s = stats();
    assert_int_equal(s.miss_requests, 1);
}

/* A message over 3 lines with N = 2: the request stops at N lines; the third line is asked for
 * by a request of its own when its segment gets there. */
static void request_bounded_by_n(void **state)
{
    (void)state;
    uint64_t loff = line_bytes() - 4096;
    uint32_t len = (uint32_t)line_bytes() + 8192; /* lines 0, 1, 2 */
    fwh.auto_fill = 0;
    post_write2(loff, len, 2);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    assert_int_equal(fwh.last_miss.key, line_of(VA2));
    assert_int_equal(fwh.last_miss.lines, 2);
    assert_int_equal(stats().miss_prefetch_lines, 1);
}

/* N = 0 (the seed): the same write asks for one line at a time, two requests. */
static void off_asks_one_line_at_a_time(void **state)
{
    (void)state;
    uint64_t loff = line_bytes() - 4096;
    fwh_fill_pattern(pa2 + loff, 8192, 22);
    fwh.auto_fill = 0;
    post_write2(loff, 8192, 3);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    assert_true(fwh.last_miss.lines <= 1);
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(VA2 >> 12)), NIC_ST_OK);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    assert_int_equal(fwh.misses, 2); /* the second line: a request of its own */
    assert_int_equal(fwh.last_miss.key, line_of(VA2) + 1);
    assert_true(fwh.last_miss.lines <= 1);
    struct nic_stats s = stats();
    assert_int_equal(s.miss_requests, 2);
    assert_int_equal(s.miss_prefetch_lines + s.miss_range_merged, 0);
    /* INIT refuses an N beyond NIC_PREFETCH_MAX, and nothing changes */
    struct nic_cmd c = {.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = FWH_EV_LOG2,
                        .d = (uint32_t)ME | (uint32_t)NODES << 16, .ep = NIC_PREFETCH_MAX + 1};
    assert_int_equal(fwh_cmd(&c), NIC_ST_BAD_CMD);
}

/* Receive path: a WRITE into the first line of a 3-line buffer misses; the request covers the
 * rest of the target buffer (3 lines, bounded by its end, not N); filled (as the driver does,
 * every line asked for), the resent packet lands, and one to the third line does not miss. */
static void receive_miss_asks_for_the_buffer(void **state)
{
    (void)state;
    static uint8_t a[4096], b[4096];
    for (unsigned i = 0; i < sizeof a; i++) {
        a[i] = (uint8_t)(i * 7u + 1u);
        b[i] = (uint8_t)(i * 11u + 2u);
    }
    fwh.auto_fill = 0;
    struct pkt_hdr w = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = PBUF, .key = PKEY, .off = 0x1000,
                        .len = 4096, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    assert_int_equal(tx_expect(PKT_NACK, NULL).reason, PKT_NACK_MISS);
    assert_int_equal(fwh.misses, 1);
    assert_int_equal(fwh.last_miss.path, NIC_PATH_RECV);
    assert_int_equal(fwh.last_miss.key, line_of(VA2));
    assert_int_equal(fwh.last_miss.lines, 3); /* to the buffer's end */
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)((VA2 + k * line_bytes()) >> 12)), NIC_ST_OK);
    fwh_run();
    while (fwh_tx_pending())
        tx_expect(PKT_NACK, NULL); /* RESUME */
    fwh.peer[PEER].tx_seq = w.seq;
    fwh_send_seq(PEER, &w, a);
    struct pkt_hdr w2 = {.type = PKT_WRITE, .op = OP_ID + 1, .pid = PID, .buf = PBUF, .key = PKEY,
                         .off = 2 * line_bytes() + 0x3000, .len = 4096, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &w2, b);
    fwh_run();
    assert_memory_equal(fh_host(pa2 + 0x1000, 4096), a, 4096);
    assert_memory_equal(fh_host(pa2 + 2 * line_bytes() + 0x3000, 4096), b, 4096);
    assert_int_equal(fwh.misses, 1);
    struct nic_stats s = stats();
    assert_int_equal(s.miss_requests, 1);
    assert_int_equal(s.miss_prefetch_lines, 2);
    assert_int_equal(s.drops_miss, 1);
}

/* With the driver's automatic fills (every line of a request), a 3-line write goes out whole after
 * one request; the bytes on the wire are the source's. */
static void auto_fill_serves_the_range(void **state)
{
    (void)state;
    uint64_t loff = line_bytes() - 8192;
    uint32_t len = (uint32_t)line_bytes() + 16384; /* lines 0, 1, 2 */
    fwh_fill_pattern(pa2 + loff, len, 23);
    post_write2(loff, len, 4);
    uint32_t off = 0;
    for (unsigned round = 0; round < 100 && off < len; round++) {
        fwh_run();
        const uint8_t *p;
        struct pkt_hdr h;
        while (fwh_tx_next(&h, &p)) {
            assert_int_equal(h.type, PKT_WRITE);
            assert_int_equal(h.xlen, off);
            assert_memory_equal(p, fh_host(pa2 + loff + off, h.len), h.len);
            off += h.len;
        }
        fwh_ack(PEER);
    }
    assert_int_equal(off, len);
    fwh_run();
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(fwh.misses, 1);
    struct nic_stats s = stats();
    assert_int_equal(s.miss_requests, 1);
    assert_int_equal(s.miss_prefetch_lines, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(send_miss_asks_for_the_message, setup_pf),
        cmocka_unit_test_setup(request_bounded_by_n, setup_pf2),
        cmocka_unit_test_setup(off_asks_one_line_at_a_time, setup_off),
        cmocka_unit_test_setup(receive_miss_asks_for_the_buffer, setup_pf),
        cmocka_unit_test_setup(auto_fill_serves_the_range, setup_pf),
    };
    return FWH_RUN_TESTS("fwhost.prefetch", tests);
}
