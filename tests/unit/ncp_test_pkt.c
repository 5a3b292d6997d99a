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
                        .key = 0xCAFEF00D, .off = 0x100000002ull, .xlen = 8192};
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
    assert_true(d.buf == h.buf && d.key == h.key && d.status == h.status && d.off == h.off && d.xlen == h.xlen);
    assert_int_equal(pkt_parse(frame, PKT_HDR_BYTES + 100, 0x0102, 0x200, 4096, &d), PKT_OK);
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
    h = write_hdr(8);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pkt_round_trip_and_routing_bytes),
        cmocka_unit_test(pkt_rejects_bad_lengths),
        cmocka_unit_test(pkt_rejects_wrong_nodes_and_types),
        cmocka_unit_test(pkt_rejects_out_of_range_fields),
        cmocka_unit_test(pkt_random_garbage_never_passes_as_wrong_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
