/*
 * test_acks.c - what a loaded node's own queues must not do to its connections (host-native,
 * tests/fwhost; docs/firmware.md "Timeouts measure the network"): a retransmission deadline counts
 * from the packet's departure, not from its wait for the payload's DMA; an ACK owed waits at most
 * NCP_ACK_WAIT for the receive DMAs behind it; a control frame does not wait behind data frames
 * whose payload DMA is still pending. The host DMA is held (fh_dma_hold) to play a loaded host.
 */
#include "scen.h"

#include "ncp.h"
#include "ncp_test.h"

#define OP_ID 0x00C0FFEEu

static struct xport_stats peer_st(void)
{
    struct xport_stats st;
    ncp_test_peer_stats(PEER, &st);
    return st;
}

/* A WRITE from PEER to (PID, LBUF) at `off` with `key`, next in sequence. */
static struct pkt_hdr peer_write(uint32_t key, uint64_t off, const void *data, uint32_t len)
{
    struct pkt_hdr h = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = LBUF, .key = key, .off = off,
                        .len = (uint16_t)len, .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &h, data);
    return h;
}

/* A write whose payload DMA waits longer than a timeout: no timeout while its frame has not left
 * (deferred), its deadline counts from the departure (RTO after it, not before, a timeout). */
static void deadline_from_departure(void **state)
{
    (void)state;
    fwh_prefill(PID);
    fwh_fill_pattern(lpa, 500, 3);
    fh_dma_hold(1); /* the host DMA is loaded: the payload does not come */
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 500, RPID, RBUF, 0, RKEY, 7);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    fwh_ack(PEER); /* (acknowledges nothing: a pass, which programs the timer the push asked for) */
    fwh_run();
    timer_fires(); /* the deadline of the push passes: the frame is still here */
    assert_int_equal(peer_st().timeouts, 0);
    struct ncp_test_counters k;
    ncp_test_counters(&k);
    assert_int_equal(k.defers, 1);
    assert_int_equal(peer_st().retransmits, 0);
    assert_int_equal(fwh_tx_pending(), 0);
    fh_advance(NCP_RTO / 2u);
    fh_dma_hold(0);
    fwh_run(); /* the payload comes, the frame leaves now: its deadline starts */
    const uint8_t *p;
    struct pkt_hdr w = tx_expect(PKT_WRITE, &p);
    assert_int_equal(w.len, 500);
    assert_memory_equal(p, fh_host(lpa, 500), 500);
    fh_advance(NCP_RTO - 100u);
    fwh_run();
    assert_int_equal(peer_st().timeouts, 0); /* within RTO of the departure */
    assert_int_equal(fwh_tx_pending(), 0);
    fh_advance(200u);
    fwh_run();
    assert_int_equal(peer_st().timeouts, 1); /* the network's turn: a timeout, the packet again */
    struct pkt_hdr r = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(r.seq, w.seq);
    fwh_ack(PEER);
    fwh_run();
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 500);
    assert_int_equal(stats().timeouts, 1);
}

/* A NACK (a refused write from the peer) goes to the MAC ahead of our data frame still waiting for
 * its payload; the data frame follows once its DMA completes, and carries its data. */
static void control_frame_ahead_of_waiting_data(void **state)
{
    (void)state;
    static uint8_t d[64];
    fwh_prefill(PID);
    fwh_fill_pattern(lpa + 0x1000, 300, 5);
    fh_dma_hold(1);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 0x1000, LBUF, 300, RPID, RBUF, 0, RKEY, 8);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0); /* the write's frame waits for its payload */
    struct pkt_hdr bad = peer_write(LKEY ^ 1u, 0, d, sizeof d);
    fwh_run();
    struct pkt_hdr n = tx_expect(PKT_NACK, NULL); /* not behind the data frame */
    assert_int_equal(n.reason, PKT_NACK_PROTECTION);
    assert_int_equal(n.seq, bad.seq);
    assert_int_equal(fwh_tx_pending(), 0);
    fh_dma_hold(0);
    fwh_run();
    const uint8_t *p;
    struct pkt_hdr w = tx_expect(PKT_WRITE, &p);
    assert_int_equal(w.len, 300);
    assert_memory_equal(p, fh_host(lpa + 0x1000, 300), 300);
    assert_int_equal(stats().protection_errors, 1);
}

/* Three writes in, their DMAs slow: the first one's completion soon after the last ACK sends
 * nothing (the ACK waits for the DMAs behind it), a completion NCP_ACK_WAIT later sends an ACK of
 * what is in host memory so far, the last one's the ACK of everything. */
static void ack_owed_waits_at_most_ack_wait(void **state)
{
    (void)state;
    static uint8_t a[3][256];
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < sizeof a[i]; j++)
            a[i][j] = (uint8_t)(j * 7u + i);
    fwh_prefill(PID);
    struct pkt_hdr w0 = peer_write(LKEY, 0x100, a[0], 256); /* an exchange: the last ACK frame now */
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, w0.seq + 1u);
    fh_dma_hold(1);
    peer_write(LKEY, 0x200, a[0], 256);
    struct pkt_hdr w2 = peer_write(LKEY, 0x300, a[1], 256);
    struct pkt_hdr w3 = peer_write(LKEY, 0x400, a[2], 256);
    fwh_run();
    assert_int_equal(fh_dma_complete(1), 1);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0); /* w1 in memory, w2 and w3 behind it: the ACK waits */
    fh_advance(NCP_ACK_WAIT);
    assert_int_equal(fh_dma_complete(1), 1);
    fwh_run();
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL); /* waited long enough: what is in memory */
    assert_int_equal(k.ack, w2.seq + 1u);
    assert_memory_equal(fh_host(lpa + 0x300, 256), a[1], 256);
    assert_int_equal(fwh_tx_pending(), 0);
    fh_dma_hold(0);
    fwh_run();
    k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.ack, w3.seq + 1u);
    assert_memory_equal(fh_host(lpa + 0x200, 256), a[0], 256);
    assert_memory_equal(fh_host(lpa + 0x400, 256), a[2], 256);
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(stats().rx_packets, 4);
}

/* Our write to the peer, sent and not yet acknowledged (the peer's rx_next covers it). */
static struct pkt_hdr our_write(uint32_t off, uint32_t len, uint32_t seed)
{
    fwh_fill_pattern(lpa + off, len, seed);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + off, LBUF, len, RPID, RBUF, 0, RKEY, seed);
    fwh_post(EP, &e);
    fwh_run();
    const uint8_t *p;
    struct pkt_hdr w = tx_expect(PKT_WRITE, &p);
    assert_int_equal(w.len, len);
    assert_memory_equal(p, fh_host(lpa + off, len), len);
    struct nic_cqe c;
    assert_false(fwh_cqe(EP, &c)); /* not acknowledged yet */
    return w;
}

/* A first WRITE from the peer: its target memoised, so the next ones take rx_fast (fast build). */
static void warm_target(void)
{
    static uint8_t d[32];
    fwh_prefill(PID);
    struct pkt_hdr warm = peer_write(LKEY, 0x80, d, sizeof d);
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, warm.seq + 1u);
}

/* ACK frames one after another, three times the control frame pool: each goes at once (tx_ack_fast
 * where it can) with the ACK of its write, whose data is in host memory first; the control frames
 * the MAC finished are collected lazily (loop.c tx_reap_due, tx_ack_fast when the pool is empty),
 * and never so late that an ACK finds no frame (ctl_drops). Then with the MAC held: two ACK frames
 * wait in it and go in order once it runs (issue 12). */
static void ack_frames_cycle_the_pool(void **state)
{
    (void)state;
    static uint8_t d[64];
    warm_target();
    for (unsigned i = 0; i < 3u * NCP_CTL_N; i++) {
        for (unsigned j = 0; j < sizeof d; j++)
            d[j] = (uint8_t)(j * 3u + i);
        struct pkt_hdr w = peer_write(LKEY, 0x400 + 0x40 * (i % 16u), d, sizeof d);
        fwh_run();
        struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
        assert_int_equal(k.ack, w.seq + 1u);
        assert_int_equal(k.dst, PEER);
        assert_memory_equal(fh_host(lpa + 0x400 + 0x40 * (i % 16u), sizeof d), d, sizeof d);
        assert_int_equal(fwh_tx_pending(), 0);
    }
    struct ncp_test_counters c;
    ncp_test_counters(&c);
    assert_int_equal(c.ctl_drops, 0);
    fh_mac_hold(1);
    struct pkt_hdr a = peer_write(LKEY, 0x800, d, sizeof d);
    fwh_run();
    struct pkt_hdr b = peer_write(LKEY, 0x840, d, sizeof d);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0); /* both wait in the MAC */
    fh_mac_hold(0);
    fwh_run();
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, a.seq + 1u);
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, b.seq + 1u);
    assert_int_equal(fwh_tx_pending(), 0);
    ncp_test_counters(&c);
    assert_int_equal(c.ctl_drops, 0);
    assert_int_equal(stats().rx_packets, 3u * NCP_CTL_N + 3u);
}

/* A WRITE from the peer that also acknowledges our write (the piggy-backed ACK of a ping-pong): its
 * data is placed first, and the ACK is applied once the data path is quiet (no DMA outstanding):
 * our completion is requested after the data is in host memory, and once: the same ACK again,
 * alone or on the next WRITE, completes nothing more (issue 12: the ACK off the critical path of
 * the data and of the reply; both builds, the fast path and the general one). */
static void piggybacked_ack_after_data(void **state)
{
    (void)state;
    static uint8_t d[2][64];
    for (unsigned i = 0; i < 2; i++)
        for (unsigned j = 0; j < sizeof d[i]; j++)
            d[i][j] = (uint8_t)(j * 5u + i + 1u);
    warm_target();
    struct pkt_hdr w = our_write(0x2000, 200, 11);
    struct nic_cqe c;
    uint32_t done = fh_dma_count();
    fh_dma_hold(1);
    struct pkt_hdr in = peer_write(LKEY, 0x100, d[0], sizeof d[0]); /* its ACK covers w */
    assert_int_equal(in.ack, w.seq + 1u);
    fwh_run();
    assert_int_equal(fh_dma_queued(), 1); /* the data; the ACK waits for it */
    assert_false(fwh_cqe(EP, &c));
    assert_int_equal(fh_dma_complete(1), 1);
    const struct fh_dma *first = fh_dma_log(done);
    assert_int_equal(first->host, fwh_pa(PID, LVA + 0x100));
    assert_int_equal(first->len, sizeof d[0]);
    assert_int_equal(first->to_host, 1);
    assert_memory_equal(fh_host(lpa + 0x100, sizeof d[0]), d[0], sizeof d[0]);
    assert_false(fwh_cqe(EP, &c));
    fh_dma_hold(0);
    fwh_run();
    assert_int_equal(fh_dma_count(), done + 2u); /* the data, then our completion */
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 200);
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, in.seq + 1u);
    /* exactly once: the same ACK again, on an ACK frame and on the next WRITE */
    fwh_ack(PEER);
    struct pkt_hdr in2 = peer_write(LKEY, 0x200, d[1], sizeof d[1]);
    assert_int_equal(in2.ack, w.seq + 1u);
    fwh_run();
    assert_false(fwh_cqe(EP, &c));
    assert_memory_equal(fh_host(lpa + 0x200, sizeof d[1]), d[1], sizeof d[1]);
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.ack, in2.seq + 1u);
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(stats().rx_packets, 4);
    assert_int_equal(stats().timeouts, 0);
}

/* A deferred ACK waits at most NCP_RTO / 20 while the data path stays busy (a loaded host DMA: the
 * next frame's pass applies it), and a frame of another kind applies it first (ACK fields in
 * arrival order): each of our writes completes once, in request order. */
static void deferred_ack_bounded(void **state)
{
    (void)state;
    static uint8_t d[3][48];
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < sizeof d[i]; j++)
            d[i][j] = (uint8_t)(j * 3u + i + 7u);
    warm_target();
    struct pkt_hdr w = our_write(0x3000, 100, 21);
    struct nic_cqe c;
    fh_dma_hold(1);
    struct pkt_hdr in = peer_write(LKEY, 0x400, d[0], sizeof d[0]);
    assert_int_equal(in.ack, w.seq + 1u);
    fwh_run();
    assert_int_equal(fh_dma_queued(), 1); /* deferred: the data's DMA is outstanding */
    fh_advance(NCP_RTO / 20u);
    peer_write(LKEY, 0x500, d[1], sizeof d[1]); /* acknowledges nothing new; its pass: the bound */
    fwh_run();
    assert_int_equal(fh_dma_queued(), 3); /* both data DMAs, then our completion */
    fh_dma_hold(0);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 100);
    assert_false(fwh_cqe(EP, &c));
    assert_int_equal(tx_expect(PKT_ACK, NULL).ack, in.seq + 2u);
    /* deferred again (an ACK of w2 only), then an ACK frame of the peer covering w3 as well: the
     * deferred ACK first, then the frame's; each write completes once */
    struct pkt_hdr w2 = our_write(0x3100, 100, 22);
    struct pkt_hdr w3 = our_write(0x3200, 100, 23);
    assert_int_equal(w3.seq, w2.seq + 1u);
    fh_dma_hold(1);
    struct pkt_hdr h = {.type = PKT_WRITE, .op = OP_ID, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x600,
                        .len = (uint16_t)sizeof d[2], .flags = PKT_F_LAST};
    h.seq = fwh.peer[PEER].tx_seq++;
    h.ack = w2.seq + 1u;
    fwh_send(PEER, &h, d[2]);
    fwh_run();
    assert_int_equal(fh_dma_queued(), 1);
    assert_false(fwh_cqe(EP, &c));
    fwh_ack(PEER); /* covers w2 and w3 */
    fwh_run();
    assert_int_equal(fh_dma_queued(), 3); /* the data, then both completions */
    fh_dma_hold(0);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_false(fwh_cqe(EP, &c));
    assert_memory_equal(fh_host(lpa + 0x600, sizeof d[2]), d[2], sizeof d[2]);
    assert_int_equal(stats().timeouts, 0);
}

/* A doorbell that arrives during the pass completing the peer's WRITE's placement (the host
 * answering the data it saw) is served before the ACK flush: our write goes first and carries the
 * ACK of that WRITE, and no stand-alone ACK frame goes ahead of it or after it (issue 12; loop.c). */
static void doorbell_during_pass_carries_ack(void **state)
{
    (void)state;
    static uint8_t d[64];
    for (unsigned j = 0; j < sizeof d; j++)
        d[j] = (uint8_t)(j * 11u + 3u);
    warm_target();
    fh_dma_hold(1);
    struct pkt_hdr in = peer_write(LKEY, 0x700, d, sizeof d);
    fwh_run();
    assert_int_equal(fh_dma_queued(), 1); /* the placement, held */
    fwh_fill_pattern(lpa + 0x4000, 80, 31);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 0x4000, LBUF, 80, RPID, RBUF, 0, RKEY, 31);
    uint32_t pi = fwh_post_entry(EP, &e);
    fh_doorbell_at_peek(EP, NIC_DB_SQ_PI, pi); /* rung in the pass that completes the placement */
    fh_dma_hold(0);
    fwh_run();
    assert_true(fh_doorbell_fired());
    assert_memory_equal(fh_host(lpa + 0x700, sizeof d), d, sizeof d);
    const uint8_t *p;
    struct pkt_hdr w = tx_expect(PKT_WRITE, &p); /* first, no ACK frame ahead of it */
    assert_int_equal(w.ack, in.seq + 1u);     /* the ACK of the data the host saw */
    assert_memory_equal(p, fh_host(lpa + 0x4000, 80), 80);
    assert_int_equal(fwh_tx_pending(), 0); /* nor after it */
    fwh_ack(PEER);
    fwh_run();
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, 80);
}

/* A write rung while the placement it answers completes (a ping-pong's pong: the doorbell and the
 * DMA completion in one pass): an inline one is built first, ahead of the completion's
 * bookkeeping, so it cannot carry that data's ACK, and an ACK frame carries it (loop.c
 * doorbells_inline_first); any other is built after the completion and carries the ACK, with no
 * ACK frame. Every byte in place. */
static void inline_write_goes_ahead_of_completions(void **state)
{
    (void)state;
    static uint8_t d[64];
    const uint8_t pong[8] = {'p', 'o', 'n', 'g', 1, 2, 3, 4};
    for (unsigned j = 0; j < sizeof d; j++)
        d[j] = (uint8_t)(j * 7u + 1u);
    warm_target();
    for (unsigned round = 0; round < 2; round++) {
        int inl = round == 0;
        fh_dma_hold(1);
        struct pkt_hdr in = peer_write(LKEY, 0x700 + round * 0x100u, d, sizeof d);
        fwh_run();
        assert_int_equal(fh_dma_queued(), 1); /* the placement, held */
        fwh_fill_pattern(lpa + 0x4000, 80, 31);
        struct nic_sq_entry e = fwh_write_wr(PEER, LVA + 0x4000, LBUF, inl ? 8 : 80, RPID, RBUF, 0, RKEY, 40 + round);
        if (inl) {
            e.flags |= NIC_WR_INLINE;
            nic_sqe_inline_pack(&e, pong, 8);
        }
        uint32_t pi = fwh_post_entry(EP, &e);
        fh_doorbell(EP, NIC_DB_SQ_PI, pi);        /* rung ... */
        assert_int_equal(fh_dma_complete(1), 1); /* ... as the placement completes */
        fh_dma_hold(0);
        fwh_run();
        assert_memory_equal(fh_host(lpa + 0x700 + round * 0x100u, sizeof d), d, sizeof d);
        /* (the fake MAC sends its control queue first, whenever frames were queued: the order on a
         * real link is the order of submission; the write's ACK field says when it was built) */
        struct pkt_hdr h, w = {0}, a = {0};
        const uint8_t *p, *wp = NULL;
        unsigned nw = 0, na = 0;
        while (fwh_tx_next(&h, &p)) {
            if (h.type == PKT_WRITE)
                w = h, wp = p, nw++;
            else if (h.type == PKT_ACK)
                a = h, na++;
            else
                fail_msg("frame type %u", h.type);
        }
        assert_int_equal(nw, 1);
        if (inl) {
            assert_memory_equal(wp, pong, 8);
            assert_int_equal(w.ack, in.seq); /* built before the placement's completion: without its ACK */
            assert_int_equal(na, 1);
            assert_int_equal(a.ack, in.seq + 1u); /* which an ACK frame carries */
        } else {
            assert_memory_equal(wp, fh_host(lpa + 0x4000, 80), 80);
            assert_int_equal(w.ack, in.seq + 1u); /* after it: carries it */
            assert_int_equal(na, 0);
        }
        fwh_ack(PEER);
        fwh_run();
        struct nic_cqe c;
        assert_true(fwh_cqe(EP, &c));
        assert_int_equal(c.status, NIC_ST_OK);
        assert_int_equal(c.bytes, inl ? 8 : 80);
    }
}

/* A stand-alone ACK from PEER up to (not including) `ack`, and a run of the NCP. */
static void ack_to(uint32_t ack)
{
    struct pkt_hdr k = {.type = PKT_ACK, .ack = ack};
    fwh_send(PEER, &k, NULL);
    fwh_run();
}

/* The next completion: request `wr_id`, SUCCESS, `bytes`. */
static void expect_cqe(uint32_t wr_id, uint32_t bytes)
{
    struct nic_cqe c;
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.wr_id_lo, wr_id);
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.bytes, bytes);
}

/* An ACK acknowledges a run of one write's segments at a time (cpl_on_ack_fields counts a run's
 * bytes once, issue 12): two writes of several segments each, acknowledged in three steps that cut
 * both of them; each completes SUCCESS with exactly its bytes when its last segment is
 * acknowledged, and not one step earlier. */
static void ack_runs_across_two_writes(void **state)
{
    (void)state;
    uint32_t m = mtu(), la = 3u * m + 100u, lb = 2u * m + 1u;
    struct nic_cqe c;

    fwh_prefill(PID);
    fwh_fill_pattern(lpa, la + lb, 9);
    struct nic_sq_entry a = fwh_write_wr(PEER, LVA, LBUF, la, RPID, RBUF, 0, RKEY, 11);
    struct nic_sq_entry b = fwh_write_wr(PEER, LVA + la, LBUF, lb, RPID, RBUF, la, RKEY, 12);
    fwh_post(EP, &a);
    fwh_post(EP, &b);
    fwh_run();
    uint32_t s0 = 0, bytes = 0;
    for (uint32_t i = 0; i < 7u; i++) { /* 4 segments of a, then 3 of b, in sequence */
        const uint8_t *p;
        struct pkt_hdr w = tx_expect(PKT_WRITE, &p);
        if (i == 0)
            s0 = w.seq;
        assert_int_equal(w.seq, s0 + i);
        assert_int_equal(w.off, i < 4u ? (uint64_t)i * m : la + (uint64_t)(i - 4u) * m);
        assert_memory_equal(p, fh_host(lpa + bytes, w.len), w.len);
        bytes += w.len;
    }
    assert_int_equal(bytes, la + lb);
    assert_int_equal(fwh_tx_pending(), 0);
    ack_to(s0 + 3u); /* a's first three segments */
    assert_false(fwh_cqe(EP, &c)); /* 3 x MTU of a's 3 x MTU + 100 */
    ack_to(s0 + 5u); /* a's last segment, b's first */
    expect_cqe(11, la);
    assert_false(fwh_cqe(EP, &c)); /* b: one MTU of 2 x MTU + 1 */
    ack_to(s0 + 6u);
    assert_false(fwh_cqe(EP, &c)); /* b: 2 x MTU of 2 x MTU + 1 */
    ack_to(s0 + 7u);
    expect_cqe(12, lb);
    assert_false(fwh_cqe(EP, &c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(deadline_from_departure, scen_setup),
        cmocka_unit_test_setup(control_frame_ahead_of_waiting_data, scen_setup),
        cmocka_unit_test_setup(ack_owed_waits_at_most_ack_wait, scen_setup),
        cmocka_unit_test_setup(ack_frames_cycle_the_pool, scen_setup),
        cmocka_unit_test_setup(piggybacked_ack_after_data, scen_setup),
        cmocka_unit_test_setup(deferred_ack_bounded, scen_setup),
        cmocka_unit_test_setup(doorbell_during_pass_carries_ack, scen_setup),
        cmocka_unit_test_setup(inline_write_goes_ahead_of_completions, scen_setup),
        cmocka_unit_test_setup(ack_runs_across_two_writes, scen_setup),
    };
    return FWH_RUN_TESTS("acks", tests);
}
