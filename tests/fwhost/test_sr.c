/*
 * test_sr.c - selective repeat (INIT option NIC_XOPT_SR), host-native (tests/fwhost): the receiver
 * places writes and read responses out of order, advertises them in the SACK bitmap (the `off`
 * field of its ACK and NACK frames), keeps read requests in order and its cumulative ACK over data
 * in host memory only; the sender resends only what the SACK does not cover, within its bounds.
 * docs/wire-protocol.md "Selective repeat".
 */
#include "scen.h"

#define OP_ID 0x00C0FFEEu

static int sr_setup(void **state)
{
    fwh_boot_xopts = NIC_XOPT_SR;
    return scen_setup(state);
}

static void pattern(uint8_t *p, uint32_t n, uint32_t seed)
{
    for (uint32_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 13u + seed);
}

/* A WRITE from PEER to LBUF at `off` with sequence number `seq`. */
static struct pkt_hdr write_at(uint32_t seq, uint64_t off, const void *data, uint32_t len)
{
    struct pkt_hdr h = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY, .off = off,
                        .len = (uint16_t)len, .flags = PKT_F_LAST};
    fwh.peer[PEER].tx_seq = seq;
    fwh_send_seq(PEER, &h, data);
    return h;
}

/* The frames the NCP sent since: the last ACK/NACK's ack and SACK; GAP NACKs counted. */
struct ctl_seen {
    uint32_t ack, sack, gaps, gap_sack, gap_ack, frames, data;
};
static struct ctl_seen drain(void)
{
    struct ctl_seen c = {0, 0, 0, 0, 0, 0, 0};
    struct pkt_hdr h;
    while (fwh_tx_next(&h, NULL)) {
        c.frames++;
        if (h.type == PKT_ACK || h.type == PKT_NACK) {
            c.ack = h.ack;
            c.sack = (uint32_t)h.off;
            assert_int_equal(h.off >> 32, 0); /* the SACK is 32 bits */
        } else {
            c.data++;
        }
        if (h.type == PKT_NACK && h.reason == PKT_NACK_GAP) {
            c.gaps++;
            c.gap_sack = (uint32_t)h.off;
            c.gap_ack = h.ack;
        }
    }
    return c;
}

/* Out-of-order writes are placed at once and SACKed; the cumulative ACK waits for the hole; the
 * hole's resend moves it over everything; a duplicate of a SACKed packet is not written again. */
static void sr_writes_placed_out_of_order(void **state)
{
    (void)state;
    static uint8_t d[4][1024];
    for (unsigned i = 0; i < 4; i++)
        pattern(d[i], sizeof d[i], 20 + i);
    fwh_prefill(PID);
    uint32_t s = fwh.peer[PEER].tx_seq;
    write_at(s, 0x0000, d[0], 1024);
    write_at(s + 2, 0x2000, d[2], 1024); /* s + 1 lost */
    write_at(s + 3, 0x3000, d[3], 1024);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x2000, 1024), d[2], 1024); /* placed out of order */
    assert_memory_equal(fh_host(lpa + 0x3000, 1024), d[3], 1024);
    assert_int_equal(*fh_host(lpa + 0x1000, 1), 0);
    struct ctl_seen c = drain();
    assert_int_equal(c.gaps, 1); /* one GAP NACK for the expected value s + 1 */
    /* it shows the packet that revealed the gap (relative to its ack: s, its DMA perhaps pending,
     * or s + 1), not the hole */
    assert_true(c.gap_ack == s || c.gap_ack == s + 1);
    assert_int_equal(c.gap_sack >> (s + 1 - c.gap_ack), 0x2u);
    assert_int_equal(c.ack, s + 1); /* the cumulative ACK stops at the hole */
    assert_int_equal(c.sack, 0x6u); /* s + 2, s + 3 */
    /* a duplicate of a SACKed packet: re-ACKed, not written */
    memset(fh_host(lpa + 0x3000, 16), 0x5A, 16);
    write_at(s + 3, 0x3000, d[3], 1024);
    fwh_run();
    assert_int_equal(*fh_host(lpa + 0x3000, 1), 0x5A);
    c = drain();
    assert_int_equal(c.gaps, 0);
    assert_int_equal(c.sack, 0x6u);
    /* the hole: everything acknowledged, no SACK left */
    write_at(s + 1, 0x1000, d[1], 1024);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x1000, 1024), d[1], 1024);
    c = drain();
    assert_int_equal(c.ack, s + 4);
    assert_int_equal(c.sack, 0u);
    struct nic_stats st = stats();
    assert_int_equal(st.dup_packets, 1);
    assert_int_equal(st.rx_dma_errors, 0);
}

/* A read request ahead of the expected one is not served out of order (dropped as a gap, not
 * SACKed); in order it is. */
static void sr_read_request_stays_in_order(void **state)
{
    (void)state;
    static uint8_t d[512];
    pattern(d, sizeof d, 3);
    fwh_prefill(PID);
    fwh_fill_pattern(lpa + 0x4000, 512, 9);
    uint32_t s = fwh.peer[PEER].tx_seq;
    struct pkt_hdr q = {.type = PKT_READ_REQ, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x4000,
                        .xlen = 512};
    fwh.peer[PEER].tx_seq = s + 1;
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    struct ctl_seen c = drain();
    assert_int_equal(c.data, 0); /* no response */
    assert_int_equal(c.gaps, 1);
    assert_int_equal(c.gap_sack, 0u); /* not accepted */
    write_at(s, 0, d, sizeof d);
    fwh.peer[PEER].tx_seq = s + 1;
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    const uint8_t *p;
    struct pkt_hdr h;
    int resp = 0;
    while (fwh_tx_next(&h, &p))
        if (h.type == PKT_READ_RESP) {
            resp++;
            assert_int_equal(h.len, 512);
            assert_memory_equal(p, fh_host(lpa + 0x4000, 512), 512);
        }
    assert_int_equal(resp, 1);
}

/* A host DMA error on an out-of-order packet: it is no longer SACKed, and the cumulative ACK never
 * covers it until its resend lands. */
static void sr_dma_error_out_of_order_reneges(void **state)
{
    (void)state;
    static uint8_t d[3][1024];
    for (unsigned i = 0; i < 3; i++)
        pattern(d[i], sizeof d[i], 40 + i);
    fwh_prefill(PID);
    uint32_t s = fwh.peer[PEER].tx_seq;
    fh_dma_fail(lpa + 0x2000, lpa + 0x3000, 1, FH_DMA_HOST_ERR);
    write_at(s + 2, 0x2000, d[2], 1024);
    fwh_run();
    struct ctl_seen c = drain();
    assert_int_equal(stats().rx_dma_errors, 1);
    write_at(s + 1, 0x1000, d[1], 1024);
    write_at(s, 0x0000, d[0], 1024);
    fwh_run();
    c = drain();
    assert_int_equal(c.ack, s + 2); /* not over the failed packet */
    assert_int_equal(c.sack, 0u);
    write_at(s + 2, 0x2000, d[2], 1024);
    fwh_run();
    c = drain();
    assert_int_equal(c.ack, s + 3);
    for (unsigned i = 0; i < 3; i++)
        assert_memory_equal(fh_host(lpa + i * 0x1000u, 1024), d[i], 1024);
}

/* Read responses out of order at the initiator: placed, the read completes only when every byte
 * is in; then the cumulative ACK covers them all. */
static void sr_read_responses_out_of_order(void **state)
{
    (void)state;
    fwh_prefill(PID);
    uint32_t len = 3 * mtu();
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 0x1000, LBUF, len, RPID, RBUF, 0, RKEY, 81);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr q = tx_expect(PKT_READ_REQ, NULL);
    fwh_ack(PEER);
    fwh_run();
    static uint8_t data[3 * 4096];
    assert_true(len <= sizeof data);
    pattern(data, len, 77);
    uint32_t s = fwh.peer[PEER].tx_seq;
    struct nic_cqe cq;
    for (int k = 2; k >= 0; k--) { /* the last segment first */
        uint32_t off = (uint32_t)k * mtu();
        struct pkt_hdr r = {.type = PKT_READ_RESP, .op = q.op, .off = off, .len = (uint16_t)mtu(),
                            .flags = k == 2 ? PKT_F_LAST : 0};
        fwh.peer[PEER].tx_seq = s + (uint32_t)k;
        fwh_send_seq(PEER, &r, data + off);
        fwh_run();
        if (k)
            assert_false(fwh_cqe(EP, &cq)); /* not every byte in yet */
    }
    assert_true(fwh_cqe(EP, &cq));
    assert_int_equal(cq.status, NIC_ST_OK);
    assert_int_equal(cq.bytes, len);
    assert_memory_equal(fh_host(lpa + 0x1000, len), data, len);
    struct ctl_seen c = drain();
    assert_int_equal(c.ack, s + 3);
    assert_int_equal(c.sack, 0u);
}

/* The sender: an ACK whose SACK shows holes resends exactly the holes (bits for packets never
 * sent are ignored); the same SACK again resends nothing; the cumulative ACK completes. */
static uint32_t post_segments(uint32_t nseg, uint64_t wr_id)
{
    uint32_t s = 0;
    fwh_fill_pattern(lpa, nseg * mtu(), 6);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, nseg * mtu(), RPID, RBUF, 0, RKEY, wr_id);
    fwh_post(EP, &e);
    fwh_run();
    for (uint32_t k = 0; k < nseg; k++) {
        struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
        if (!k)
            s = w.seq;
        assert_int_equal(w.seq, s + k);
    }
    assert_int_equal(fwh_tx_pending(), 0);
    return s;
}

static void sack(uint32_t ack, uint32_t bits)
{
    struct pkt_hdr a = {.type = PKT_ACK, .ack = ack, .off = bits};
    fwh_send(PEER, &a, NULL);
    fwh_run();
}

static void sr_sender_resends_only_holes(void **state)
{
    (void)state;
    uint32_t s = post_segments(4, 90);
    sack(s, 0xFFFFFFF0u | 0xAu); /* s + 1, s + 3 SACKed; bits 4.. name packets never sent */
    const uint8_t *p;
    struct pkt_hdr r = tx_expect(PKT_WRITE, &p);
    assert_int_equal(r.seq, s);
    assert_memory_equal(p, fh_host(lpa, mtu()), mtu());
    r = tx_expect(PKT_WRITE, &p);
    assert_int_equal(r.seq, s + 2);
    assert_memory_equal(p, fh_host(lpa + 2 * mtu(), mtu()), mtu());
    assert_int_equal(fwh_tx_pending(), 0);
    sack(s, 0xAu); /* the same again: the recovery runs, nothing more */
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_cqe c;
    assert_false(fwh_cqe(EP, &c)); /* a SACK completes nothing */
    sack(s + 4, 0);
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 4 * mtu());
    assert_int_equal(stats().retransmits, 2);
}

/* A GAP NACK with a SACK resends the unSACKed packets up to the one that revealed the gap; a
 * timeout forgets the SACK and probes una alone. */
static void sr_gap_nack_and_timeout(void **state)
{
    (void)state;
    uint32_t s = post_segments(4, 91);
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_GAP, .seq = s + 3, .ack = s, .off = 0x8u};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    for (uint32_t k = 0; k < 3; k++)
        assert_int_equal(tx_expect(PKT_WRITE, NULL).seq, s + k);
    assert_int_equal(fwh_tx_pending(), 0);
    fwh_send(PEER, &n, NULL); /* again: the recovery runs already */
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    timer_fires();
    assert_int_equal(tx_expect(PKT_WRITE, NULL).seq, s); /* the probe */
    assert_int_equal(fwh_tx_pending(), 0);
    sack(s + 1, 0x4u); /* progress; s + 3 SACKed: s + 1, s + 2 go, not s + 3 */
    assert_int_equal(tx_expect(PKT_WRITE, NULL).seq, s + 1);
    assert_int_equal(tx_expect(PKT_WRITE, NULL).seq, s + 2);
    assert_int_equal(fwh_tx_pending(), 0);
    sack(s + 4, 0);
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
}

/* A PROTECTION NACK with the other op's packets SACKed: only the refused op fails, only its packet
 * is resent (void); the other op completes OK. */
static void sr_refusal_fails_only_its_op(void **state)
{
    (void)state;
    fwh_fill_pattern(lpa, 3 * mtu(), 8);
    struct nic_sq_entry a = fwh_write_wr(PEER, LVA, LBUF, mtu(), RPID, RBUF, 0, RKEY, 1);
    struct nic_sq_entry b = fwh_write_wr(PEER, LVA + mtu(), LBUF, 2 * mtu(), RPID, RBUF, 0x10000, RKEY, 2);
    fwh_post(EP, &a);
    fwh_post(EP, &b);
    fwh_run();
    struct pkt_hdr wa = tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_PROTECTION, .seq = wa.seq, .ack = wa.seq, .op = wa.op,
                        .status = NIC_ST_KEY, .off = 0x6u};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    struct pkt_hdr v = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(v.seq, wa.seq);
    assert_true(v.flags & PKT_F_VOID);
    assert_int_equal(fwh_tx_pending(), 0); /* b's packets were SACKed: not resent */
    sack(wa.seq + 3, 0);
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_KEY);
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 2 * mtu());
    assert_int_equal(stats().refused_ops, 1);
}

/* A peer that SACKs part of a write and then falls silent: the timeouts resend only what it did
 * not SACK (a timeout forgets the SACK: the probe, then the rest it re-SACKs), the give-up fails the
 * write UNREACHABLE whatever was SACKed, and the next packet carries RESYNC. */
static void sr_giveup_with_partly_sacked_window(void **state)
{
    (void)state;
    uint32_t s = post_segments(4, 92);
    sack(s, 0x6u); /* s + 1, s + 2 SACKed: the holes s and s + 3 ... */
    struct pkt_hdr r = tx_expect(PKT_WRITE, NULL); /* (s + 3 is not below the highest SACKed) */
    assert_int_equal(r.seq, s);
    assert_int_equal(fwh_tx_pending(), 0);
    unsigned rounds = 0;
    struct nic_cqe c;
    while (!fwh_cqe(EP, &c)) {
        assert_true(++rounds < 64);
        struct pkt_hdr h;
        while (fwh_tx_next(&h, NULL))
            assert_int_equal(h.seq, s); /* only the probe: nothing new until progress */
        fwh.peer[PEER].rx_next = s;
        timer_fires();
    }
    assert_int_equal(c.status, NIC_ST_UNREACHABLE);
    assert_true(stats().timeouts >= 8);
    fwh_fill_pattern(lpa, 100, 3);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 93);
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
    assert_true(w.flags & PKT_F_RESYNC);
    assert_int_equal(w.seq, s + 4);
    sack(w.seq + 1, 0);
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
}

/* Go-back-N stays what INIT without the flag gives: no SACK advertised, out-of-order dropped. */
static void gbn_without_the_flag(void **state)
{
    (void)state;
    static uint8_t d[256];
    pattern(d, sizeof d, 1);
    fwh_prefill(PID);
    uint32_t s = fwh.peer[PEER].tx_seq;
    write_at(s + 1, 0x1000, d, sizeof d);
    fwh_run();
    assert_int_equal(*fh_host(lpa + 0x1000, 1), 0);
    struct ctl_seen c = drain();
    assert_int_equal(c.gaps, 1);
    assert_int_equal(c.gap_sack, 0u);
    /* INIT with an unknown flag bit is refused */
    struct nic_cmd i = {.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = FWH_EV_LOG2, .d = ME | NODES << 16, .cache = 0x80};
    assert_int_equal(fwh_cmd(&i), NIC_ST_BAD_CMD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(sr_writes_placed_out_of_order, sr_setup),
        cmocka_unit_test_setup(sr_read_request_stays_in_order, sr_setup),
        cmocka_unit_test_setup(sr_dma_error_out_of_order_reneges, sr_setup),
        cmocka_unit_test_setup(sr_read_responses_out_of_order, sr_setup),
        cmocka_unit_test_setup(sr_sender_resends_only_holes, sr_setup),
        cmocka_unit_test_setup(sr_gap_nack_and_timeout, sr_setup),
        cmocka_unit_test_setup(sr_refusal_fails_only_its_op, sr_setup),
        cmocka_unit_test_setup(sr_giveup_with_partly_sacked_window, sr_setup),
        cmocka_unit_test_setup(gbn_without_the_flag, scen_setup),
    };
    return FWH_RUN_TESTS("fwhost.sr", tests);
}
