/*
 * Unit tests of NCP packet encoding and validation (firmware/lib/pkt.c): round trip, the
 * big-endian destination the switch routes on, and rejection of short, mis-sized, misaddressed,
 * unknown and out-of-range packets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nic_abi.h"
#include "ncp_util.h"
#include "pkt.h"

void ncp_on_assert(unsigned module, unsigned id)
{
    fail_msg("NCP_ASSERT module %u id %u", module, id);
}

static uint8_t frame[PKT_HDR_BYTES + 4096] __attribute__((aligned(16)));

static struct pkt_hdr write_hdr(uint16_t len)
{
    struct pkt_hdr h = {.dst = 0x0102, .src = 3, .type = PKT_WRITE, .flags = PKT_F_LAST, .len = len,
                        .seq = 0xDEADBEEF, .ack = 0x01020304, .op = 77, .pid = 9, .buf = 0x123456,
                        .key = 0xCAFEF00D, .token = 0x5EC12E7u, .off = 0x100000002ull, .xlen = 8192};
    return h;
}

static void pkt_round_trip_and_routing_bytes(void **state)
{
    struct pkt_hdr h = write_hdr(100), d;
    (void)state;
    pkt_encode(frame, &h);
    assert_int_equal(frame[0], 0x01); /* destination big-endian in bytes 0-1: the switch's route */
    assert_int_equal(frame[1], 0x02);
    assert_int_equal(frame[3], 3);
    pkt_decode(frame, &d);
    assert_true(d.dst == h.dst && d.src == h.src && d.type == h.type && d.flags == h.flags && d.len == h.len);
    assert_true(d.seq == h.seq && d.ack == h.ack && d.op == h.op && d.pid == h.pid && d.reason == h.reason);
    assert_true(d.buf == h.buf && d.key == h.key && d.token == h.token && d.off == h.off && d.xlen == h.xlen);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 100, 0x0102, 0x200, 4096, &d), PKT_OK);
    /* the token is word 8 (bytes 32-35) of every header */
    assert_int_equal(ncp_ld32(frame + 32), 0x5EC12E7u);
    /* word 11 is `status` for a NACK / READ_RESP: a negative status round-trips */
    struct pkt_hdr n = {.dst = 1, .src = 2, .type = PKT_NACK, .reason = PKT_NACK_PROTECTION, .seq = 5, .op = 9,
                        .token = 0xA5A5A5A5u, .status = -5};
    pkt_encode(frame, &n);
    pkt_decode(frame, &d);
    assert_true(d.status == -5 && d.token == 0xA5A5A5A5u && d.reason == PKT_NACK_PROTECTION && d.op == 9);
}

static void pkt_rejects_bad_lengths(void **state)
{
    struct pkt_hdr h = write_hdr(100), d;
    (void)state;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES - 1, 0x0102, 0x200, 4096, &d), PKT_E_SHORT);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 99, 0x0102, 0x200, 4096, &d), PKT_E_LEN);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 101, 0x0102, 0x200, 4096, &d), PKT_E_LEN);
    h = write_hdr(4096);
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 4096, 0x0102, 0x200, 2048, &d), PKT_E_LEN);
    h = write_hdr(0); /* a write without data */
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
}

static void pkt_rejects_wrong_nodes_and_types(void **state)
{
    struct pkt_hdr h = write_hdr(8), d;
    (void)state;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 8, 0x0103, 0x200, 4096, &d), PKT_E_DST);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 8, 0x0102, 3, 4096, &d), PKT_E_SRC);
    h.src = 0x0102; /* from ourselves */
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 8, 0x0102, 0x200, 4096, &d), PKT_E_SRC);
    /* ... unless from the node's own loopback, which carries nothing else */
    assert_int_equal(pkt_parse_src(frame, PKT_HDR_BYTES + 8, 0x0102, 0x200, 4096, 1, &d), PKT_OK);
    assert_int_equal(d.src, 0x0102);
    h = write_hdr(8);
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse_src(frame, PKT_HDR_BYTES + 8, 0x0102, 0x200, 4096, 1, &d), PKT_E_SRC);
    assert_int_equal(pkt_parse_src(frame, PKT_HDR_BYTES + 8, 0x0102, 0x200, 4096, 0, &d), PKT_OK);
    for (unsigned t = 0; t < 256; t++) {
        h.type = (uint8_t)t;
        h.len = pkt_is_sequenced((uint8_t)t) && t != PKT_READ_REQ ? 8 : 0;
        h.reason = PKT_NACK_GAP;
        h.xlen = 16;
        h.off = 0;
        pkt_encode(frame, &h);
        enum pkt_err e = pkt_parse(frame, PKT_HDR_BYTES + h.len, 0x0102, 0x200, 4096, &d);
        if (t >= 1 && t < PKT__TYPES)
            assert_int_equal(e, PKT_OK);
        else
            assert_int_equal(e, PKT_E_TYPE);
    }
}

static void pkt_rejects_out_of_range_fields(void **state)
{
    struct pkt_hdr h = write_hdr(8), d;
    (void)state;
    h.buf = PKT_MAX_BUF_ID + 1;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 8, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
    h = write_hdr(8);
    h.off = UINT64_MAX - 3; /* offset + length wraps */
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 8, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
    h = write_hdr(0);
    h.type = PKT_READ_REQ;
    h.xlen = 0;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
    h.xlen = NIC_MAX_XFER + 1;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
    h.type = PKT_NACK;
    h.reason = 0;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
    h.reason = PKT__NACK_REASONS;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
    h.type = PKT_ACK;
    h.len = 4;
    pkt_encode(frame, &h);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 4, 0x0102, 0x200, 4096, &d), PKT_E_FIELD);
}

static void pkt_random_garbage_never_passes_as_wrong_length(void **state)
{
    struct pkt_hdr d;
    uint32_t r = 99;
    (void)state;
    for (unsigned iter = 0; iter < 20000; iter++) {
        uint32_t len = PKT_HDR_BYTES + (iter % 64);
        for (uint32_t i = 0; i < len; i++) {
            r = r * 1664525u + 1013904223u;
            frame[i] = (uint8_t)(r >> 24);
        }
        frame[0] = 0;
        frame[1] = 1;
        if (pkt_parse(frame, len, 1, 4, 4096, &d) == PKT_OK) {
            assert_int_equal(d.len, len - PKT_HDR_BYTES);
            assert_true(d.src < 4 && d.src != 1 && d.type >= 1 && d.type < PKT__TYPES);
        }
    }
}

/* Item 8d: wrap-safe comparison; numbers exactly 2^31 apart are unordered (neither precedes). */
static void seq_compare_excludes_2_31(void **state)
{
    static const uint32_t base[] = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xDEADBEEFu};
    (void)state;
    for (unsigned i = 0; i < sizeof base / sizeof base[0]; i++) {
        uint32_t a = base[i], far = a + 0x80000000u;
        assert_false(seq_lt(a, far));
        assert_false(seq_lt(far, a));
        assert_false(seq_le(a, far));
        assert_false(seq_le(far, a));
        assert_false(seq_lt(a, a));
        assert_true(seq_le(a, a));
        assert_true(seq_lt(a, a + 1u) && !seq_lt(a + 1u, a));
        assert_true(seq_lt(a, a + 0x7FFFFFFFu) && !seq_lt(a + 0x7FFFFFFFu, a));
        assert_true(seq_lt(a + 0x80000001u, a)); /* more than 2^31 ahead = behind */
        assert_true(seq_in(a, a, a + 1u) && !seq_in(a + 1u, a, a + 1u) && !seq_in(a - 1u, a, a + 5u));
        assert_false(seq_in(far, a, a + 32u));
    }
    /* exhaustive on a sample: for distinct a, b not 2^31 apart exactly one order holds */
    for (uint32_t i = 0; i < 100000u; i++) {
        uint32_t x = i * 2654435761u, y = i * 40503u + (i << 20);
        if (x != y && x - y != 0x80000000u)
            assert_true(seq_lt(x, y) != seq_lt(y, x));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seq_compare_excludes_2_31),
        cmocka_unit_test(pkt_round_trip_and_routing_bytes),
        cmocka_unit_test(pkt_rejects_bad_lengths),
        cmocka_unit_test(pkt_rejects_wrong_nodes_and_types),
        cmocka_unit_test(pkt_rejects_out_of_range_fields),
        cmocka_unit_test(pkt_random_garbage_never_passes_as_wrong_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
