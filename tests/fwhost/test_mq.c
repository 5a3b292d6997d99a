/*
 * test_mq.c - the NCP's message queues (ABI 2.2, firmware/src/mq.c), host-native (tests/fwhost):
 * receive posts and their refusals (no notify queue, queue 0, another key, a full ring), a send
 * frame placed into the oldest posted buffer with its NIC_EQE_RECV (queue, length, buffer,
 * offset, source node and process) after its data and acknowledged, buffers taken in post order,
 * a duplicate placed once; no buffer: BUSY answers up to NIC_MQ_RNR_TRIES, then refused
 * NIC_ST_RNR (nothing written); too long: refused NIC_ST_TOO_BIG and reported, the buffer kept;
 * unknown queue / wrong key refused; a failed placement reported NIC_ST_HOST_ERROR and placed again
 * in the next buffer; the initiator's frame of a send; the queue freed when its endpoint closes.
 */
#include "scen.h"

#define EQ 2u
#define EQ_PA 0x30000u
#define QID 2u
#define QKEY 0x77u
#define SPID 33u /* the sending process on PEER */

static int32_t cmd1(struct nic_cmd c)
{
    return fwh_cmd(&c);
}

static int32_t eq_open(uint16_t pid, uint32_t flags)
{
    memset(fh_host(EQ_PA, 4096), 0, 4096);
    return cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = EQ, .pid = pid, .a = EQ_PA, .c = 4, .d = flags});
}

static int eqe(uint32_t i, struct nic_eqe *e)
{
    memcpy(e, fh_host(EQ_PA + (i & 15u) * sizeof *e, sizeof *e), sizeof *e);
    return (e->phase & 1u) == (((i >> 4) & 1u) ^ 1u) && e->seq == i;
}

/* Posts [LVA + off, +len) to queue q with key k; returns the completion's status. */
static int32_t post_recv(uint32_t q, uint32_t k, uint32_t off, uint32_t len, uint64_t id)
{
    struct nic_sq_entry e = fwh_write_wr(ME, LVA + off, LBUF, len, 0, q, 0, k, id);
    struct nic_cqe c;
    e.op = NIC_OP_POST_RECV;
    fwh_post(EP, &e);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.wr_id_lo, (uint32_t)id);
    if (c.status == NIC_ST_OK)
        assert_int_equal(c.bytes, len);
    return c.status;
}

/* A send frame from PEER (process SPID) of len bytes of pattern seed. */
static struct pkt_hdr send_frame(uint32_t q, uint32_t k, uint32_t len, const uint8_t *a)
{
    struct pkt_hdr h = {.type = PKT_WRITE, .op = 0x1234, .pid = SPID, .buf = q, .key = k, .len = (uint16_t)len,
                        .flags = PKT_F_LAST | PKT_F_IMM | PKT_F_SEND};
    fwh_send_seq(PEER, &h, a);
    fwh_run();
    return h;
}

/* The next NACK the NCP sent (ACKs before it skipped). */
static struct pkt_hdr nack(void)
{
    struct pkt_hdr n;
    while (fwh_tx_next(&n, NULL))
        if (n.type == PKT_NACK)
            return n;
    fail_msg("no NACK sent");
    return n;
}

static uint8_t pat[8192];

static void fill_pat(uint32_t seed)
{
    for (uint32_t i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)(i * 13u + seed * 7u + 1u);
}

static void mq_post_refusals(void **state)
{
    (void)state;
    fwh_prefill(PID);
    assert_int_equal(post_recv(QID, QKEY, 0, 64, 1), NIC_ST_BAD_HANDLE); /* no notify queue */
    assert_int_equal(eq_open(PID, 0), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0, 64, 2), NIC_ST_BAD_HANDLE); /* a queue, not for notifications */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_CLOSE, .ep = EQ}), NIC_ST_OK);
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    assert_int_equal(post_recv(0, QKEY, 0, 64, 3), NIC_ST_BAD_HANDLE);             /* queue 0 is none */
    assert_int_equal(post_recv(NIC_MQ_QUEUES, QKEY, 0, 64, 4), NIC_ST_BAD_HANDLE); /* beyond the ids */
    assert_int_equal(post_recv(QID, QKEY, LLEN - 63, 64, 5), NIC_ST_BOUNDS);       /* the local check */
    for (uint32_t i = 0; i < NIC_MQ_DEPTH; i++)
        assert_int_equal(post_recv(QID, QKEY, i * 256u, 256, 10 + i), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0, 64, 20), NIC_ST_NO_RESOURCES); /* the ring is full */
    {
        /* unsignalled posts: only a failure completes */
        struct nic_sq_entry u = fwh_write_wr(ME, LVA, LBUF, 64, 0, QID + 1, 0, QKEY, 30);
        struct nic_cqe c;
        u.op = NIC_OP_POST_RECV;
        u.flags = 0;
        for (uint32_t i = 0; i <= NIC_MQ_DEPTH; i++) {
            u.wr_id_lo = 30 + i;
            fwh_post(EP, &u);
        }
        fwh_run();
        assert_true(fwh_cqe(EP, &c));
        assert_int_equal(c.wr_id_lo, 30 + NIC_MQ_DEPTH);
        assert_int_equal(c.status, NIC_ST_NO_RESOURCES);
    }
    assert_int_equal(post_recv(QID, QKEY + 1, 0, 64, 21), NIC_ST_KEY);      /* claimed with another key */
    /* another entry: a post with a remote process or offset is malformed */
    struct nic_sq_entry e = fwh_write_wr(ME, LVA, LBUF, 64, 1, QID, 0, QKEY, 22);
    struct nic_cqe c;
    e.op = NIC_OP_POST_RECV;
    fwh_post(EP, &e);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_BAD_DESC);
    assert_int_equal(fwh_tx_pending(), 0); /* a post sends nothing */
}

/* Two buffers, two messages: each into the oldest buffer, its bytes there and nothing past them,
 * its notification after its data, the ACK after the data; a duplicate is placed once. */
static void mq_send_placed_in_order(void **state)
{
    (void)state;
    struct nic_eqe e;
    fwh_prefill(PID);
    fill_pat(1);
    memset(fh_host(lpa, LLEN), 0xEE, LLEN);
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x100, 300, 1), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x2000, mtu(), 2), NIC_ST_OK);
    struct pkt_hdr h = send_frame(QID, QKEY, 300, pat);
    assert_memory_equal(fh_host(lpa + 0x100, 300), pat, 300);
    assert_int_equal(*fh_host(lpa + 0x100 + 300, 1), 0xEE);
    assert_int_equal(*fh_host(lpa + 0xFF, 1), 0xEE);
    assert_true(eqe(0, &e));
    assert_int_equal(e.type, NIC_EQE_RECV);
    assert_int_equal(e.a, QID);
    assert_int_equal(e.b, 300);
    assert_int_equal(e.c, LBUF);
    assert_int_equal(e.d, 0x100);
    assert_int_equal(e.ep, PEER);
    assert_int_equal(e.pid, SPID);
    assert_int_equal(e.status, NIC_ST_OK);
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.ack, h.seq + 1);
    /* the same frame again: a duplicate, not placed a second time */
    fwh_send(PEER, &h, pat);
    fwh_run();
    assert_false(eqe(1, &e));
    fill_pat(2);
    send_frame(QID, QKEY, mtu(), pat);
    assert_memory_equal(fh_host(lpa + 0x2000, mtu()), pat, mtu());
    assert_true(eqe(1, &e));
    assert_int_equal(e.b, mtu());
    assert_int_equal(e.d, 0x2000);
    struct nic_stats s = stats();
    assert_int_equal(s.mq_placed, 2);
    assert_int_equal(s.mq_refused, 0);
    assert_true(s.dup_packets >= 1);
}

/* No buffer: BUSY NACKs (the sender resends), then NIC_ST_RNR; a buffer posted in time takes it. */
static void mq_rnr(void **state)
{
    (void)state;
    struct nic_eqe e;
    fwh_prefill(PID);
    fill_pat(3);
    memset(fh_host(lpa, LLEN), 0xEE, LLEN);
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0, 64, 1), NIC_ST_OK);
    send_frame(QID, QKEY, 64, pat); /* takes the only buffer */
    tx_expect(PKT_ACK, NULL);
    /* the next: BUSY, resent twice, then a buffer: placed */
    struct pkt_hdr h = send_frame(QID, QKEY, 100, pat);
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_BUSY);
    assert_int_equal(n.seq, h.seq);
    fwh_send(PEER, &h, pat);
    fwh_run();
    n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_BUSY);
    assert_int_equal(post_recv(QID, QKEY, 0x1000, 200, 2), NIC_ST_OK);
    fwh_send(PEER, &h, pat);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x1000, 100), pat, 100);
    assert_true(eqe(1, &e));
    assert_int_equal(e.d, 0x1000);
    /* no buffer at all: NIC_MQ_RNR_TRIES BUSY answers, then the refusal; nothing written */
    memset(fh_host(lpa, LLEN), 0xEE, LLEN);
    fwh.peer[PEER].tx_seq = h.seq + 1;
    struct pkt_hdr g = send_frame(QID, QKEY, 64, pat);
    for (uint32_t i = 1; i <= NIC_MQ_RNR_TRIES; i++) {
        while (fwh_tx_next(&n, NULL) && n.type != PKT_NACK)
            ;
        assert_int_equal(n.type, PKT_NACK);
        assert_int_equal(n.reason, PKT_NACK_BUSY);
        fwh_send(PEER, &g, pat);
        fwh_run();
    }
    while (fwh_tx_next(&n, NULL) && n.type != PKT_NACK)
        ;
    assert_int_equal(n.reason, PKT_NACK_PROTECTION);
    assert_int_equal(n.status, NIC_ST_RNR);
    assert_int_equal(n.op, g.op);
    for (uint32_t i = 0; i < LLEN; i++)
        if (*fh_host(lpa + i, 1) != 0xEE)
            fail_msg("byte %u written", i);
    struct nic_stats s = stats();
    assert_int_equal(s.mq_rnr_nacks, 2 + NIC_MQ_RNR_TRIES);
    assert_int_equal(s.mq_refused, 1);
    assert_int_equal(s.mq_placed, 2);
    /* the sender's void resend is accepted; the next send lands once a buffer is there */
    struct pkt_hdr v = g;
    v.len = 0;
    v.flags |= PKT_F_VOID;
    fwh_send(PEER, &v, NULL);
    fwh_run();
    assert_int_equal(post_recv(QID, QKEY, 0x3000, 64, 3), NIC_ST_OK);
    send_frame(QID, QKEY, 64, pat);
    assert_memory_equal(fh_host(lpa + 0x3000, 64), pat, 64);
    assert_int_equal(stats().mq_placed, 3);
}

/* Too long for the oldest buffer: refused and reported, nothing written, the buffer kept; an
 * unknown queue and a wrong key: refused, counted. */
static void mq_too_big_and_protection(void **state)
{
    (void)state;
    struct nic_eqe e;
    fwh_prefill(PID);
    fill_pat(4);
    memset(fh_host(lpa, LLEN), 0xEE, LLEN);
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x200, 100, 1), NIC_ST_OK);
    struct pkt_hdr h = send_frame(QID, QKEY, 101, pat);
    struct pkt_hdr n = nack();
    assert_int_equal(n.reason, PKT_NACK_PROTECTION);
    assert_int_equal(n.status, NIC_ST_TOO_BIG);
    assert_int_equal(n.seq, h.seq);
    assert_true(eqe(0, &e));
    assert_int_equal(e.type, NIC_EQE_RECV);
    assert_int_equal(e.status, NIC_ST_TOO_BIG);
    assert_int_equal(e.b, 101);
    assert_int_equal(e.d, 0x200);
    for (uint32_t i = 0; i < LLEN; i++)
        if (*fh_host(lpa + i, 1) != 0xEE)
            fail_msg("byte %u written", i);
    /* the sender fails it and resends it void; the buffer takes the next message that fits */
    h.len = 0;
    h.flags |= PKT_F_VOID;
    fwh_send(PEER, &h, NULL);
    fwh_run();
    send_frame(QID, QKEY, 100, pat);
    assert_memory_equal(fh_host(lpa + 0x200, 100), pat, 100);
    assert_true(eqe(1, &e));
    assert_int_equal(e.status, NIC_ST_OK);
    /* protection */
    while (fwh_tx_next(&n, NULL))
        ;
    struct pkt_hdr b = send_frame(QID, QKEY + 1, 10, pat);
    n = nack();
    assert_int_equal(n.status, NIC_ST_KEY);
    b.len = 0;
    b.flags |= PKT_F_VOID;
    fwh_send(PEER, &b, NULL);
    fwh_run();
    send_frame(QID + 1, QKEY, 10, pat);
    n = nack();
    assert_int_equal(n.reason, PKT_NACK_PROTECTION);
    assert_int_equal(n.status, NIC_ST_BAD_HANDLE);
    struct nic_stats s = stats();
    assert_int_equal(s.mq_refused, 3);
    assert_int_equal(s.mq_placed, 1);
    assert_int_equal(s.protection_errors, 3);
}

/* A placement whose DMA fails uses up its buffer (reported NIC_ST_HOST_ERROR); the resend lands in
 * the next one. */
static void mq_dma_error(void **state)
{
    (void)state;
    struct nic_eqe e;
    fwh_prefill(PID);
    fill_pat(5);
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x400, 100, 1), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x800, 100, 2), NIC_ST_OK);
    fh_dma_fail(lpa + 0x400, lpa + 0x400 + 100, 1, 1);
    struct pkt_hdr h = send_frame(QID, QKEY, 100, pat);
    assert_true(eqe(0, &e));
    assert_int_equal(e.status, NIC_ST_HOST_ERROR);
    assert_int_equal(e.d, 0x400);
    fwh.peer[PEER].tx_seq = h.seq; /* not acknowledged: the peer resends it */
    send_frame(QID, QKEY, 100, pat);
    assert_true(eqe(1, &e));
    assert_int_equal(e.status, NIC_ST_OK);
    assert_int_equal(e.d, 0x800);
    assert_memory_equal(fh_host(lpa + 0x800, 100), pat, 100);
}

/* The initiator side: a send entry goes out as one WRITE with SEND | IMM | LAST, naming the queue,
 * its key and the sending process; completes when acknowledged. A closed endpoint frees its queue. */
static void mq_send_frame_and_close(void **state)
{
    (void)state;
    struct nic_cqe c;
    const uint8_t *pl;
    fwh_prefill(PID);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 8, LBUF, 77, 0, 5, 0, 0xC0FFEE, 9);
    e.flags |= NIC_WR_SEND;
    fwh_fill_pattern(lpa + 8, 77, 3);
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr h = tx_expect(PKT_WRITE, &pl);
    assert_int_equal(h.flags & (PKT_F_SEND | PKT_F_IMM | PKT_F_LAST), PKT_F_SEND | PKT_F_IMM | PKT_F_LAST);
    assert_int_equal(h.buf, 5);
    assert_int_equal(h.key, 0xC0FFEE);
    assert_int_equal(h.pid, PID);
    assert_int_equal(h.off, 0);
    assert_int_equal(h.len, 77);
    assert_memory_equal(pl, fh_host(lpa + 8, 77), 77);
    assert_false(fwh_cqe(EP, &c)); /* not before the ACK */
    fwh_ack(PEER);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 77);
    /* a send longer than a segment is malformed */
    e.len = mtu() + 1;
    e.wr_id_lo = 10;
    fwh_post(EP, &e);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_BAD_DESC);
    /* the queue is the endpoint's: closed, another key may claim it */
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    for (uint32_t i = 0; i < NIC_MQ_DEPTH; i++) /* a full ring */
        assert_int_equal(post_recv(QID, QKEY, 0, 64, 11), NIC_ST_OK);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = EP}), NIC_ST_OK);
    fwh_ep_open(EP, PID);
    assert_int_equal(post_recv(QID, QKEY + 9, 0, 64, 12), NIC_ST_OK); /* claimed afresh: an empty ring */
    struct pkt_hdr o = send_frame(QID, QKEY, 10, pat);
    (void)o;
    struct pkt_hdr n;
    while (fwh_tx_next(&n, NULL) && n.type != PKT_NACK)
        ;
    assert_int_equal(n.status, NIC_ST_KEY); /* the old key is gone */
}

/* Selective repeat (NIC_XOPT_SR) keeps sends in order (issue 15): a send ahead of the expected
 * number is dropped as a gap (not placed, no event, not in the SACK) while a write ahead of it is
 * placed and SACKed; when the hole's send arrives it takes the oldest buffer, the resent send the
 * next one: message order = send order. */
static int sr_setup(void **state)
{
    fwh_boot_xopts = NIC_XOPT_SR;
    return scen_setup(state);
}

static void mq_send_in_order_under_sr(void **state)
{
    (void)state;
    struct nic_eqe e;
    static uint8_t a[300], b[100], w[64];
    fwh_prefill(PID);
    memset(fh_host(lpa, LLEN), 0xEE, LLEN);
    for (unsigned i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)(i * 3u + 1u);
    for (unsigned i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)(i * 5u + 2u);
    memset(w, 0x5A, sizeof w);
    assert_int_equal(eq_open(PID, NIC_EQF_NOTIFY), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x100, 300, 1), NIC_ST_OK);
    assert_int_equal(post_recv(QID, QKEY, 0x2000, 300, 2), NIC_ST_OK);
    struct pkt_hdr h;
    while (fwh_tx_next(&h, NULL))
        ;
    const uint32_t base = fwh.peer[PEER].tx_seq;
    fwh.peer[PEER].tx_seq = base + 1; /* message 2 before message 1 */
    send_frame(QID, QKEY, sizeof b, b);
    fwh.peer[PEER].tx_seq = base + 2; /* a plain write behind it */
    struct pkt_hdr wr = {.type = PKT_WRITE, .op = 0x77, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x8000,
                         .len = sizeof w, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &wr, w);
    fwh_run();
    assert_false(eqe(0, &e));
    assert_int_equal(*fh_host(lpa + 0x100, 1), 0xEE);
    assert_memory_equal(fh_host(lpa + 0x8000, sizeof w), w, sizeof w); /* out of order: placed */
    uint32_t sack = 0, ack = 0;
    while (fwh_tx_next(&h, NULL))
        if (h.type == PKT_ACK || h.type == PKT_NACK) {
            ack = h.ack;
            sack = (uint32_t)h.off;
        }
    assert_int_equal(ack, base);
    assert_int_equal(sack & 0x7u, 0x4u); /* the write (base + 2) SACKed, the send (base + 1) not */
    fwh.peer[PEER].tx_seq = base; /* message 1: the oldest buffer */
    send_frame(QID, QKEY, sizeof a, a);
    assert_true(eqe(0, &e));
    assert_int_equal(e.type, NIC_EQE_RECV);
    assert_int_equal(e.b, sizeof a);
    assert_int_equal(e.d, 0x100);
    assert_memory_equal(fh_host(lpa + 0x100, sizeof a), a, sizeof a);
    fwh.peer[PEER].tx_seq = base + 1; /* message 2 resent: the next buffer */
    send_frame(QID, QKEY, sizeof b, b);
    assert_true(eqe(1, &e));
    assert_int_equal(e.b, sizeof b);
    assert_int_equal(e.d, 0x2000);
    assert_memory_equal(fh_host(lpa + 0x2000, sizeof b), b, sizeof b);
    assert_int_equal(*fh_host(lpa + 0x2000 + sizeof b, 1), 0xEE);
    ack = 0;
    while (fwh_tx_next(&h, NULL))
        if (h.type == PKT_ACK || h.type == PKT_NACK)
            ack = h.ack;
    assert_int_equal(ack, base + 3); /* over the write accepted before */
    assert_false(eqe(2, &e));
    struct nic_stats s = stats();
    assert_int_equal(s.mq_placed, 2);
    assert_int_equal(s.mq_refused, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(mq_post_refusals, scen_setup),
        cmocka_unit_test_setup(mq_send_placed_in_order, scen_setup),
        cmocka_unit_test_setup(mq_rnr, scen_setup),
        cmocka_unit_test_setup(mq_too_big_and_protection, scen_setup),
        cmocka_unit_test_setup(mq_dma_error, scen_setup),
        cmocka_unit_test_setup(mq_send_frame_and_close, scen_setup),
        cmocka_unit_test_setup(mq_send_in_order_under_sr, sr_setup),
    };
    return FWH_RUN_TESTS("mq", tests) ? 1 : 0;
}
