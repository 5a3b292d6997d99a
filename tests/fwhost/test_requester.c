/*
 * test_requester.c - the NCP as requester and completer, host-native (tests/fwhost): send queue
 * entries, segmentation, translation misses on the send path, ACK/NACK consumption, completions.
 */
#include "scen.h"

/* A write of `len` bytes from LVA + loff to (RPID, RBUF, roff) on PEER. */
static void post_write(uint64_t loff, uint32_t len, uint64_t roff, uint64_t wr_id)
{
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + loff, LBUF, len, RPID, RBUF, roff, RKEY, wr_id);
    fwh_post(EP, &e);
}

/* The write's segments as they must go out: header fields, then the payload bytes. */
static void expect_segments(uint64_t loff, uint32_t len, uint64_t roff, uint32_t *first_seq)
{
    for (uint32_t off = 0; off < len; off += mtu()) {
        const uint8_t *p;
        uint32_t n = len - off < mtu() ? len - off : mtu();
        struct pkt_hdr h = tx_expect(PKT_WRITE, &p);
        assert_int_equal(h.dst, PEER);
        assert_int_equal(h.pid, RPID);
        assert_int_equal(h.buf, RBUF);
        assert_int_equal(h.key, RKEY);
        assert_int_equal(h.off, roff + off);
        assert_int_equal(h.xlen, off);
        assert_int_equal(h.len, n);
        assert_int_equal(h.flags & (PKT_F_LAST | PKT_F_VOID), off + n == len ? PKT_F_LAST : 0);
        assert_memory_equal(p, fh_host(lpa + loff + off, n), n);
        if (off == 0 && first_seq)
            *first_seq = h.seq;
    }
}

/* A signalled write acknowledged completes OK with its bytes; its segments carry the data. */
static void write_acked_completes(void **state)
{
    struct nic_cqe c;
    uint32_t seq;
    (void)state;

    fwh_fill_pattern(lpa + 100, 6000, 1);
    post_write(100, 6000, 64, 0xABCDEF0012345678ull);
    fwh_run();
    expect_segments(100, 6000, 64, &seq);
    assert_int_equal(fwh_tx_pending(), 0);
    assert_false(fwh_cqe(EP, &c)); /* not acknowledged yet */
    fwh_ack(PEER);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 6000);
    assert_int_equal(c.op, NIC_OP_RDMA_WRITE);
    assert_int_equal(c.wr_id_lo, 0x12345678u);
    assert_int_equal(c.wr_id_hi, 0xABCDEF00u);
    assert_int_equal(c.req, 0);
    assert_int_equal(c.sq_ci, 1);
    assert_false(fwh_cqe(EP, &c));
    struct nic_stats s = stats();
    assert_int_equal(s.tx_packets, 2);
    assert_int_equal(s.rx_packets, 1);
    assert_int_equal(s.retransmits, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(write_acked_completes, scen_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
