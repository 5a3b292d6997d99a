/*
 * test_peer.c - the peer-context cache host-native (tests/fwhost, issue 13 item 3): six nodes, two
 * resident contexts (NIC_CMD_PEER_TABLE's d), the host table in fake host memory. A context is
 * derived when its peer first comes; a third peer evicts a quiet one, written back before the slot
 * is reused, its frame dropped meanwhile; the evicted peer comes back by a fill with its transport
 * state intact (its next sequence number is accepted, not a gap); a peer with packets in flight is
 * never the victim, and with none quiet nothing is evicted (counted); a send to a peer not
 * resident parks its endpoint until the fill; a failed write-back keeps its victim and is retried;
 * bad table commands are refused.
 */
#include "scen.h"

#define PNODES 6u
#define TABLE_PA 0xA0000u
#define A PEER
#define B PEER2
#define C 3u

static int setup(void **state)
{
    (void)state;
    fwh_boot(ME, PNODES, SECRET);
    fwh_ep_open(EP, PID);
    fwh_reg_proc(PID, EP);
    lpa = fwh_map(PID, LVA, LLEN, ALL_RIGHTS);
    fwh_reg_buf(PID, LBUF, LVA, LLEN, LKEY, ALL_RIGHTS);
    fwh_prefill(PID);
    assert_int_equal(fwh.info.peer_ctx_bytes, 512);
    assert_true(fwh.info.peer_slots >= 2 && fwh.info.max_peers >= PNODES);
    struct nic_cmd t = {.op = NIC_CMD_PEER_TABLE, .a = TABLE_PA, .c = 0, .d = 2};
    assert_int_equal(fwh_cmd(&t), NIC_ST_OK);
    return 0;
}

/* A 64-byte write from `src` at `off` (its next sequence number, or `seq` again: a resend). */
static void write_from(uint16_t src, uint32_t off, int resend)
{
    static uint8_t a[64];
    struct pkt_hdr w = {.type = PKT_WRITE, .pid = PID, .buf = LBUF, .key = LKEY, .off = off, .len = 64,
                        .flags = PKT_F_LAST};
    if (resend)
        fwh.peer[src].tx_seq--;
    memset(a, (int)(off / 64u + src), sizeof a);
    fwh_send_seq(src, &w, a);
    fwh_run();
}

/* The write landed and was acknowledged to `src` up to its last sequence number. */
#define delivered(src, off) delivered_at(src, off, __LINE__)
static void delivered_at(uint16_t src, uint32_t off, int line)
{
    struct nic_stats s = stats();
    if (!fwh_tx_pending())
        fail_msg("line %d: nothing sent (evictions %u writebacks %u fills %u drops %u no_victim %u)", line,
                 s.peer_evictions, s.peer_writebacks, s.peer_fills, s.peer_fill_drops, s.peer_no_victim);
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.dst, src);
    assert_int_equal(k.ack, fwh.peer[src].tx_seq);
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(fh_host(lpa + off + i, 1)[0], (uint8_t)(off / 64u + src));
}

/* Dropped: nothing answered it, nothing landed. */
static void dropped(void)
{
    assert_int_equal(fwh_tx_pending(), 0);
}

static void derived_evicted_written_back_filled(void **state)
{
    (void)state;
    write_from(A, 0, 0);
    delivered(A, 0);
    write_from(B, 64, 0);
    delivered(B, 64);
    struct nic_stats s = stats();
    assert_int_equal(s.peer_evictions, 0); /* two slots: both derived in place */
    write_from(C, 128, 0);                 /* a third: A (the clock hand's first, quiet) goes */
    dropped();
    s = stats();
    assert_int_equal(s.peer_evictions, 1);
    assert_int_equal(s.peer_writebacks, 1);
    assert_int_equal(s.peer_fill_drops, 1);
    assert_int_equal(s.peer_fills, 0); /* C was never created: derived, not filled */
    write_from(C, 128, 1);             /* its resend */
    delivered(C, 128);
    write_from(A, 192, 0); /* A again: B goes, A comes back from host memory */
    dropped();
    write_from(A, 192, 1);
    delivered(A, 192); /* its next sequence number accepted: the window survived the trip */
    s = stats();
    assert_int_equal(s.peer_evictions, 2);
    assert_int_equal(s.peer_writebacks, 2);
    assert_int_equal(s.peer_fills, 1);
    assert_int_equal(s.peer_fill_drops, 2);
    assert_int_equal(s.peer_no_victim, 0);
}

static void post_to(uint16_t dst, uint32_t len, uint64_t wr_id)
{
    struct nic_sq_entry e = fwh_write_wr(dst, LVA, LBUF, len, RPID, RBUF, 0, RKEY, wr_id);
    fwh_post(EP, &e);
    fwh_run();
}

static void busy_peers_stay(void **state)
{
    struct nic_cqe q;
    (void)state;
    post_to(A, 64, 1); /* A: a packet in flight (not acknowledged) */
    assert_int_equal(tx_expect(PKT_WRITE, NULL).dst, A);
    write_from(B, 0, 0);
    delivered(B, 0);
    write_from(C, 64, 0); /* the hand is at A's slot, but A is busy: B goes */
    dropped();
    write_from(C, 64, 1);
    delivered(C, 64);
    assert_int_equal(stats().peer_evictions, 1);
    fwh_ack(A); /* A's window still there: its write completes */
    fwh_run();
    assert_true(fwh_cqe(EP, &q));
    assert_int_equal(q.status, NIC_ST_OK);
    assert_int_equal(q.wr_id_lo, 1);
    post_to(A, 64, 2); /* A and C both with packets in flight */
    assert_int_equal(tx_expect(PKT_WRITE, NULL).dst, A);
    post_to(C, 64, 3);
    assert_int_equal(tx_expect(PKT_WRITE, NULL).dst, C);
    write_from(B, 128, 0); /* no victim: nothing evicted, the frame dropped */
    dropped();
    struct nic_stats s = stats();
    assert_int_equal(s.peer_evictions, 1);
    assert_true(s.peer_no_victim >= 1);
    fwh_ack(A);
    fwh_ack(C);
    fwh_run();
    assert_true(fwh_cqe(EP, &q) && q.wr_id_lo == 2 && q.status == NIC_ST_OK);
    assert_true(fwh_cqe(EP, &q) && q.wr_id_lo == 3 && q.status == NIC_ST_OK);
    write_from(B, 128, 1); /* quiet again: B comes back */
    dropped();
    write_from(B, 128, 1);
    delivered(B, 128);
}

static void send_parks_until_the_fill(void **state)
{
    struct nic_cqe q;
    (void)state;
    write_from(A, 0, 0);
    delivered(A, 0);
    write_from(B, 64, 0);
    delivered(B, 64);
    write_from(C, 128, 0); /* A evicted */
    write_from(C, 128, 1);
    delivered(C, 128);
    /* the first DMA on the table fails: the write-back of the victim A's fill needs (B, quiet): the
     * victim stays resident, the parked send asks again at once and the second write-back and the
     * fill succeed */
    fh_dma_fail(TABLE_PA, TABLE_PA + 4096, 1, 2);
    post_to(A, 64, 7);
    struct nic_stats s = stats();
    assert_int_equal(s.peer_evictions, 3);
    assert_int_equal(s.peer_writebacks, 2);
    assert_int_equal(s.peer_fills, 1);
    struct pkt_hdr h = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(h.dst, A);
    assert_int_equal(h.seq, fwh.peer[A].rx_next - 1u); /* A's connection, not a new one */
    fwh_ack(A);
    fwh_run();
    assert_true(fwh_cqe(EP, &q));
    assert_int_equal(q.status, NIC_ST_OK);
    assert_int_equal(q.wr_id_lo, 7);
}

static void bad_tables_refused(void **state)
{
    (void)state;
    struct nic_cmd t = {.op = NIC_CMD_PEER_TABLE, .a = TABLE_PA + 4096, .c = 0};
    assert_int_equal(fwh_cmd(&t), NIC_ST_BAD_CMD); /* page 0 given already */
    t.c = 1;
    assert_int_equal(fwh_cmd(&t), NIC_ST_BAD_CMD); /* six nodes need one page */
    t.c = 0;
    t.a = TABLE_PA + 8;
    assert_int_equal(fwh_cmd(&t), NIC_ST_BAD_CMD); /* not page-aligned */
    t.a = TABLE_PA;
    t.d = 1000;
    assert_int_equal(fwh_cmd(&t), NIC_ST_BAD_CMD); /* more slots than it has */
    write_from(A, 0, 0); /* and it keeps serving */
    delivered(A, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(derived_evicted_written_back_filled, setup),
        cmocka_unit_test_setup(busy_peers_stay, setup),
        cmocka_unit_test_setup(send_parks_until_the_fill, setup),
        cmocka_unit_test_setup(bad_tables_refused, setup),
    };
    return FWH_RUN_TESTS("peer", tests) ? 1 : 0;
}
