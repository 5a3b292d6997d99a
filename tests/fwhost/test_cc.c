/*
 * test_cc.c - flow and congestion control host-native (tests/fwhost, issue 14): INIT's options;
 * as a sender, the window the grants and the marks leave (segments held, released by ACK frames
 * with credits, halved on an echo); as a receiver, the credits it grants (the whole pool to one
 * sender, the free part to a second) and the echo of a mark; with the options off none of it; the
 * receiver's sum of outstanding grants, kept incrementally, equals the loop over every peer after
 * each kind of update (a grant, an ACK advance, a context evicted, filled back, derived).
 */
#include "scen.h"

#include "congestion.h"

static int boot_with(uint8_t opts)
{
    fwh_boot_xopts = opts;
    return scen_setup(NULL);
}
static int setup_flow(void **state)
{
    (void)state;
    return boot_with(NIC_XOPT_FLOW);
}
static int setup_cc(void **state)
{
    (void)state;
    return boot_with(NIC_XOPT_CONGESTION);
}
static int setup_off(void **state)
{
    (void)state;
    return boot_with(0);
}

static void post_write(uint32_t len, uint64_t wr_id)
{
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, len, RPID, RBUF, 0, RKEY, wr_id);
    fwh_post(EP, &e);
}

/* A stand-alone ACK frame from PEER of everything it received, with a credit and flags. */
static void ack_frame(uint16_t src, uint32_t credit, uint8_t flags)
{
    struct pkt_hdr h = {.type = PKT_ACK, .ack = fwh.peer[src].rx_next, .reason = (uint16_t)(credit << 8),
                        .flags = flags};
    fwh_send(src, &h, NULL);
}

/* Takes every frame the NCP sent: how many WRITE segments (each checked against the source). */
static uint32_t take_writes(uint32_t *off)
{
    struct pkt_hdr h;
    const uint8_t *p;
    uint32_t n = 0;
    while (fwh_tx_next(&h, &p)) {
        assert_int_equal(h.type, PKT_WRITE);
        assert_int_equal(h.off, *off);
        assert_memory_equal(p, fh_host(lpa + *off, h.len), h.len);
        *off += h.len;
        n++;
    }
    return n;
}

/* Flow control, sender: one segment before the first ACK frame, then as many as each ACK's
 * credit allows beyond it; a credit of 0 lifts the limit; the write completes with every byte. */
static void sender_obeys_credits(void **state)
{
    struct nic_cqe c;
    uint32_t off = 0;
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 12 * mtu(), 3);
    post_write(12 * mtu(), 1);
    fwh_run();
    assert_int_equal(take_writes(&off), 1); /* credit before the first ACK frame: 1 */
    ack_frame(PEER, 3, 0);                  /* acknowledges it; 3 more */
    fwh_run();
    assert_int_equal(take_writes(&off), 3);
    fwh_ack(PEER); /* a data-less ACK without a credit field is an ACK frame granting none (0) */
    fwh_run();
    assert_int_equal(take_writes(&off), 8); /* no limit: the rest */
    ack_frame(PEER, 2, 0);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 12 * mtu());
    assert_int_equal(stats().retransmits, 0);
}

/* Flow control, sender: a grant that is used up holds the next segment until the next ACK frame;
 * an older ACK frame does not take a grant back; the timeout probe still goes. */
static void sender_holds_at_the_limit(void **state)
{
    uint32_t off = 0;
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 6 * mtu(), 4);
    post_write(6 * mtu(), 2);
    fwh_run();
    assert_int_equal(take_writes(&off), 1);
    ack_frame(PEER, 2, 0); /* limit: ack + 2 */
    fwh_run();
    assert_int_equal(take_writes(&off), 2);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0); /* held: nothing more until an ACK */
    ack_frame(PEER, 4, 0);
    fwh_run();
    assert_int_equal(take_writes(&off), 3);
    assert_int_equal(off, 6 * mtu());
}

/* Flow control, receiver: one sender is granted the pool (14 of the 16 ring entries); a second
 * sender, while the first holds it all, 1 (never 0); once the first's packets arrived, an equal
 * share of what is free. */
static void receiver_grants_from_its_pool(void **state)
{
    static uint8_t a[64];
    (void)state;
    fwh_prefill(PID);
    struct pkt_hdr w = {.type = PKT_WRITE, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0, .len = 64,
                        .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.dst, PEER);
    assert_int_equal(PKT_CREDIT(k.reason), 14);
    w.off = 64;
    fwh_send_seq(PEER2, &w, a);
    fwh_run();
    k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.dst, PEER2);
    assert_int_equal(PKT_CREDIT(k.reason), 1); /* PEER holds 14 of 14 */
    for (unsigned i = 0; i < 3; i++) { /* PEER's packets arrive: its grant shrinks by them */
        w.off = 128 + 64 * i;
        fwh_send_seq(PEER, &w, a);
    }
    fwh_run();
    k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.dst, PEER);
    /* others: PEER2 holds 1; two holders: min(14 / 2, 14 - 1) = 7 (PEER's limit never moves back:
     * it was ack - 3 + 14 = ack + 11, so 11) */
    assert_int_equal(PKT_CREDIT(k.reason), 11);
    w.off = 512;
    fwh_send_seq(PEER2, &w, a);
    fwh_run();
    k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.dst, PEER2);
    assert_int_equal(PKT_CREDIT(k.reason), 3); /* PEER holds 11: 14 - 11 */
}

/* Flow control, sender: until the connection's first ACK its timeout is twice NCP_RTO (a receiver
 * that many senders reach at once derives their contexts one after another; a resent first packet
 * is a duplicate the receiver's credits do not count); after it, NCP_RTO again. */
static void sender_first_timeout_doubled(void **state)
{
    uint32_t off = 0;
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 2 * mtu(), 9);
    post_write(mtu(), 10);
    fwh_run();
    assert_int_equal(take_writes(&off), 1);
    fh_advance(NCP_RTO + 1000u);
    fwh_run();
    assert_int_equal(stats().timeouts, 0); /* beyond NCP_RTO: no timeout yet */
    assert_int_equal(fwh_tx_pending(), 0);
    fh_advance(NCP_RTO);
    fwh_run();
    assert_int_equal(stats().timeouts, 1); /* beyond 2 x NCP_RTO: the packet again */
    struct pkt_hdr h;
    assert_true(fwh_tx_next(&h, NULL));
    assert_int_equal(h.type, PKT_WRITE);
    assert_int_equal(h.off, 0);
    ack_frame(PEER, 4, 0);
    fwh_run();
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    post_write(mtu(), 11);
    fwh_run();
    assert_true(fwh_tx_next(&h, NULL));
    assert_int_equal(h.type, PKT_WRITE);
    fh_advance(NCP_RTO + 1000u);
    fwh_run();
    assert_int_equal(stats().timeouts, 2); /* acknowledged once: NCP_RTO again */
}

/* The kept sum of outstanding grants equals the loop's (cc_out_audit); returns it. */
#define audit(holders) audit_at(holders, __LINE__)
static uint32_t audit_at(uint32_t want_holders, int line)
{
    uint32_t sum = 0, holders = 0;
    if (!cc_out_audit(&sum, &holders))
        fail_msg("line %d: kept sum %u holders %u differ from the loop's", line, sum, holders);
    if (holders != want_holders)
        fail_msg("line %d: %u holders, expected %u", line, holders, want_holders);
    return sum;
}

#define PNODES 6u
#define TABLE_PA 0xA0000u
#define PEER3 3u

/* Six nodes, flow control, two resident peer contexts backed by the host table (as test_peer.c). */
static int setup_flow_evict(void **state)
{
    (void)state;
    fwh_boot_xopts = NIC_XOPT_FLOW;
    fwh_boot(ME, PNODES, SECRET);
    fwh_ep_open(EP, PID);
    fwh_reg_proc(PID, EP);
    lpa = fwh_map(PID, LVA, LLEN, ALL_RIGHTS);
    fwh_reg_buf(PID, LBUF, LVA, LLEN, LKEY, ALL_RIGHTS);
    fwh_prefill(PID);
    struct nic_cmd t = {.op = NIC_CMD_PEER_TABLE, .a = TABLE_PA, .c = 0, .d = 2};
    assert_int_equal(fwh_cmd(&t), NIC_ST_OK);
    return 0;
}

/* A 64-byte write from `src` (its next sequence number, or its last again: a resend); the credit of
 * the ACK frame it brings (0xFFFF: none came, the frame was dropped). */
static uint32_t write_credit(uint16_t src, uint32_t off, int resend)
{
    static uint8_t a[64];
    struct pkt_hdr w = {.type = PKT_WRITE, .pid = PID, .buf = LBUF, .key = LKEY, .off = off, .len = 64,
                        .flags = PKT_F_LAST};
    if (resend)
        fwh.peer[src].tx_seq--;
    fwh_send_seq(src, &w, a);
    fwh_run();
    if (!fwh_tx_pending())
        return 0xFFFFu;
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.dst, src);
    return PKT_CREDIT(k.reason);
}

/* Flow control, receiver: a peer we have a connection with but have sent no ACK frame yet may
 * send its first packet (credit_init) at any time: that packet is a grant too. Our write to PEER2
 * creates the connection (both directions); PEER's first ACK frame then gets an equal share of two
 * holders (7), not the whole pool (14: with 12 senders starting at once the first one's 14 and the
 * others' first packets overran the 16-entry ring, nicsim.incast_ring_flow_start). Once PEER2's first
 * packet is in host memory its implicit grant is used up and it is granted what is free. */
static void receiver_counts_first_packets(void **state)
{
    struct pkt_hdr h;
    const uint8_t *p;
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 64, 8);
    struct nic_sq_entry e = fwh_write_wr(PEER2, LVA, LBUF, 64, RPID, RBUF, 0, RKEY, 9);
    fwh_post(EP, &e);
    fwh_run();
    assert_true(fwh_tx_next(&h, &p));
    assert_int_equal(h.type, PKT_WRITE);
    assert_int_equal(h.dst, PEER2);
    assert_int_equal(audit(1), 1);                 /* PEER2's first packet, not yet received */
    assert_int_equal(write_credit(PEER, 0x100, 0), 7); /* two holders: 14 / 2 */
    assert_int_equal(write_credit(PEER2, 0x200, 0), 7); /* PEER holds 7: min(14 / 2, 14 - 7) */
    assert_int_equal(audit(2), 14);
}

/* Flow control, receiver: the sum of outstanding grants grant() reads is kept as its terms change
 * (issue 14 item 5: it was a loop per ACK frame); after every kind of change it equals the loop
 * over every peer, and the credits are those of the loop (receiver_grants_from_its_pool's). */
static void receiver_sum_follows_every_update(void **state)
{
    (void)state;
    assert_int_equal(audit(0), 0);
    assert_int_equal(write_credit(PEER, 0, 0), 14); /* a grant (A derived): A holds 14 */
    assert_int_equal(audit(1), 14);
    assert_int_equal(write_credit(PEER2, 64, 0), 1); /* B: 1 (never 0) */
    assert_int_equal(audit(2), 15);
    for (unsigned i = 0; i < 3; i++) { /* A's packets arrive: ack_val advances, its grant shrinks */
        static uint8_t a[64];
        struct pkt_hdr w = {.type = PKT_WRITE, .pid = PID, .buf = LBUF, .key = LKEY, .off = 128 + 64 * i,
                            .len = 64, .flags = PKT_F_LAST};
        fwh_send_seq(PEER, &w, a);
    }
    fwh_run();
    assert_int_equal(PKT_CREDIT(tx_expect(PKT_ACK, NULL).reason), 11); /* its limit kept */
    assert_int_equal(audit(2), 12);
    /* C: no free slot, A (quiet, the clock hand's first) is evicted: its grant leaves the sum */
    assert_int_equal(write_credit(PEER3, 512, 0), 0xFFFFu);
    assert_int_equal(stats().peer_evictions, 1);
    assert_int_equal(audit(2), 2); /* B's 1, and C's first packet (derived, its frame dropped) */
    assert_int_equal(write_credit(PEER3, 512, 1), 7); /* C derived: an equal share, 14 / 2 */
    assert_int_equal(audit(2), 8);
    /* A again: B (quiet) evicted, A filled back: its grant (11) counts again */
    assert_int_equal(write_credit(PEER, 576, 0), 0xFFFFu);
    assert_int_equal(stats().peer_evictions, 2);
    assert_int_equal(stats().peer_fills, 1);
    assert_int_equal(audit(2), 18); /* C's 7, A's 11 again (filled: resident) */
    /* its resend: share 7, free 14 - 7, but its limit is kept (ack - 1 + 11): one packet used */
    assert_int_equal(write_credit(PEER, 576, 1), 10);
    assert_int_equal(audit(2), 17);
}

/* Flow control, receiver: the credit comes from a table of equal shares, not a divide per ACK
 * frame (issue 12); for every sum of others' grants and number of holders it is cc_grant's (lib/cc.c),
 * including no free slot (1, never 0) and more holders than ring slots (1). */
static void receiver_credit_without_divide(void **state)
{
    (void)state;
    unsigned bad = 0;
    for (uint32_t others = 0; others <= 40; others++)
        for (uint32_t holders = 0; holders <= 300; holders++)
            bad += !cc_grant_fast_check(others, holders);
    assert_int_equal(bad, 0);
    fwh_prefill(PID);
    assert_int_equal(write_credit(PEER, 0, 0), 14); /* one holder: the whole pool, as before */
    assert_int_equal(write_credit(PEER2, 64, 0), 1); /* none free: 1 */
}

/* Congestion control, receiver: a marked packet is counted and echoed once on the next ACK. */
static void receiver_echoes_a_mark(void **state)
{
    static uint8_t a[64];
    (void)state;
    fwh_prefill(PID);
    struct pkt_hdr w = {.type = PKT_WRITE, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0, .len = 64,
                        .flags = PKT_F_LAST | PKT_F_CE};
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.flags & PKT_F_ECE, PKT_F_ECE);
    assert_int_equal(PKT_CREDIT(k.reason), 0); /* no flow control: no credit */
    assert_memory_equal(fh_host(lpa, 64), a, 64);
    w.flags = PKT_F_LAST;
    w.off = 64;
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.flags & PKT_F_ECE, 0); /* echoed once */
    assert_int_equal(stats().ce_received, 1);
}

/* Congestion control, sender: window 1 at start; acknowledged without an echo it grows; an echo
 * halves it, once per round trip. */
static void sender_window_follows_echoes(void **state)
{
    uint32_t off = 0;
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 16 * mtu(), 5);
    post_write(16 * mtu(), 3);
    fwh_run();
    assert_int_equal(take_writes(&off), 1);
    ack_frame(PEER, 0, 0); /* a window (1) acknowledged without an echo: one more, 2 */
    fwh_run();
    assert_int_equal(take_writes(&off), 2);
    ack_frame(PEER, 0, 0); /* 2 more: 3 */
    fwh_run();
    assert_int_equal(take_writes(&off), 3);
    ack_frame(PEER, 0, 0); /* 3 more: 4 */
    fwh_run();
    assert_int_equal(take_writes(&off), 4);
    ack_frame(PEER, 0, PKT_F_ECE); /* echo: halved, 2 */
    fwh_run();
    assert_int_equal(take_writes(&off), 2);
    assert_int_equal(stats().cc_cuts, 1);
    ack_frame(PEER, 0, PKT_F_ECE); /* packets sent after the cut acknowledged: a round trip, cut again: 1 */
    fwh_run();
    assert_int_equal(take_writes(&off), 1);
    assert_int_equal(stats().cc_cuts, 2);
    struct pkt_hdr h = {.type = PKT_ACK, .ack = fwh.peer[PEER].rx_next - 1u, .flags = PKT_F_ECE};
    fwh_send(PEER, &h, NULL); /* an echo within the same window (nothing new acknowledged): no cut */
    fwh_run();
    assert_int_equal(stats().cc_cuts, 2);
}

/* Options off: no credit, no echo (the mark is still counted), the full window. */
static void off_changes_nothing(void **state)
{
    static uint8_t a[64];
    uint32_t off = 0;
    (void)state;
    fwh_prefill(PID);
    struct pkt_hdr w = {.type = PKT_WRITE, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x8000, .len = 64,
                        .flags = PKT_F_LAST | PKT_F_CE};
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.reason, 0);
    assert_int_equal(k.flags & PKT_F_ECE, 0);
    assert_int_equal(stats().ce_received, 1);
    fwh_fill_pattern(lpa, 8 * mtu(), 6);
    post_write(8 * mtu(), 4);
    fwh_run();
    assert_int_equal(take_writes(&off), 8);
}

/* INIT refuses option bits it does not know. */
static void init_refuses_unknown_options(void **state)
{
    (void)state;
    struct nic_cmd c = {.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = FWH_EV_LOG2, .d = ME | NODES << 16, .cache = 0x8};
    assert_int_equal(fwh_cmd(&c), NIC_ST_BAD_CMD);
    c.cache = 0x80 | NIC_XOPT_FLOW;
    assert_int_equal(fwh_cmd(&c), NIC_ST_BAD_CMD);
    /* nothing changed: the options stay off (the full window) */
    uint32_t off = 0;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 4 * mtu(), 7);
    post_write(4 * mtu(), 5);
    fwh_run();
    assert_int_equal(take_writes(&off), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(sender_obeys_credits, setup_flow),
        cmocka_unit_test_setup(sender_holds_at_the_limit, setup_flow),
        cmocka_unit_test_setup(receiver_grants_from_its_pool, setup_flow),
        cmocka_unit_test_setup(receiver_counts_first_packets, setup_flow),
        cmocka_unit_test_setup(sender_first_timeout_doubled, setup_flow),
        cmocka_unit_test_setup(receiver_sum_follows_every_update, setup_flow_evict),
        cmocka_unit_test_setup(receiver_credit_without_divide, setup_flow),
        cmocka_unit_test_setup(receiver_echoes_a_mark, setup_cc),
        cmocka_unit_test_setup(sender_window_follows_echoes, setup_cc),
        cmocka_unit_test_setup(off_changes_nothing, setup_off),
        cmocka_unit_test_setup(init_refuses_unknown_options, setup_off),
    };
    return FWH_RUN_TESTS("cc", tests) ? 1 : 0;
}
