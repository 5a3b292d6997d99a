/*
 * test_responder.c - the NCP as target and responder, host-native (tests/fwhost): receive dispatch
 * (validation, tokens, sequence windows), write placement with its protection checks and misses,
 * read requests served, response streaming and its give-up.
 */
#include "scen.h"

#define OP_ID 0x00C0FFEEu

/* A WRITE from `src` to (PID, buf, key) at `off`, next in sequence. */
static struct pkt_hdr peer_write(uint16_t src, uint32_t buf, uint32_t key, uint64_t off, const void *data, uint32_t len)
{
    struct pkt_hdr h = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = buf, .key = key, .off = off,
                        .len = (uint16_t)len, .flags = PKT_F_LAST};
    fwh_send_seq(src, &h, data);
    return h;
}

static void pattern(uint8_t *p, uint32_t n, uint32_t seed)
{
    for (uint32_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 13u + seed);
}

/* Writes land at their place (one page, across a page boundary, one byte) and are acknowledged
 * once in host memory; the bytes around them are untouched. */
static void remote_writes_delivered(void **state)
{
    (void)state;
    static uint8_t a[4096], b[4096], before[LLEN];
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 9);
    memcpy(before, fh_host(lpa, LLEN), LLEN);
    pattern(a, sizeof a, 1);
    pattern(b, sizeof b, 2);
    struct pkt_hdr w1 = peer_write(PEER, LBUF, LKEY, 0x2000, a, 4096); /* aligned: one page */
    peer_write(PEER, LBUF, LKEY, 0x4100, b, 4096);                     /* across a page boundary */
    peer_write(PEER, LBUF, LKEY, 0x9003, a + 7, 1);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x2000, 4096), a, 4096);
    assert_memory_equal(fh_host(lpa + 0x4100, 4096), b, 4096);
    assert_int_equal(*fh_host(lpa + 0x9003, 1), a[7]);
    /* nothing else changed */
    memcpy(before + 0x2000, a, 4096);
    memcpy(before + 0x4100, b, 4096);
    before[0x9003] = a[7];
    assert_memory_equal(fh_host(lpa, LLEN), before, LLEN);
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.ack, w1.seq + 3);
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_stats s = stats();
    assert_int_equal(s.rx_packets, 3);
    assert_int_equal(s.drops_bad + s.drops_miss + s.protection_errors, 0);
    /* the DMAs into host memory: the three payloads, split at the page boundary */
    uint32_t seen = 0;
    for (uint32_t i = 0; i < fh_dma_count(); i++) {
        const struct fh_dma *d = fh_dma_log(i);
        if (d->to_host && d->host >= lpa && d->host < lpa + LLEN) {
            seen++;
            assert_true((d->host & 0xFFFu) + d->len <= 4096u);
        }
    }
    assert_int_equal(seen, 4);
}

/* A WRITE whose translation misses is dropped with a MISS NACK (sequence not consumed) and a miss
 * event; the fill brings a RESUME; the resent packet is delivered. */
static void write_miss_nack_resume(void **state)
{
    (void)state;
    static uint8_t a[2000];
    pattern(a, sizeof a, 3);
    fwh_fill_pattern(lpa, LLEN, 10);
    fwh.auto_fill = 0;
    struct pkt_hdr w = peer_write(PEER, LBUF, LKEY, 0x100, a, sizeof a);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_MISS);
    assert_int_equal(n.seq, w.seq);
    assert_int_equal(n.op, OP_ID);
    assert_int_equal(n.ack, w.seq);
    assert_int_equal(fwh.misses, 1);
    assert_int_equal(fwh.last_miss.path, NIC_PATH_RECV);
    assert_int_equal(fwh.last_miss.pid, PID);
    assert_true(fwh_check_pattern(lpa, LLEN, 10));
    fwh_prefill(PID); /* several fills: one RESUME for the peer */
    n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_RESUME);
    assert_int_equal(n.seq, w.seq);
    assert_int_equal(fwh_tx_pending(), 0);
    fwh.peer[PEER].tx_seq = w.seq;
    peer_write(PEER, LBUF, LKEY, 0x100, a, sizeof a);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x100, sizeof a), a, sizeof a);
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, w.seq + 1);
    struct nic_stats s = stats();
    assert_int_equal(s.drops_miss, 1);
    assert_int_equal(s.rx_packets, 2);
}

/* Go-back-N: a MISS NACK for the expected packet is that value's one NACK. The packets behind it,
 * arriving after the MISS (also after the RESUME), are dropped as a gap without a GAP NACK: the
 * sender goes back once, at the RESUME; a GAP NACK as well made it go back a second time while
 * that resend was on the wire (two copies of its window, beyond what flow control granted: the
 * MAC RX ring overrun of nicsim.incast_flow_only). A later gap for a new expected value is NACKed. */
static void write_miss_no_gap_nack(void **state)
{
    (void)state;
    static uint8_t a[256], b[256];
    pattern(a, sizeof a, 21);
    pattern(b, sizeof b, 22);
    fwh_fill_pattern(lpa, LLEN, 12);
    fwh.auto_fill = 0;
    struct pkt_hdr w = peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    peer_write(PEER, LBUF, LKEY, 0x1000, b, sizeof b); /* behind it */
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_MISS);
    assert_int_equal(n.seq, w.seq);
    assert_int_equal(fwh_tx_pending(), 0); /* no GAP NACK for w.seq + 1 */
    fwh_prefill(PID);
    n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_RESUME);
    assert_int_equal(n.seq, w.seq);
    assert_int_equal(fwh_tx_pending(), 0);
    peer_write(PEER, LBUF, LKEY, 0x2000, b, sizeof b); /* w.seq + 2, late, after the RESUME */
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    assert_true(fwh_check_pattern(lpa, LLEN, 12)); /* nothing written */
    /* the resend from w.seq: delivered in order */
    fwh.peer[PEER].tx_seq = w.seq;
    peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    peer_write(PEER, LBUF, LKEY, 0x1000, b, sizeof b);
    fwh_run();
    assert_memory_equal(fh_host(lpa, sizeof a), a, sizeof a);
    assert_memory_equal(fh_host(lpa + 0x1000, sizeof b), b, sizeof b);
    struct pkt_hdr k;
    uint32_t last_ack = 0;
    while (fwh_tx_next(&k, NULL)) {
        assert_int_equal(k.type, PKT_ACK);
        last_ack = k.ack;
    }
    assert_int_equal(last_ack, w.seq + 2);
    /* a gap for the next expected value (w.seq + 2 lost): NACKed as before */
    fwh.peer[PEER].tx_seq = w.seq + 3;
    peer_write(PEER, LBUF, LKEY, 0x3000, b, sizeof b);
    fwh_run();
    n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_GAP);
    assert_int_equal(n.ack, w.seq + 2);
    assert_int_equal(stats().drops_miss, 1);
}

/* Protection: each violation is NACKed with its status, writes nothing and does not consume the
 * sequence number; the initiator's VOID resend of it is accepted. */
static void protection_violations_nacked(void **state)
{
    (void)state;
    static uint8_t a[512];
    pattern(a, sizeof a, 4);
    fwh_reg_buf(PID, 12, LVA, 4096, 12, NIC_RIGHT_REMOTE_READ);
    fwh_prefill(PID);
    fwh_fill(NIC_CACHE_CBH, PID, 13); /* its line: no buffer 13 */
    fwh_fill_pattern(lpa, LLEN, 11);
    struct {
        uint16_t pid;
        uint32_t buf, key;
        uint64_t off;
        int32_t st;
    } bad[] = {
        {PID, LBUF, LKEY + 1, 0, NIC_ST_KEY},      {PID, LBUF, LKEY, LLEN - 100, NIC_ST_BOUNDS},
        {PID, 12, 12, 0, NIC_ST_RIGHTS},            {PID, 13, 0, 0, NIC_ST_BAD_HANDLE},
        {PID, LBUF, LKEY, 1ull << 40, NIC_ST_BOUNDS},
    };
    uint32_t seq = fwh.peer[PEER].tx_seq;
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pkt_hdr h = {.type = PKT_WRITE, .op = OP_ID + i, .pid = bad[i].pid, .buf = bad[i].buf,
                            .key = bad[i].key, .off = bad[i].off, .len = sizeof a, .flags = PKT_F_LAST};
        fwh.peer[PEER].tx_seq = seq; /* the same number: not consumed */
        fwh_send_seq(PEER, &h, a);
        fwh_run();
        struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
        assert_int_equal(n.reason, PKT_NACK_PROTECTION);
        assert_int_equal(n.status, bad[i].st);
        assert_int_equal(n.op, OP_ID + i);
        assert_int_equal(n.seq, seq);
        assert_int_equal(n.ack, seq);
    }
    assert_true(fwh_check_pattern(lpa, LLEN, 11));
    /* the initiator resends it VOID: accepted, acknowledged, nothing written */
    fwh.peer[PEER].tx_seq = seq;
    struct pkt_hdr v = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY + 1,
                        .flags = PKT_F_VOID | PKT_F_LAST};
    fwh_send_seq(PEER, &v, NULL);
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, seq + 1);
    assert_true(fwh_check_pattern(lpa, LLEN, 11));
    assert_int_equal(stats().protection_errors, 5);
}

/* A duplicate is re-acknowledged and not written again; a packet beyond the next expected one is
 * answered with a GAP NACK and not written. */
static void duplicates_and_gaps(void **state)
{
    (void)state;
    static uint8_t a[256], b[256];
    pattern(a, sizeof a, 5);
    pattern(b, sizeof b, 6);
    fwh_prefill(PID);
    struct pkt_hdr w = peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, w.seq + 1);
    memset(fh_host(lpa, 256), 0x11, 256);
    fwh.peer[PEER].tx_seq = w.seq; /* the same packet again */
    peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, w.seq + 1); /* re-ACK */
    for (unsigned i = 0; i < 256; i++)
        assert_int_equal(*fh_host(lpa + i, 1), 0x11);
    fwh.peer[PEER].tx_seq = w.seq + 2; /* w.seq + 1 lost */
    peer_write(PEER, LBUF, LKEY, 0x1000, b, sizeof b);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_GAP);
    assert_int_equal(n.ack, w.seq + 1);
    assert_int_equal(*fh_host(lpa + 0x1000, 1), 0);
    /* far outside the window: no effect */
    fwh.peer[PEER].tx_seq = w.seq + 0x40000000u;
    peer_write(PEER, LBUF, LKEY, 0x1000, b, sizeof b);
    fwh_run();
    assert_int_equal(*fh_host(lpa + 0x1000, 1), 0);
    /* the missing one and its successor, resent: delivered in order */
    fwh.peer[PEER].tx_seq = w.seq + 1;
    peer_write(PEER, LBUF, LKEY, 0x800, a, sizeof a);
    peer_write(PEER, LBUF, LKEY, 0x1000, b, sizeof b);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x800, 256), a, 256);
    assert_memory_equal(fh_host(lpa + 0x1000, 256), b, 256);
    struct pkt_hdr k;
    uint32_t last_ack = 0;
    while (fwh_tx_next(&k, NULL))
        if (k.type == PKT_ACK)
            last_ack = k.ack;
    assert_int_equal(last_ack, w.seq + 3);
    struct nic_stats s = stats();
    assert_true(s.dup_packets >= 1);
}

/* Forged frames (wrong token) are dropped unseen and counted; malformed frames are dropped and
 * counted; neither is answered nor written; a good frame after them is delivered. */
static void forged_and_malformed_frames_dropped(void **state)
{
    (void)state;
    static uint8_t a[128], f[PKT_HDR_BYTES + 128] __attribute__((aligned(16)));
    pattern(a, sizeof a, 7);
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 12);
    struct pkt_hdr h = {.type = PKT_WRITE, .dst = ME, .src = PEER, .op = OP_ID, .pid = PID, .buf = LBUF,
                        .key = LKEY, .len = sizeof a, .flags = PKT_F_LAST, .seq = fwh.peer[PEER].tx_seq,
                        .ack = fwh.peer[PEER].rx_next, .token = fwh.peer[PEER].tok_in ^ 1u};
    pkt_encode(f, &h);
    memcpy(f + PKT_HDR_BYTES, a, sizeof a);
    fwh_send_raw(f, sizeof f); /* forged: wrong token */
    h.token = fwh.peer[PEER2].tok_in; /* another connection's token */
    pkt_encode(f, &h);
    fwh_send_raw(f, sizeof f);
    h.token = fwh.peer[PEER].tok_in;
    struct pkt_hdr m[] = {h, h, h, h, h};
    m[0].dst = PEER2;      /* not for us */
    m[1].src = ME;         /* from ourselves */
    m[2].src = NODES;      /* beyond the nodes */
    m[3].type = 9;         /* no such type */
    m[4].len = 100;        /* length disagrees with the frame */
    for (unsigned i = 0; i < 5; i++) {
        pkt_encode(f, &m[i]);
        fwh_send_raw(f, sizeof f);
    }
    fwh_send_raw(f, 20); /* shorter than a header */
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    assert_true(fwh_check_pattern(lpa, LLEN, 12));
    struct nic_stats s = stats();
    assert_int_equal(s.auth_drops, 2);
    assert_int_equal(s.drops_bad, 6);
    assert_int_equal(s.rx_packets, 0);
    peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    fwh_run();
    assert_memory_equal(fh_host(lpa, sizeof a), a, sizeof a);
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, fwh.peer[PEER].tx_seq);
}

/* A read request is served: the responses carry the bytes of the target, segment by segment,
 * and stop once acknowledged; a request without the read right is refused. */
static void read_request_served(void **state)
{
    (void)state;
    uint32_t len = mtu() + 500;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 13);
    struct pkt_hdr q = {.type = PKT_READ_REQ, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x10,
                        .xlen = len};
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    const uint8_t *p;
    struct pkt_hdr r;
    uint32_t off = 0, acked = 0;
    while (fwh_tx_next(&r, &p)) {
        acked |= r.ack == q.seq + 1; /* the request acknowledged (piggy-backed or not) */
        if (r.type == PKT_ACK)
            continue;
        uint32_t n = len - off < mtu() ? len - off : mtu();
        assert_int_equal(r.type, PKT_READ_RESP);
        assert_int_equal(r.op, OP_ID);
        assert_int_equal(r.off, off);
        assert_int_equal(r.len, n);
        assert_int_equal(r.flags & (PKT_F_LAST | PKT_F_VOID), off + n == len ? PKT_F_LAST : 0);
        assert_memory_equal(p, fh_host(lpa + 0x10 + off, n), n);
        off += n;
    }
    assert_int_equal(off, len);
    assert_true(acked);
    fwh_ack(PEER);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    /* no remote read right */
    fwh_reg_buf(PID, 12, LVA, 4096, 12, NIC_RIGHT_REMOTE_WRITE);
    fwh_fill(NIC_CACHE_CBH, PID, 12);
    q = (struct pkt_hdr){.type = PKT_READ_REQ, .op = OP_ID + 1, .pid = PID, .buf = 12, .key = 12, .xlen = 100};
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_PROTECTION);
    assert_int_equal(n.status, NIC_ST_RIGHTS);
    /* the initiator's VOID resend: accepted, no response */
    fwh.peer[PEER].tx_seq = q.seq;
    q.flags = PKT_F_VOID;
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, q.seq + 1);
    assert_int_equal(fwh_tx_pending(), 0);
}

/* Pages of a read's target that are not readable (the buffer allows it, the page does not): the
 * response goes VOID with NIC_ST_RIGHTS. */
static void read_response_pages_denied(void **state)
{
    (void)state;
    const uint16_t pid2 = 7;
    fwh_reg_proc(pid2, 2);
    fwh_map(pid2, LVA, 4096, NIC_RIGHT_REMOTE_WRITE); /* the page: no remote read */
    fwh_reg_buf(pid2, 1, LVA, 4096, 77, NIC_RIGHT_REMOTE_READ);
    fwh_prefill(pid2);
    struct pkt_hdr q = {.type = PKT_READ_REQ, .op = OP_ID, .pid = pid2, .buf = 1, .key = 77, .xlen = 100};
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    struct pkt_hdr r = tx_expect(PKT_ACK, NULL); /* the request's, in the MAC's control queue: first */
    assert_int_equal(r.ack, q.seq + 1u);
    r = tx_expect(PKT_READ_RESP, NULL);
    assert_true(r.flags & PKT_F_VOID);
    assert_int_equal(r.len, 0);
    assert_int_equal(r.status, NIC_ST_RIGHTS);
    assert_int_equal(stats().local_denied, 1);
}

/* The initiator never acknowledges the responses: the connection gives up and the lost segments
 * go again as VOID packets carrying NIC_ST_UNREACHABLE (the read fails at the initiator). */
static void read_response_gives_up(void **state)
{
    (void)state;
    fwh_prefill(PID);
    struct pkt_hdr q = {.type = PKT_READ_REQ, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY, .xlen = 300};
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    struct pkt_hdr r = tx_expect(PKT_ACK, NULL); /* the request's: not behind the response's payload DMA */
    assert_int_equal(r.ack, q.seq + 1u);
    r = tx_expect(PKT_READ_RESP, NULL);
    assert_false(r.flags & PKT_F_VOID);
    int found = 0;
    for (unsigned round = 0; round < 64 && !found; round++) {
        struct pkt_hdr h;
        uint32_t rx_next = fwh.peer[PEER].rx_next;
        while (fwh_tx_next(&h, NULL))
            if (h.type == PKT_READ_RESP && (h.flags & PKT_F_VOID)) {
                assert_int_equal(h.status, NIC_ST_UNREACHABLE);
                assert_int_equal(h.op, OP_ID);
                assert_int_equal(h.off, 0);
                found = 1;
            }
        fwh.peer[PEER].rx_next = rx_next; /* lost */
        if (!found)
            timer_fires();
    }
    assert_true(found);
    struct nic_stats s = stats();
    assert_true(s.timeouts >= 8);
}

/* A receive DMA that fails: the packet is not acknowledged (counted); its resend is written. */
static void receive_dma_error_not_acked(void **state)
{
    (void)state;
    static uint8_t a[1024];
    pattern(a, sizeof a, 8);
    fwh_prefill(PID);
    fh_dma_fail(lpa, lpa + LLEN, 1, FH_DMA_HOST_ERR);
    struct pkt_hdr w = peer_write(PEER, LBUF, LKEY, 0x3000, a, sizeof a);
    fwh_run();
    struct pkt_hdr h;
    while (fwh_tx_next(&h, NULL))
        assert_true(h.ack == w.seq); /* nothing acknowledges it */
    assert_int_equal(stats().rx_dma_errors, 1);
    fwh.peer[PEER].tx_seq = w.seq;
    peer_write(PEER, LBUF, LKEY, 0x3000, a, sizeof a);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x3000, sizeof a), a, sizeof a);
    uint32_t last_ack = 0;
    while (fwh_tx_next(&h, NULL))
        last_ack = h.ack;
    assert_int_equal(last_ack, w.seq + 1);
}

/* A full RX ring's worth of frames at once: every one handled, the ring returned to the MAC. */
static void rx_ring_burst(void **state)
{
    (void)state;
    static uint8_t a[64];
    fwh_prefill(PID);
    for (unsigned i = 0; i < 16; i++) {
        pattern(a, sizeof a, i);
        peer_write(PEER, LBUF, LKEY, i * 64u, a, sizeof a);
    }
    assert_false(fh_inject(a, sizeof a)); /* the ring is full: the MAC drops */
    fwh_run();
    for (unsigned i = 0; i < 16; i++) {
        pattern(a, sizeof a, i);
        assert_memory_equal(fh_host(lpa + i * 64u, sizeof a), a, sizeof a);
    }
    peer_write(PEER, LBUF, LKEY, 0x2000, a, sizeof a); /* room again */
    fwh_run();
    assert_int_equal(stats().rx_packets, 17);
}

/* An inbound stream: aligned one-page writes (the fast path's case) mixed with unaligned ones,
 * a duplicate and a void segment; every byte lands, the duplicate and the void write nothing. */
static void write_stream_inbound(void **state)
{
    (void)state;
    static uint8_t a[4096], expect[LLEN];
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 15);
    memcpy(expect, fh_host(lpa, LLEN), LLEN);
    uint32_t sent = 0;
    for (unsigned i = 0; i < 24; i++) {
        uint32_t off = (i % 3 == 2) ? (i * 4096u + 0x321u) % (LLEN - 4096u) : (i * 4096u) % LLEN;
        uint32_t len = (i % 3 == 2) ? 3000u : 4096u;
        if (off + len > LLEN)
            off = LLEN - len;
        pattern(a, len, 100 + i);
        struct pkt_hdr w = peer_write(PEER, LBUF, LKEY, off, a, len);
        memcpy(expect + off, a, len);
        sent++;
        if (i == 5) { /* the same again: a duplicate */
            fwh.peer[PEER].tx_seq = w.seq;
            peer_write(PEER, LBUF, LKEY, off, a, len);
        }
        if (i == 9) { /* a void segment */
            struct pkt_hdr v = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0,
                                .flags = PKT_F_VOID};
            fwh_send_seq(PEER, &v, NULL);
            sent++;
        }
        if (i % 4 == 3)
            fwh_run();
    }
    fwh_run();
    assert_memory_equal(fh_host(lpa, LLEN), expect, LLEN);
    struct pkt_hdr h;
    uint32_t last = 0;
    while (fwh_tx_next(&h, NULL)) {
        assert_int_equal(h.type, PKT_ACK);
        last = h.ack;
    }
    assert_int_equal(last, fwh.peer[PEER].tx_seq);
    struct nic_stats s = stats();
    assert_int_equal(s.dup_packets, 1);
    assert_int_equal(s.rx_packets, sent + 1);
}

/* The host DMA of a read response's data fails at the responder: the segment goes VOID carrying
 * NIC_ST_HOST_ERROR (the initiator's read fails with it), and so do the later ones. */
static void read_response_dma_error(void **state)
{
    (void)state;
    fwh_prefill(PID);
    fh_dma_fail(lpa, lpa + LLEN, 1, FH_DMA_HOST_ERR);
    struct pkt_hdr q = {.type = PKT_READ_REQ, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY,
                        .xlen = 2 * mtu()};
    fwh_send_seq(PEER, &q, NULL);
    fwh_run();
    struct pkt_hdr h, first = {0};
    unsigned n = 0, voids = 0;
    while (fwh_tx_next(&h, NULL)) {
        if (h.type != PKT_READ_RESP)
            continue;
        if (n++ == 0 || (int32_t)(h.seq - first.seq) < 0)
            first = h; /* (gated frames: the second segment may leave before the first's VOID copy) */
        voids += (h.flags & PKT_F_VOID) != 0;
    }
    assert_int_equal(n, 2);
    assert_int_equal(voids, 1);
    /* the first segment, whose payload's DMA failed, went VOID carrying the status */
    assert_true(first.flags & PKT_F_VOID);
    assert_int_equal(first.status, NIC_ST_HOST_ERROR);
    assert_int_equal(first.len, 0);
}

/* More read requests than response slots: the rest wait in order and are all served. */
static void read_requests_queue_for_slots(void **state)
{
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 16);
    const unsigned n = 24;
    for (unsigned i = 0; i < n; i++) {
        struct pkt_hdr q = {.type = PKT_READ_REQ, .op = OP_ID + i, .pid = PID, .buf = LBUF, .key = LKEY,
                            .off = i * 64u, .xlen = 64};
        fwh_send_seq(PEER, &q, NULL);
        if (i % 8 == 7)
            fwh_run();
    }
    unsigned got = 0;
    for (unsigned round = 0; round < 16 && got < n; round++) {
        fwh_run();
        struct pkt_hdr h;
        const uint8_t *p;
        while (fwh_tx_next(&h, &p)) {
            if (h.type != PKT_READ_RESP)
                continue;
            assert_int_equal(h.op, OP_ID + got); /* in request order */
            assert_int_equal(h.len, 64);
            assert_memory_equal(p, fh_host(lpa + got * 64u, 64), 64);
            got++;
        }
        fwh_ack(PEER);
    }
    assert_int_equal(got, n);
}

/* An unaligned write whose second page misses: nothing is written (not even the first page),
 * MISS NACK; after the fill it is delivered whole. */
static void write_second_page_misses(void **state)
{
    (void)state;
    static uint8_t a[2048];
    pattern(a, sizeof a, 17);
    uint64_t va2 = LVA + 0x100000u; /* another VMH line for its second page */
    fwh_map(PID, va2 - 4096, 8192, ALL_RIGHTS);
    fwh_reg_buf(PID, 20, va2 - 4096, 8192, 20, ALL_RIGHTS);
    fwh_prefill(PID);
    uint32_t line2 = (uint32_t)((va2 >> 12) / fwh.info.cache[NIC_CACHE_VMH].line);
    if (line2 == (uint32_t)(((va2 - 4096) >> 12) / fwh.info.cache[NIC_CACHE_VMH].line))
        skip(); /* lines of this size hold both pages */
    struct nic_cmd inv = {.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID, .key = line2, .c = 1};
    assert_int_equal(fwh_cmd(&inv), NIC_ST_OK);
    uint64_t pa1 = fwh_pa(PID, va2 - 1024);
    memset(fh_host(pa1, 1024), 0x77, 1024);
    fwh.auto_fill = 0;
    struct pkt_hdr w = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = 20, .key = 20, .off = 4096 - 1024,
                        .len = sizeof a, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_MISS);
    for (unsigned i = 0; i < 1024; i++)
        assert_int_equal(*fh_host(pa1 + i, 1), 0x77);
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(va2 >> 12)), NIC_ST_OK);
    assert_int_equal(tx_expect(PKT_NACK, NULL).reason, PKT_NACK_RESUME);
    fwh.peer[PEER].tx_seq = w.seq;
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    assert_memory_equal(fh_host(pa1, 1024), a, 1024);
    assert_memory_equal(fh_host(fwh_pa(PID, va2), 1024), a + 1024, 1024);
}

/* A miss the host does not answer is posted again after it expires (10 ms), when the line is
 * looked up again; counted. */
static void unanswered_miss_reposted(void **state)
{
    (void)state;
    static uint8_t a[64];
    fwh.auto_fill = 0;
    struct pkt_hdr w = peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    fwh.peer[PEER].tx_seq = w.seq;
    peer_write(PEER, LBUF, LKEY, 0, a, sizeof a); /* soon: merged, not posted again */
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    fh_advance(4000000u); /* 20 ms */
    fwh.peer[PEER].tx_seq = w.seq;
    peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    fwh_run();
    assert_int_equal(fwh.misses, 2);
    struct nic_stats s = stats();
    assert_int_equal(s.miss_reposts, 1);
    assert_int_equal(s.drops_miss, 3);
}

/* More refusals than control frames while the MAC holds them: NACKs beyond the pool are dropped
 * (the initiator's resend brings another), every violation is counted, nothing is written, and the
 * NCP serves a good write afterwards. */
static void control_frames_exhausted(void **state)
{
    (void)state;
    static uint8_t a[64];
    pattern(a, sizeof a, 9);
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, LLEN, 18);
    fh_mac_hold(1);
    const unsigned n = 40;
    uint32_t seq = fwh.peer[PEER].tx_seq;
    for (unsigned i = 0; i < n; i++) {
        fwh.peer[PEER].tx_seq = seq;
        peer_write(PEER, LBUF, LKEY ^ 1u, 0, a, sizeof a); /* wrong key */
        if (i % 8 == 7)
            fwh_run();
    }
    fwh_run();
    fh_mac_hold(0);
    fwh_run();
    uint32_t nacks = 0;
    struct pkt_hdr h;
    while (fwh_tx_next(&h, NULL)) {
        assert_int_equal(h.type, PKT_NACK);
        assert_int_equal(h.reason, PKT_NACK_PROTECTION);
        nacks++;
    }
    assert_true(nacks >= 1 && nacks < n);
    assert_true(fwh_check_pattern(lpa, LLEN, 18));
    assert_int_equal(stats().protection_errors, n);
    fwh.peer[PEER].tx_seq = seq;
    peer_write(PEER, LBUF, LKEY, 0, a, sizeof a);
    fwh_run();
    assert_memory_equal(fh_host(lpa, sizeof a), a, sizeof a);
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, seq + 1);
}

/* A write into a page without the remote write right (its buffer has it): refused RIGHTS, nothing
 * written. */
static void write_page_denied(void **state)
{
    (void)state;
    static uint8_t a[128];
    pattern(a, sizeof a, 10);
    const uint16_t pid2 = 7;
    fwh_reg_proc(pid2, 2);
    uint64_t pa = fwh_map(pid2, LVA, 4096, NIC_RIGHT_REMOTE_READ); /* the page: no remote write */
    fwh_reg_buf(pid2, 1, LVA, 4096, 77, NIC_RIGHT_REMOTE_WRITE);
    fwh_prefill(pid2);
    memset(fh_host(pa, 4096), 0x24, 4096);
    struct pkt_hdr w = {.type = PKT_WRITE, .op = OP_ID, .pid = pid2, .buf = 1, .key = 77, .off = 8, .len = sizeof a,
                        .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL);
    assert_int_equal(n.reason, PKT_NACK_PROTECTION);
    assert_int_equal(n.status, NIC_ST_RIGHTS);
    assert_int_equal(n.ack, w.seq);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(*fh_host(pa + i, 1), 0x24);
}

#define LOOP_DBUF 21u /* the destination buffer of the loopback-hold tests */

/*
 * The loopback-hold tests' start: a 4 KiB write (wr_id 7) from LBUF to a buffer of this node in
 * another VMH line, whose line is invalidated, with a driver that gives no fill (auto_fill 0): its
 * destination misses on the receive path and the frame is held. Returns the destination's host
 * address (zeroed); *dva its virtual address.
 */
static uint64_t loopback_write_held(uint64_t *dva_out)
{
    uint64_t line_b = (uint64_t)fwh.info.cache[NIC_CACHE_VMH].line * 4096u;
    uint64_t dva = LVA + 4 * line_b; /* another VMH line than the source (LBUF at LVA) */
    uint64_t dpa = fwh_map(PID, dva, 4096, ALL_RIGHTS);
    fwh_reg_buf(PID, LOOP_DBUF, dva, 4096, 0x21, ALL_RIGHTS);
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 4096, 31);
    memset(fh_host(dpa, 4096), 0, 4096);
    uint32_t sline = (uint32_t)((LVA >> 12) / fwh.info.cache[NIC_CACHE_VMH].line);
    uint32_t dline = (uint32_t)((dva >> 12) / fwh.info.cache[NIC_CACHE_VMH].line);
    assert_int_not_equal(sline, dline);
    struct nic_cmd inv = {.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID, .key = dline, .c = 1};
    assert_int_equal(fwh_cmd(&inv), NIC_ST_OK);
    fwh.auto_fill = 0;
    struct nic_sq_entry e = fwh_write_wr(ME, LVA, LBUF, 4096, PID, LOOP_DBUF, 0, 0x21, 7);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh.misses, 1); /* the destination's, on the receive path */
    assert_int_equal(fwh.last_miss.path, NIC_PATH_RECV);
    assert_int_equal(fwh.last_miss.key, dline);
    *dva_out = dva;
    return dpa;
}

/*
 * Loopback under a small pin budget (docs/firmware.md): a write to this node itself whose
 * destination misses is held in its loopback entry (its payload is in NIC SRAM) until the fill and
 * then placed from there; its source is not read again. Here the driver evicts the source's line
 * for the destination's fill (as at its mark): before, the resend at the RESUME missed on the
 * source (a send-path miss, whose fill evicted another line the packet needed, ...: soak
 * --loopback seed 32). With `again`, the sender's hold ends first (its deadline) and its resend,
 * built while the source was still there, arrives while the first is held: dropped as a duplicate
 * (not held twice), the held one tried again (missing still: MISS again); after the fill the data
 * lands once and the write completes.
 */
static void loopback_miss_held_until_fill(int again)
{
    uint64_t dva, dpa = loopback_write_held(&dva);
    assert_int_equal(fwh_tx_pending(), 0); /* nothing on the wire: all of it to this node */
    struct nic_cqe c;
    assert_false(fwh_cqe(EP, &c));
    uint32_t dups = stats().dup_packets;
    if (again) {
        /* the sender's hold ends (its deadline): it resends, the source still filled */
        for (unsigned i = 0; i < 4 && stats().dup_packets == dups; i++)
            timer_fires();
        assert_int_equal(stats().dup_packets, dups + 1u); /* the resend: dropped, the held one kept */
        assert_int_equal(stats().drops_miss, 2);          /* the held one tried again: MISS again */
        assert_int_equal(stats().loop_holds, 2);          /* held, tried, held again (STATS, ABI 2.3) */
        assert_int_equal(stats().loop_retries, 1);
        assert_false(fwh_cqe(EP, &c));
        for (uint32_t i = 0; i < 4096; i++)
            assert_int_equal(*fh_host(dpa + i, 1), 0);
    }
    /* the driver evicts the source's line for the destination's fill */
    struct nic_cmd inv = {.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID,
                          .key = (uint32_t)((LVA >> 12) / fwh.info.cache[NIC_CACHE_VMH].line), .c = 1};
    assert_int_equal(fwh_cmd(&inv), NIC_ST_OK);
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(dva >> 12)), NIC_ST_OK);
    fwh_run();
    /* placed from the held frame: without it the resend at the RESUME misses on the source, whose
     * fill this driver (auto_fill 0) does not give, and nothing lands */
    assert_memory_equal(fh_host(dpa, 4096), fh_host(lpa, 4096), 4096);
    /* the sender resends its packet at the RESUME (before the ACK of the placed one comes): its
     * build may miss on the source; filled, it arrives as a duplicate (nothing lands twice) */
    assert_true(fwh.misses <= 2);
    fwh.auto_fill = 1;
    if (fwh.misses == 2) {
        assert_int_equal(fwh.last_miss.path, NIC_PATH_SEND);
        assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(LVA >> 12)), NIC_ST_OK);
    }
    fwh_run();
    assert_memory_equal(fh_host(dpa, 4096), fh_host(lpa, 4096), 4096);
    assert_int_equal(stats().drops_miss, again ? 2 : 1);
    assert_int_equal(stats().loop_holds, again ? 2u : 1u); /* (STATS, ABI 2.3) */
    assert_int_equal(stats().loop_retries, again ? 2u : 1u); /* each hold ended in a try: the last placed it */
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 4096);
    assert_false(fwh_cqe(EP, &c));
    assert_int_equal(fwh_tx_pending(), 0);
}
/*
 * The connection to this node gives up while a loopback frame is held (its destination never
 * filled: this driver gives no fill, auto_fill 0): the write completes UNREACHABLE, and the held
 * frame is let go with it (rx_loop_unhold): a fill after that places nothing, no second completion
 * comes, and the loopback entry and TX frame are free again: a later write to this node completes
 * with its data.
 */
static void loopback_miss_held_giveup(void **state)
{
    (void)state;
    uint64_t dva, dpa = loopback_write_held(&dva);
    struct nic_cqe c;
    int done = 0;
    uint32_t at;
    for (unsigned i = 0; i < 20000 && !done && fh_timer_armed(&at); i++) {
        timer_fires();
        done = fwh_cqe(EP, &c);
    }
    assert_true(done);
    assert_int_equal(c.status, NIC_ST_UNREACHABLE);
    /* the fill the driver did not give, now: nothing is placed from the frame let go */
    assert_int_equal(fwh_fill(NIC_CACHE_VMH, PID, (uint32_t)(dva >> 12)), NIC_ST_OK);
    fwh_run();
    for (uint32_t i = 0; i < 4096; i++)
        assert_int_equal(*fh_host(dpa + i, 1), 0);
    assert_false(fwh_cqe(EP, &c));
    /* the connection resynchronises and the freed entry serves the next write */
    fwh.auto_fill = 1;
    fwh_fill_pattern(lpa, 4096, 57);
    struct nic_sq_entry e = fwh_write_wr(ME, LVA, LBUF, 4096, PID, LOOP_DBUF, 0, 0x21, 8);
    fwh_post(EP, &e);
    fwh_run();
    for (unsigned i = 0; i < 64 && !(done = fwh_cqe(EP, &c)) && fh_timer_armed(&at); i++)
        timer_fires();
    assert_true(done);
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.wr_id_lo, 8);
    assert_memory_equal(fh_host(dpa, 4096), fh_host(lpa, 4096), 4096);
}

static void loopback_miss_held_until_fill_0(void **state)
{
    (void)state;
    loopback_miss_held_until_fill(0);
}
static void loopback_miss_held_resend_dropped(void **state)
{
    (void)state;
    loopback_miss_held_until_fill(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(remote_writes_delivered, scen_setup),
        cmocka_unit_test_setup(write_miss_nack_resume, scen_setup),
        cmocka_unit_test_setup(write_miss_no_gap_nack, scen_setup),
        cmocka_unit_test_setup(protection_violations_nacked, scen_setup),
        cmocka_unit_test_setup(duplicates_and_gaps, scen_setup),
        cmocka_unit_test_setup(forged_and_malformed_frames_dropped, scen_setup),
        cmocka_unit_test_setup(read_request_served, scen_setup),
        cmocka_unit_test_setup(read_response_pages_denied, scen_setup),
        cmocka_unit_test_setup(read_response_gives_up, scen_setup),
        cmocka_unit_test_setup(receive_dma_error_not_acked, scen_setup),
        cmocka_unit_test_setup(rx_ring_burst, scen_setup),
        cmocka_unit_test_setup(write_stream_inbound, scen_setup),
        cmocka_unit_test_setup(read_response_dma_error, scen_setup),
        cmocka_unit_test_setup(read_requests_queue_for_slots, scen_setup),
        cmocka_unit_test_setup(write_second_page_misses, scen_setup),
        cmocka_unit_test_setup(unanswered_miss_reposted, scen_setup),
        cmocka_unit_test_setup(control_frames_exhausted, scen_setup),
        cmocka_unit_test_setup(write_page_denied, scen_setup),
        cmocka_unit_test_setup(loopback_miss_held_until_fill_0, scen_setup),
        cmocka_unit_test_setup(loopback_miss_held_resend_dropped, scen_setup),
        cmocka_unit_test_setup(loopback_miss_held_giveup, scen_setup),
    };
    return FWH_RUN_TESTS("responder", tests) ? 1 : 0;
}
