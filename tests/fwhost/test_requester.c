/*
 * test_requester.c - the NCP as requester and completer, host-native (tests/fwhost): send queue
 * entries, segmentation, translation misses on the send path, ACK/NACK consumption, completions.
 */
#include "scen.h"

#include "ncp_config.h"

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


/* A CQE must come now with this status, request index and byte count. */
static void expect_cqe(int32_t status, uint32_t req, uint32_t bytes)
{
    struct nic_cqe c;
    if (!fwh_cqe(EP, &c))
        fail_msg("no completion (expected status %d for request %u)", (int)status, (unsigned)req);
    assert_int_equal(c.status, status);
    assert_int_equal(c.req, req);
    assert_int_equal(c.sq_ci, (uint16_t)(req + 1));
    assert_int_equal(c.bytes, bytes);
}

static void no_cqe(void)
{
    struct nic_cqe c;
    if (fwh_cqe(EP, &c))
        fail_msg("unexpected completion: request %u status %d", (unsigned)c.req, (int)c.status);
}

/* An unsignalled write completes silently; a later signalled one says both retired. */
static void unsignalled_write_is_silent(void **state)
{
    (void)state;
    fwh_fill_pattern(lpa, 3000, 2);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 1000, RPID, RBUF, 0, RKEY, 1);
    e.flags = 0;
    fwh_post(EP, &e);
    e = fwh_write_wr(PEER, LVA + 1000, LBUF, 2000, RPID, RBUF, 1000, RKEY, 2);
    fwh_post(EP, &e);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 1, 2000);
    no_cqe();
}

/* A translation miss on the send path parks the endpoint: nothing is sent until the fill; other
 * endpoints are served meanwhile; the fill resumes it and the write goes out. */
static void send_miss_parks_fill_resumes(void **state)
{
    (void)state;
    const uint16_t ep2 = 2, pid2 = 6;
    fwh_ep_open(ep2, pid2);
    fwh_reg_proc(pid2, ep2);
    uint64_t pa2 = fwh_map(pid2, LVA, 4096, ALL_RIGHTS);
    fwh_reg_buf(pid2, 1, LVA, 4096, 7, ALL_RIGHTS);
    fwh_prefill(pid2);
    fwh_fill_pattern(lpa, 4096, 3);
    fwh_fill_pattern(pa2, 4096, 4);

    fwh.auto_fill = 0;
    post_write(0, 4096, 0, 10);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    assert_int_equal(fwh.last_miss.cache, NIC_CACHE_CBH); /* its local buffer first */
    assert_int_equal(fwh.last_miss.path, NIC_PATH_SEND);
    assert_int_equal(fwh.last_miss.pid, PID);
    assert_int_equal(fwh_tx_pending(), 0);
    /* endpoint 2 is not held up by the parked one */
    struct nic_sq_entry e = fwh_write_wr(PEER2, LVA, 1, 4096, RPID, RBUF, 0, RKEY, 20);
    fwh_post(ep2, &e);
    fwh_run();
    struct pkt_hdr h = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(h.dst, PEER2);
    assert_int_equal(fwh_tx_pending(), 0);
    /* the CBH fill: now its page misses */
    assert_int_equal(fwh_fill(NIC_CACHE_CBH, PID, LBUF), NIC_ST_OK);
    fwh_run();
    assert_int_equal(fwh.misses, 2);
    assert_int_equal(fwh.last_miss.cache, NIC_CACHE_VMH);
    assert_int_equal(fwh.last_miss.key, (uint32_t)((LVA >> 12) / fwh.info.cache[NIC_CACHE_VMH].line));
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(LVA >> 12)), NIC_ST_OK);
    fwh_run();
    expect_segments(0, 4096, 0, NULL);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, 4096);
    struct nic_stats s = stats();
    assert_int_equal(s.cache[NIC_CACHE_CBH].miss_cold_send, 1); /* first touch of each line */
    assert_int_equal(s.cache[NIC_CACHE_VMH].miss_cold_send, 1);
    assert_int_equal(s.cache[NIC_CACHE_CBH].miss_send + s.cache[NIC_CACHE_VMH].miss_send, 0);
    assert_int_equal(s.miss_requests, 2);
}

/* A PROTECTION NACK fails the operation with the receiver's status; the packet is resent VOID
 * (same sequence number, no data) and the completion, after its ACK, carries the status. */
static void protection_nack_fails_op_resends_void(void **state)
{
    (void)state;
    fwh_fill_pattern(lpa, 2048, 5);
    post_write(0, 2048, 0, 30);
    fwh_run();
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
    fwh.peer[PEER].rx_next = w.seq; /* refused: not received */
    /* a NACK naming another op changes nothing */
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_PROTECTION, .seq = w.seq, .ack = w.seq, .op = w.op + 1,
                        .status = NIC_ST_KEY};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(stats().nacks_stale, 1);
    n.op = w.op;
    fwh_send(PEER, &n, NULL);
    fwh_run();
    struct pkt_hdr v = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(v.seq, w.seq);
    assert_int_equal(v.op, w.op);
    assert_true(v.flags & PKT_F_VOID);
    assert_int_equal(v.len, 0);
    no_cqe();
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_KEY, 0, 0);
    struct nic_stats s = stats();
    assert_int_equal(s.refused_ops, 1);
    assert_int_equal(s.nacks_received, 2);
    assert_int_equal(s.retransmits, 1);
}

/* A MALFORMED NACK fails the op NIC_ST_BAD_DESC (whatever status it carries). */
static void malformed_nack_fails_bad_desc(void **state)
{
    (void)state;
    post_write(0, 100, 0, 31);
    fwh_run();
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
    fwh.peer[PEER].rx_next = w.seq;
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_MALFORMED, .seq = w.seq, .ack = w.seq, .op = w.op,
                        .status = NIC_ST_OK};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    assert_true(tx_expect(PKT_WRITE, NULL).flags & PKT_F_VOID);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_BAD_DESC, 0, 0);
}

/* A GAP NACK acknowledges what came before and resends from the gap (go-back-N). */
static void gap_nack_resends_from_gap(void **state)
{
    (void)state;
    uint32_t len = 3 * mtu();
    fwh_fill_pattern(lpa, len, 6);
    post_write(0, len, 0, 40);
    fwh_run();
    struct pkt_hdr s1 = tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    fwh.peer[PEER].rx_next = s1.seq + 1; /* the second was lost */
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_GAP, .seq = s1.seq + 2, .ack = s1.seq + 1};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    const uint8_t *p;
    for (uint32_t k = 1; k < 3; k++) {
        struct pkt_hdr r = tx_expect(PKT_WRITE, &p);
        assert_int_equal(r.seq, s1.seq + k);
        assert_int_equal(r.xlen, k * mtu());
        assert_memory_equal(p, fh_host(lpa + k * mtu(), mtu()), mtu());
    }
    assert_int_equal(fwh_tx_pending(), 0);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, len);
    assert_int_equal(stats().retransmits, 2);
}

/* A lost packet is resent when its timer fires. */
static void timeout_resends(void **state)
{
    (void)state;
    fwh_fill_pattern(lpa, 500, 7);
    post_write(0, 500, 0, 50);
    fwh_run();
    assert_int_equal(tx_lose_all(), 1);
    timer_fires();
    const uint8_t *p;
    struct pkt_hdr r = tx_expect(PKT_WRITE, &p);
    assert_int_equal(r.len, 500);
    assert_memory_equal(p, fh_host(lpa, 500), 500);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, 500);
    struct nic_stats s = stats();
    assert_int_equal(s.timeouts, 1);
    assert_int_equal(s.retransmits, 1);
    /* nothing in flight: the timer is off, at the latest once its old deadline passed (an ACK
     * that empties the window does not reprogram it: it fires early once, and is switched off) */
    if (fh_timer_armed(NULL))
        timer_fires();
    assert_false(fh_timer_armed(NULL));
    assert_int_equal(stats().timeouts, 1); /* the early firing is not a timeout */
    assert_int_equal(fwh_tx_pending(), 0);  /* and resent nothing */
}

/* A peer that never answers: the connection gives up, the write fails UNREACHABLE; the next
 * write to that peer starts a fresh exchange (RESYNC) and completes. */
static void silent_peer_gives_up(void **state)
{
    (void)state;
    post_write(0, 100, 0, 60);
    fwh_run();
    unsigned rounds = 0;
    struct nic_cqe c;
    while (!fwh_cqe(EP, &c)) {
        assert_true(++rounds < 64);
        tx_lose_all();
        timer_fires();
    }
    assert_int_equal(c.status, NIC_ST_UNREACHABLE);
    assert_int_equal(c.bytes, 0);
    struct nic_stats s = stats();
    assert_true(s.timeouts >= 8);
    post_write(0, 100, 0, 61);
    fwh_run();
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
    assert_true(w.flags & PKT_F_RESYNC);
    fwh.peer[PEER].rx_next = w.seq + 1;
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 1, 100);
}

/* BUSY: resent after the NACK delay, not at once. MISS: held until RESUME, then resent at once. */
static void busy_and_miss_nacks(void **state)
{
    (void)state;
    post_write(0, 64, 0, 70);
    fwh_run();
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
    fwh.peer[PEER].rx_next = w.seq;
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_BUSY, .seq = w.seq, .ack = w.seq, .op = w.op};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    timer_fires();
    assert_int_equal(tx_expect(PKT_WRITE, NULL).seq, w.seq);
    fwh.peer[PEER].rx_next = w.seq;
    n.reason = PKT_NACK_MISS;
    fwh_send(PEER, &n, NULL);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    struct pkt_hdr r = {.type = PKT_NACK, .reason = PKT_NACK_RESUME, .seq = 0, .ack = w.seq};
    fwh_send(PEER, &r, NULL);
    fwh_run();
    assert_int_equal(tx_expect(PKT_WRITE, NULL).seq, w.seq);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, 64);
    /* a RESUME with nothing held is ignored and counted */
    fwh_send(PEER, &r, NULL);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_stats s = stats();
    assert_int_equal(s.nacks_received, 4);
    assert_int_equal(s.nacks_ignored, 1);
}

/* Malformed and refused send queue entries complete with their error, in request order; the
 * good entry behind them completes OK. */
static void malformed_entries_complete_with_errors(void **state)
{
    (void)state;
    fwh_reg_buf(PID, 11, LVA, 4096, 1, NIC_RIGHT_LOCAL_WRITE); /* no local read right */
    struct nic_sq_entry good = fwh_write_wr(PEER, LVA, LBUF, 256, RPID, RBUF, 0, RKEY, 99), e[10];
    for (unsigned i = 0; i < 10; i++) {
        e[i] = good;
        e[i].wr_id_lo = i;
    }
    e[0].op = 7;
    e[1].len = 0;
    e[2].rbuf = PKT_MAX_BUF_ID + 1; /* (rnode = ME is a loopback since issue 15: not malformed) */
    e[3].rnode = NODES;
    e[4].reserved1[2] = 1;
    e[5].flags = 0x80;
    e[6].lbuf = 99;             /* not registered */
    e[7].laddr_lo -= 4096;      /* before its buffer */
    e[8].lbuf = 11;             /* no local read right */
    e[9].lbuf = PKT_MAX_BUF_ID + 1;
    static const int32_t want[10] = {NIC_ST_BAD_DESC, NIC_ST_BAD_DESC, NIC_ST_BAD_DESC,  NIC_ST_BAD_DESC,
                                     NIC_ST_BAD_DESC, NIC_ST_BAD_DESC, NIC_ST_BAD_HANDLE, NIC_ST_BOUNDS,
                                     NIC_ST_RIGHTS,   NIC_ST_BAD_HANDLE};
    for (unsigned i = 0; i < 10; i++)
        fwh_post(EP, &e[i]);
    fwh_post(EP, &good);
    fwh_run();
    for (unsigned i = 0; i < 10; i++) {
        struct nic_cqe c;
        assert_true(fwh_cqe(EP, &c));
        assert_int_equal(c.wr_id_lo, i);
        assert_int_equal(c.req, i);
        assert_int_equal(c.status, want[i]);
        assert_int_equal(c.bytes, 0);
    }
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL); /* only the good one went out */
    assert_int_equal(w.len, 256);
    assert_int_equal(fwh_tx_pending(), 0);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 10, 256);
    struct nic_stats s = stats();
    assert_int_equal(s.local_refused, 4);
    assert_int_equal(s.tx_packets, 1);
}

/* Doorbells outside a process's own queue are refused and counted. */
static void bad_doorbells_counted(void **state)
{
    (void)state;
    fh_doorbell(EP, NIC_DB_SQ_PI, 1000); /* beyond the ring */
    fh_doorbell(3, NIC_DB_SQ_PI, 1);     /* endpoint not open */
    fh_doorbell(0, 0x900, 1);            /* no such doorbell */
    fwh_run();
    struct nic_stats s = stats();
    assert_int_equal(s.doorbell_bad, 3);
    assert_int_equal(s.db_dropped, 0);
    assert_int_equal(fwh_tx_pending(), 0);
}

/* A read: request (fields), responses written to local memory, completion with the bytes. */
static void read_completes(void **state)
{
    (void)state;
    fwh_prefill(PID);
    uint32_t len = mtu() + 1000;
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 0x2010, LBUF, len, RPID, RBUF, 500, RKEY, 80);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr q = tx_expect(PKT_READ_REQ, NULL);
    assert_int_equal(q.pid, RPID);
    assert_int_equal(q.buf, RBUF);
    assert_int_equal(q.key, RKEY);
    assert_int_equal(q.off, 500);
    assert_int_equal(q.xlen, len);
    assert_int_equal(q.len, 0);
    fwh_ack(PEER);
    fwh_run();
    uint8_t data[8192];
    for (uint32_t i = 0; i < len; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    for (uint32_t off = 0; off < len; off += mtu()) {
        uint32_t n = len - off < mtu() ? len - off : mtu();
        struct pkt_hdr r = {.type = PKT_READ_RESP, .op = q.op, .off = off, .len = (uint16_t)n,
                            .flags = off + n == len ? PKT_F_LAST : 0};
        fwh_send_seq(PEER, &r, data + off);
    }
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, len);
    assert_memory_equal(fh_host(lpa + 0x2010, len), data, len);
    struct pkt_hdr a = tx_expect(PKT_ACK, NULL);
    assert_int_equal(a.ack, fwh.peer[PEER].tx_seq);
}

/* A response whose destination page misses is dropped with a MISS NACK; the fill brings a
 * RESUME, the responder resends, the read completes. */
static void read_response_miss_resume(void **state)
{
    (void)state;
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 0x5000, LBUF, 700, RPID, RBUF, 0, RKEY, 83);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr q = tx_expect(PKT_READ_REQ, NULL);
    fwh_ack(PEER);
    fwh.auto_fill = 0;
    uint8_t data[700];
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i ^ 0x5A);
    struct pkt_hdr r = {.type = PKT_READ_RESP, .op = q.op, .len = 700, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &r, data);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_MISS);
    assert_int_equal(n.seq, r.seq);
    assert_int_equal(n.ack, r.seq); /* not delivered */
    assert_int_equal(fwh.last_miss.cache, NIC_CACHE_VMH);
    assert_int_equal(fwh.last_miss.path, NIC_PATH_RECV);
    no_cqe();
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)((LVA + 0x5000) >> 12)), NIC_ST_OK);
    fwh_run();
    n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_RESUME);
    assert_int_equal(n.seq, r.seq); /* resend from here */
    fwh.peer[PEER].tx_seq = r.seq;
    fwh_send_seq(PEER, &r, data);
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, 700);
    assert_memory_equal(fh_host(lpa + 0x5000, 700), data, 700);
    struct nic_stats s = stats();
    assert_int_equal(s.drops_miss, 1);
    assert_int_equal(s.nacks_sent, 2);
}

/* Responses that match no live read are discarded and counted; a VOID response fails the read
 * with the responder's status. */
static void read_void_and_stale_responses(void **state)
{
    (void)state;
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 1000, RPID, RBUF, 0, RKEY, 81);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr q = tx_expect(PKT_READ_REQ, NULL);
    fwh_ack(PEER);
    uint8_t junk[1000];
    memset(junk, 0xEE, sizeof junk);
    fwh_fill_pattern(lpa, 1000, 8);
    struct pkt_hdr r = {.type = PKT_READ_RESP, .op = q.op ^ 0x40, .off = 0, .len = 1000, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &r, junk); /* not its op */
    r.op = q.op;
    r.len = 999; /* not its length */
    fwh_send_seq(PEER, &r, junk);
    fwh_run();
    assert_true(fwh_check_pattern(lpa, 1000, 8)); /* nothing written */
    no_cqe();
    r = (struct pkt_hdr){.type = PKT_READ_RESP, .op = q.op, .flags = PKT_F_VOID | PKT_F_LAST, .status = NIC_ST_HOST_ERROR};
    fwh_send_seq(PEER, &r, NULL);
    fwh_run();
    expect_cqe(NIC_ST_HOST_ERROR, 0, 0);
    assert_true(fwh_check_pattern(lpa, 1000, 8));
    assert_int_equal(stats().stale_resps, 2);
}

/* The responder goes silent after acknowledging the request: the read fails UNREACHABLE (its
 * timer, driven by the fake's clock). */
static void read_timeout_unreachable(void **state)
{
    (void)state;
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 1000, RPID, RBUF, 0, RKEY, 82);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    tx_expect(PKT_READ_REQ, NULL);
    fwh_ack(PEER);
    fwh_run();
    struct nic_cqe c;
    unsigned rounds = 0;
    uint32_t t0 = fh_now();
    while (!fwh_cqe(EP, &c)) {
        assert_true(++rounds < 32);
        timer_fires();
    }
    assert_int_equal(c.status, NIC_ST_UNREACHABLE);
    assert_true(fh_now() - t0 > 10000000u); /* tens of milliseconds of silence, not a packet timeout */
    assert_int_equal(fwh_tx_pending(), 0);
    /* a response after that finds no read: discarded */
    struct pkt_hdr r = {.type = PKT_READ_RESP, .op = c.req, .off = 0, .len = 0, .flags = PKT_F_VOID};
    fwh_send_seq(PEER, &r, NULL);
    fwh_run();
    assert_int_equal(stats().stale_resps, 1);
}

/* The host DMA of a write's source fails: the segment goes VOID, the write fails HOST_ERROR. */
static void source_dma_error_voids_segment(void **state)
{
    (void)state;
    fwh_prefill(PID);
    fh_dma_fail(lpa, lpa + LLEN, 1, FH_DMA_HOST_ERR);
    post_write(0, 300, 0, 90);
    fwh_run();
    struct pkt_hdr w = tx_expect(PKT_WRITE, NULL);
    assert_true(w.flags & PKT_F_VOID);
    assert_int_equal(w.len, 0);
    /* gated (NCP_TX_GATE: both builders gate a payload in one DMA request): the MAC voided the
     * frame, its VOID copy went instead */
    assert_int_equal(fh_mac_tx_voided(), NCP_TX_GATE ? 1u : 0u);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_HOST_ERROR, 0, 0);
}

/* EP_CLOSE: outstanding requests complete FLUSHED in order; answered BUSY while its packets are in
 * flight, OK once they are acknowledged; the endpoint takes no more entries. */
static void ep_close_flushes(void **state)
{
    (void)state;
    post_write(0, 100, 0, 100);
    post_write(100, 100, 100, 101);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    struct nic_cmd c = {.op = NIC_CMD_EP_CLOSE, .ep = EP};
    assert_int_equal(fwh_cmd(&c), NIC_ST_BUSY);
    expect_cqe(NIC_ST_FLUSHED, 0, 0);
    expect_cqe(NIC_ST_FLUSHED, 1, 0);
    post_write(0, 100, 0, 102); /* refused: closed */
    fwh_ack(PEER);
    fwh_run();
    assert_int_equal(fwh_cmd(&c), NIC_ST_OK);
    no_cqe();
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_stats s = stats();
    assert_int_equal(s.close_busy, 1);
    assert_int_equal(s.doorbell_bad, 1);
    assert_int_equal(fwh_cmd(&c), NIC_ST_BAD_CMD); /* closed already */
}

/* Streams (the fast path's case, and around it): a 64 KiB aligned write and an unaligned one
 * across pages, acknowledged in pieces; every segment's bytes and header checked. */
static void write_streams(void **state)
{
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 14);
    uint32_t seq;
    post_write(0, LLEN, 0, 200);
    post_write(0x123, 3 * mtu() + 77, 0x10, 201);
    fwh_run();
    /* the window may hold fewer than all: acknowledge as they come */
    uint32_t done = 0;
    struct pkt_hdr h;
    const uint8_t *p;
    uint32_t a_off = 0, b_off = 0, b_len = 3 * mtu() + 77;
    for (unsigned round = 0; round < 64 && done < 2; round++) {
        while (fwh_tx_next(&h, &p)) {
            assert_int_equal(h.type, PKT_WRITE);
            if (a_off < LLEN) {
                assert_int_equal(h.off, a_off);
                assert_memory_equal(p, fh_host(lpa + a_off, h.len), h.len);
                a_off += h.len;
            } else {
                assert_int_equal(h.off, 0x10 + b_off);
                assert_memory_equal(p, fh_host(lpa + 0x123 + b_off, h.len), h.len);
                b_off += h.len;
            }
        }
        fwh_ack(PEER);
        fwh_run();
        struct nic_cqe c;
        while (fwh_cqe(EP, &c)) {
            assert_int_equal(c.status, NIC_ST_OK);
            assert_int_equal(c.req, done);
            assert_int_equal(c.bytes, done ? b_len : LLEN);
            done++;
        }
    }
    (void)seq;
    assert_int_equal(done, 2);
    assert_int_equal(a_off, LLEN);
    assert_int_equal(b_off, b_len);
    assert_int_equal(stats().retransmits, 0);
}

/* A retransmission whose source pages were deregistered meanwhile: resent VOID, the write fails
 * NIC_ST_BAD_HANDLE (a void segment never counts as delivered). */
static void resend_after_deregistration_goes_void(void **state)
{
    (void)state;
    fwh_prefill(PID);
    post_write(0, 200, 0, 300);
    fwh_run();
    tx_lose_all();
    fwh_unmap(PID, LVA, 4096);
    uint32_t line = (uint32_t)((LVA >> 12) / fwh.info.cache[NIC_CACHE_VMH].line);
    struct nic_cmd inv = {.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID, .key = line, .c = 1};
    assert_int_equal(fwh_cmd(&inv), NIC_ST_OK);
    timer_fires();
    struct pkt_hdr h;
    int voided = 0;
    while (fwh_tx_next(&h, NULL)) /* after the fill that says "not registered" */
        if (h.type == PKT_WRITE) {
            assert_true(h.flags & PKT_F_VOID);
            voided = 1;
        }
    if (!voided) {
        timer_fires();
        assert_true(tx_expect(PKT_WRITE, NULL).flags & PKT_F_VOID);
    }
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_BAD_HANDLE, 0, 0);
    struct nic_stats s = stats();
    assert_int_equal(s.void_fails, 1);
    assert_int_equal(s.local_denied, 1);
}

/* EP_CLOSE of an endpoint parked on a miss with entries never taken: every one completes FLUSHED,
 * in order, and the close is answered OK (nothing of it in flight). */
static void ep_close_flushes_untaken_entries(void **state)
{
    (void)state;
    fwh.auto_fill = 0;
    for (unsigned i = 0; i < 3; i++)
        post_write(i * 100u, 100, 0, 400 + i);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_cmd c = {.op = NIC_CMD_EP_CLOSE, .ep = EP};
    assert_int_equal(fwh_cmd(&c), NIC_ST_OK);
    for (unsigned i = 0; i < 3; i++) {
        struct nic_cqe q;
        assert_true(fwh_cqe(EP, &q));
        assert_int_equal(q.status, NIC_ST_FLUSHED);
        assert_int_equal(q.req, i);
        assert_int_equal(q.wr_id_lo, 400 + i);
        assert_int_equal(q.op, NIC_OP_RDMA_WRITE);
    }
    no_cqe();
    /* the endpoint opens again, fresh; the driver answers the miss it had left (the NCP merges
     * later lookups of the line into that one until it expires) */
    fwh.auto_fill = 1;
    fwh_ep_open(EP, PID);
    fwh_prefill(PID);
    post_write(0, 100, 0, 410);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 0, 100);
}

/* A write refused while most of its segments are still to be sent (the MAC holds every frame, so
 * the frame pool runs dry): the refused segment goes again VOID as soon as a frame is free, the
 * segments not yet sent are never sent, the op completes with the refusal's status. */
static void refused_write_skips_unsent_segments(void **state)
{
    (void)state;
    const uint32_t nseg = 12, len = nseg * mtu();
    fwh_prefill(PID);
    fh_mac_hold(1);
    assert_true(len <= LLEN);
    post_write(0, len, 0, 500);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0); /* all held in the MAC */
    uint32_t s1 = fwh.peer[PEER].rx_next;
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_PROTECTION, .seq = s1, .ack = s1,
                        .status = NIC_ST_BOUNDS};
    /* its op id: as the segments carry it (op ids are the NCP's): the first frame leaves */
    assert_int_equal(fh_mac_send(1), 1);
    struct pkt_hdr first = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(first.seq, s1);
    uint32_t k = 1;
    struct pkt_hdr h;
    while (fwh_tx_next(&h, NULL)) {
        assert_int_equal(h.type, PKT_WRITE);
        assert_false(h.flags & PKT_F_VOID);
        k++;
    }
    fwh.peer[PEER].rx_next = s1; /* none arrived */
    n.op = first.op;
    fwh_send(PEER, &n, NULL);
    fh_mac_hold(0);
    fwh_run();
    /* the refused segment again, VOID, and what followed it in the window (go-back-N: the op has
     * failed, so VOID too); nothing beyond what had been sent */
    uint32_t top = s1 + k, void_s1 = 0;
    while (fwh_tx_next(&h, NULL)) {
        assert_int_equal(h.type, PKT_WRITE);
        assert_true(h.seq - s1 < nseg);
        if (h.seq == s1) {
            assert_true(h.flags & PKT_F_VOID);
            void_s1 = 1;
        }
        if (h.seq >= top)
            top = h.seq + 1;
    }
    assert_true(void_s1);
    assert_true(top - s1 < nseg); /* the rest was never sent */
    fwh.peer[PEER].rx_next = top;
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_BOUNDS, 0, 0);
}

/* A read request refused by the target (PROTECTION NACK): the read fails at once with the status;
 * the request goes again VOID (asking for nothing). */
static void refused_read_request(void **state)
{
    (void)state;
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 3000, RPID, RBUF, 0, RKEY, 600);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr q = tx_expect(PKT_READ_REQ, NULL);
    fwh.peer[PEER].rx_next = q.seq;
    struct pkt_hdr n = {.type = PKT_NACK, .reason = PKT_NACK_PROTECTION, .seq = q.seq, .ack = q.seq, .op = q.op,
                        .status = NIC_ST_KEY};
    fwh_send(PEER, &n, NULL);
    fwh_run();
    expect_cqe(NIC_ST_KEY, 0, 0);
    struct pkt_hdr v = tx_expect(PKT_READ_REQ, NULL);
    assert_int_equal(v.seq, q.seq);
    assert_true(v.flags & PKT_F_VOID || v.xlen != q.xlen); /* nothing asked of the target */
    assert_int_equal(stats().refused_ops, 1);
}

/* A read response for a destination page without the local write right: nothing written, the read
 * fails NIC_ST_RIGHTS (the response is consumed). */
static void read_response_destination_denied(void **state)
{
    (void)state;
    const uint64_t va = LVA + 0x200000u;
    uint64_t pa = fwh_map(PID, va, 4096, NIC_RIGHT_LOCAL_READ); /* the page: no local write */
    fwh_reg_buf(PID, 30, va, 4096, 30, NIC_RIGHT_LOCAL_WRITE);
    fwh_prefill(PID);
    memset(fh_host(pa, 4096), 0x42, 4096);
    struct nic_sq_entry e = fwh_write_wr(PEER, va, 30, 100, RPID, RBUF, 0, RKEY, 700);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr q = tx_expect(PKT_READ_REQ, NULL);
    fwh_ack(PEER);
    uint8_t data[100];
    memset(data, 0x99, sizeof data);
    struct pkt_hdr r = {.type = PKT_READ_RESP, .op = q.op, .len = 100, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &r, data);
    fwh_run();
    expect_cqe(NIC_ST_RIGHTS, 0, 0);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(*fh_host(pa + i, 1), 0x42);
    assert_int_equal(stats().local_denied, 1);
}

/* More completions than the NCP can stage while the DMA engine holds them: they wait and all come,
 * in request order, when the engine moves again. */
static void completions_wait_for_staging(void **state)
{
    (void)state;
    const unsigned n = fwh.info.sq_entries; /* a full send queue (more would overwrite untaken slots) */
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 0);
    e.op = 7; /* malformed: completes at once, BAD_DESC */
    fh_dma_hold(1);
    for (unsigned i = 0; i < n; i++) {
        e.wr_id_lo = 1000 + i;
        fwh_post(EP, &e);
        fh_run(); /* one doorbell, one pass: one malformed entry per turn */
    }
    struct nic_cqe c;
    assert_false(fwh_cqe(EP, &c));
    fh_dma_hold(0);
    fwh_run();
    for (unsigned i = 0; i < n; i++) {
        assert_true(fwh_cqe(EP, &c));
        assert_int_equal(c.req, i);
        assert_int_equal(c.wr_id_lo, 1000 + i);
        assert_int_equal(c.status, NIC_ST_BAD_DESC);
    }
    no_cqe();
}

/* One endpoint drains at a time: EP_CLOSE of another meanwhile is answered BUSY and that endpoint
 * keeps running; once the first is closed, the second closes. */
static void second_close_while_draining_is_busy(void **state)
{
    (void)state;
    const uint16_t ep2 = 2, pid2 = 6;
    fwh_ep_open(ep2, pid2);
    fwh_reg_proc(pid2, ep2);
    fwh_map(pid2, LVA, 4096, ALL_RIGHTS);
    fwh_reg_buf(pid2, 1, LVA, 4096, 7, ALL_RIGHTS);
    fwh_prefill(pid2);
    post_write(0, 100, 0, 800);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    struct nic_cmd c1 = {.op = NIC_CMD_EP_CLOSE, .ep = EP}, c2 = {.op = NIC_CMD_EP_CLOSE, .ep = ep2};
    assert_int_equal(fwh_cmd(&c1), NIC_ST_BUSY); /* its write is in flight */
    assert_int_equal(fwh_cmd(&c2), NIC_ST_BUSY); /* another endpoint is draining */
    struct nic_sq_entry e = fwh_write_wr(PEER2, LVA, 1, 50, RPID, RBUF, 0, RKEY, 801);
    fwh_post(ep2, &e); /* still open: served */
    fwh_run();
    assert_int_equal(tx_expect(PKT_WRITE, NULL).dst, PEER2);
    fwh_ack(PEER);
    fwh_ack(PEER2);
    fwh_run();
    assert_int_equal(fwh_cmd(&c1), NIC_ST_OK);
    assert_int_equal(fwh_cmd(&c2), NIC_ST_OK);
    struct nic_cqe q;
    assert_true(fwh_cqe(ep2, &q));
    assert_int_equal(q.status, NIC_ST_OK);
    assert_int_equal(q.wr_id_lo, 801);
}


/* Loopback (issue 15): a write and a read to another process of this node go through the NCP's
 * own receive path: the bytes land, no frame reaches the MAC, and a wrong key is refused as from a
 * remote peer (nothing written), the next request completing. */
static void loopback_write_read_and_wrong_key(void **state)
{
    enum { TEP = 2, TPID = 7, TBUF = 6, TKEY = 0x7711u, TLEN = 16384 };
    const uint64_t tva = 0x0F0020000000ull;
    uint8_t before[TLEN];
    (void)state;

    fwh_ep_open(TEP, TPID);
    fwh_reg_proc(TPID, TEP);
    uint64_t tpa = fwh_map(TPID, tva, TLEN, ALL_RIGHTS);
    fwh_reg_buf(TPID, TBUF, tva, TLEN, TKEY, ALL_RIGHTS);
    fwh_fill_pattern(lpa, 10000, 3);
    fwh_fill_pattern(tpa, TLEN, 4);
    struct nic_sq_entry e = fwh_write_wr(ME, LVA, LBUF, 10000, TPID, TBUF, 100, TKEY, 1);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0); /* nothing went to the MAC */
    expect_cqe(NIC_ST_OK, 0, 10000);
    assert_memory_equal(fh_host(tpa + 100, 10000), fh_host(lpa, 10000), 10000);
    /* read it back elsewhere in the local buffer */
    e = fwh_write_wr(ME, LVA + 20000, LBUF, 10000, TPID, TBUF, 100, TKEY, 2);
    e.op = NIC_OP_RDMA_READ;
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    expect_cqe(NIC_ST_OK, 1, 10000);
    assert_memory_equal(fh_host(lpa + 20000, 10000), fh_host(lpa, 10000), 10000);
    /* a wrong key: refused, nothing written */
    memcpy(before, fh_host(tpa, TLEN), TLEN);
    e = fwh_write_wr(ME, LVA, LBUF, 4096, TPID, TBUF, 0, TKEY ^ 1u, 3);
    fwh_post(EP, &e);
    fwh_run();
    expect_cqe(NIC_ST_KEY, 2, 0);
    assert_memory_equal(fh_host(tpa, TLEN), before, TLEN);
    e = fwh_write_wr(ME, LVA, LBUF, 64, TPID, TBUF, 0, TKEY, 4);
    fwh_post(EP, &e);
    fwh_run();
    expect_cqe(NIC_ST_OK, 3, 64);
    assert_memory_equal(fh_host(tpa, 64), fh_host(lpa, 64), 64);
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_stats s = stats();
    assert_int_equal(s.tx_packets, 0);
    assert_true(s.loop_frames >= 3 + 3 + 1 + 1); /* the data packets at least, and their answers */
    assert_int_equal(s.protection_errors, 1);
    assert_int_equal(s.refused_ops, 1);
}

/* An inline write (ABI 2.4) of `len` bytes: its data packed into the entry's data words; laddr
 * and lbuf hold data, not a registered buffer. */
static struct nic_sq_entry inline_wr(uint16_t rnode, const uint8_t *data, uint32_t len, uint16_t rpid, uint32_t rbuf,
                                     uint64_t roff, uint32_t rkey, uint64_t wr_id)
{
    struct nic_sq_entry e = fwh_write_wr(rnode, 0, 0, len, rpid, rbuf, roff, rkey, wr_id);
    e.flags |= NIC_WR_INLINE;
    nic_sqe_inline_pack(&e, data, len);
    return e;
}

/* DMA reads from host memory completed so far (the NCP's data and entry fetches). */
static uint32_t host_reads(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < fh_dma_count(); i++)
        n += !fh_dma_log(i)->to_host;
    return n;
}

/* Inline writes (ABI 2.4): the frame carries the entry's bytes, every size 1..NIC_INLINE_MAX
 * (partial last words), with no DMA read and no local buffer check (laddr and lbuf are data that
 * names no registered buffer); the completion says the bytes; a lost frame's retransmission
 * carries the same bytes, read from the slot again; an unsignalled one completes silently. */
static void inline_write_sends_entry_bytes(void **state)
{
    uint8_t data[NIC_INLINE_MAX + 2]; /* (a source at data + len % 3) */
    (void)state;
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0xA0u + i * 7u);
    uint32_t reads0 = host_reads(), req = 0;
    for (uint32_t len = 1; len <= NIC_INLINE_MAX; len++, req++) {
        struct nic_sq_entry e = inline_wr(PEER, data + (len % 3u), len, RPID, RBUF, 8u * len, RKEY, 100u + len);
        fwh_post(EP, &e);
        fwh_run();
        const uint8_t *p;
        struct pkt_hdr h = tx_expect(PKT_WRITE, &p);
        assert_int_equal(h.len, len);
        assert_int_equal(h.off, 8u * len);
        assert_int_equal(h.xlen, 0);
        assert_int_equal(h.buf, RBUF);
        assert_int_equal(h.key, RKEY);
        assert_int_equal(h.flags & (PKT_F_LAST | PKT_F_VOID), PKT_F_LAST);
        assert_memory_equal(p, data + (len % 3u), len);
        assert_int_equal(fwh_tx_pending(), 0);
        fwh_ack(PEER);
        fwh_run();
        expect_cqe(NIC_ST_OK, req, len);
    }
    assert_int_equal(host_reads(), reads0); /* no data read from host memory */
    /* lost, then resent from the slot: the same bytes */
    struct nic_sq_entry e = inline_wr(PEER, data, 19, RPID, RBUF, 0, RKEY, 7);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(tx_lose_all(), 1);
    timer_fires();
    const uint8_t *p;
    struct pkt_hdr r = tx_expect(PKT_WRITE, &p);
    assert_int_equal(r.len, 19);
    assert_memory_equal(p, data, 19);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, req++, 19);
    /* unsignalled: silent; the next signalled one retires both */
    e = inline_wr(PEER, data, 4, RPID, RBUF, 0, RKEY, 8);
    e.flags &= (uint8_t)~NIC_WR_SIGNALED;
    fwh_post(EP, &e);
    e = inline_wr(PEER, data + 4, 4, RPID, RBUF, 4, RKEY, 9);
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr a = tx_expect(PKT_WRITE, &p);
    assert_memory_equal(p, data, 4);
    struct pkt_hdr b = tx_expect(PKT_WRITE, &p);
    assert_memory_equal(p, data + 4, 4);
    assert_int_equal(b.seq, a.seq + 1);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, req + 1, 4);
    no_cqe();
    /* with an immediate (reserved1[0], not a data word): the last (only) segment carries it */
    e = inline_wr(PEER, data + 1, 21, RPID, RBUF, 64, RKEY, 10);
    e.flags |= NIC_WR_IMM;
    e.reserved1[0] = 0xBEEF;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr m = tx_expect(PKT_WRITE, &p);
    assert_int_equal(m.len, 21);
    assert_int_equal(m.flags & (PKT_F_IMM | PKT_F_LAST), PKT_F_IMM | PKT_F_LAST);
    assert_int_equal(m.reason, 0xBEEF);
    assert_memory_equal(p, data + 1, 21);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, req + 2, 21);
    struct nic_stats s = stats();
    assert_int_equal(s.local_refused, 0);
    assert_int_equal(s.retransmits, 1);
    assert_int_equal(host_reads(), reads0);
}

/* Malformed inline entries complete NIC_ST_BAD_DESC, in request order, and send nothing: too
 * long, on a read, with a stray flag, with reserved0 set; the good one after them goes out. */
static void inline_malformed_entries_refused(void **state)
{
    uint8_t data[32];
    (void)state;
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)i;
    struct nic_sq_entry e[4];
    for (unsigned i = 0; i < 4; i++)
        e[i] = inline_wr(PEER, data, 8, RPID, RBUF, 0, RKEY, i);
    e[0].len = NIC_INLINE_MAX + 1u;
    e[1].op = NIC_OP_RDMA_READ;
    e[2].flags |= 0x40u;
    e[3].reserved0 = 1;
    for (unsigned i = 0; i < 4; i++)
        fwh_post(EP, &e[i]);
    struct nic_sq_entry good = inline_wr(PEER, data + 3, 5, RPID, RBUF, 0, RKEY, 4);
    fwh_post(EP, &good);
    fwh_run();
    for (unsigned i = 0; i < 4; i++)
        expect_cqe(NIC_ST_BAD_DESC, i, 0);
    const uint8_t *p;
    struct pkt_hdr h = tx_expect(PKT_WRITE, &p);
    assert_int_equal(h.len, 5);
    assert_memory_equal(p, data + 3, 5);
    assert_int_equal(fwh_tx_pending(), 0);
    fwh_ack(PEER);
    fwh_run();
    expect_cqe(NIC_ST_OK, 4, 5);
    assert_int_equal(stats().local_refused, 0);
}

/* An inline write to this node itself (loopback): the bytes land in the target buffer; with a
 * wrong key refused and nothing written. */
static void inline_loopback_write(void **state)
{
    enum { TEP = 2, TPID = 7, TBUF = 6, TKEY = 0x7711u, TLEN = 4096 };
    const uint64_t tva = 0x0F0020000000ull;
    uint8_t data[NIC_INLINE_MAX], before[64];
    (void)state;
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0x31u * i + 5u);
    fwh_ep_open(TEP, TPID);
    fwh_reg_proc(TPID, TEP);
    uint64_t tpa = fwh_map(TPID, tva, TLEN, ALL_RIGHTS);
    fwh_reg_buf(TPID, TBUF, tva, TLEN, TKEY, ALL_RIGHTS);
    fwh_fill_pattern(tpa, TLEN, 4);
    memcpy(before, fh_host(tpa + 100, 64), 64);
    struct nic_sq_entry e = inline_wr(ME, data, 23, TPID, TBUF, 100, TKEY, 1);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    expect_cqe(NIC_ST_OK, 0, 23);
    assert_memory_equal(fh_host(tpa + 100, 23), data, 23);
    assert_memory_equal(fh_host(tpa + 123, 41), before + 23, 41); /* nothing past its bytes */
    e = inline_wr(ME, data, 8, TPID, TBUF, 200, TKEY ^ 1u, 2);
    memcpy(before, fh_host(tpa + 200, 64), 64);
    fwh_post(EP, &e);
    fwh_run();
    expect_cqe(NIC_ST_KEY, 1, 0);
    assert_memory_equal(fh_host(tpa + 200, 64), before, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(write_acked_completes, scen_setup),
        cmocka_unit_test_setup(loopback_write_read_and_wrong_key, scen_setup),
        cmocka_unit_test_setup(unsignalled_write_is_silent, scen_setup),
        cmocka_unit_test_setup(send_miss_parks_fill_resumes, scen_setup),
        cmocka_unit_test_setup(protection_nack_fails_op_resends_void, scen_setup),
        cmocka_unit_test_setup(malformed_nack_fails_bad_desc, scen_setup),
        cmocka_unit_test_setup(gap_nack_resends_from_gap, scen_setup),
        cmocka_unit_test_setup(timeout_resends, scen_setup),
        cmocka_unit_test_setup(silent_peer_gives_up, scen_setup),
        cmocka_unit_test_setup(busy_and_miss_nacks, scen_setup),
        cmocka_unit_test_setup(malformed_entries_complete_with_errors, scen_setup),
        cmocka_unit_test_setup(bad_doorbells_counted, scen_setup),
        cmocka_unit_test_setup(read_completes, scen_setup),
        cmocka_unit_test_setup(read_response_miss_resume, scen_setup),
        cmocka_unit_test_setup(read_void_and_stale_responses, scen_setup),
        cmocka_unit_test_setup(read_timeout_unreachable, scen_setup),
        cmocka_unit_test_setup(source_dma_error_voids_segment, scen_setup),
        cmocka_unit_test_setup(ep_close_flushes, scen_setup),
        cmocka_unit_test_setup(write_streams, scen_setup),
        cmocka_unit_test_setup(resend_after_deregistration_goes_void, scen_setup),
        cmocka_unit_test_setup(ep_close_flushes_untaken_entries, scen_setup),
        cmocka_unit_test_setup(refused_write_skips_unsent_segments, scen_setup),
        cmocka_unit_test_setup(refused_read_request, scen_setup),
        cmocka_unit_test_setup(read_response_destination_denied, scen_setup),
        cmocka_unit_test_setup(completions_wait_for_staging, scen_setup),
        cmocka_unit_test_setup(second_close_while_draining_is_busy, scen_setup),
        cmocka_unit_test_setup(inline_write_sends_entry_bytes, scen_setup),
        cmocka_unit_test_setup(inline_malformed_entries_refused, scen_setup),
        cmocka_unit_test_setup(inline_loopback_write, scen_setup),
    };
    return FWH_RUN_TESTS("requester", tests) ? 1 : 0;
}
