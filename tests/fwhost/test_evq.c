/*
 * test_evq.c - the NCP's event queues (ABI 2.1, firmware/src/evq.c), host-native (tests/fwhost):
 * the commands and their refusals, an entry after each completion of a bound endpoint (after the
 * completion's DMA), overflow counted and reported in the slot kept for it and after a count makes
 * room, EQ_ARM's interrupt (once, at once when entries are there), EQ_CLOSE, and the target-side
 * notification of a write with immediate: once per write, with its immediate, length, buffer and
 * offset; none for a duplicate, a void segment or a segment whose DMA failed (until it is resent).
 */
#include "scen.h"

#define EQ 2u
#define EP2 2u
#define EQ_PA 0x30000u

static int32_t cmd1(struct nic_cmd c)
{
    return fwh_cmd(&c);
}

static int32_t eq_open(uint16_t id, uint16_t pid, uint32_t log2, uint32_t flags)
{
    memset(fh_host(EQ_PA, 4096), 0, 4096);
    return cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = id, .pid = pid, .a = EQ_PA, .c = log2, .d = flags});
}

static int32_t eq_arm(uint16_t id, uint16_t pid, uint32_t ci, uint32_t c)
{
    return cmd1((struct nic_cmd){.op = NIC_CMD_EQ_ARM, .ep = id, .pid = pid, .a = ci, .c = c});
}

/* Entry i of the queue (2^log2 entries), 0 if its phase says it is not there yet. */
static int eqe(uint32_t i, uint32_t log2, struct nic_eqe *e)
{
    memcpy(e, fh_host(EQ_PA + (i & ((1u << log2) - 1u)) * sizeof *e, sizeof *e), sizeof *e);
    return (e->phase & 1u) == (((i >> log2) & 1u) ^ 1u) && e->seq == i;
}

/* A second endpoint of PID bound to the queue (EP_OPEN d). */
static void ep2_open(void)
{
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = EP2, .pid = PID, .a = FWH_CQ_PA + EP2 * 0x1000u,
                                           .c = FWH_CQ_LOG2, .d = EQ}),
                     NIC_ST_OK);
    fwh.cq_ci[EP2] = 0;
    fwh.sq_pi[EP2] = 0;
}

/* A signalled write of 100 bytes to PEER on EP2, acknowledged: one completion. */
static void one_write(uint64_t id)
{
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, id);
    fwh_post(EP2, &e);
    fwh_run();
    struct pkt_hdr h = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(h.flags & PKT_F_IMM, 0);
    assert_int_equal(h.reason, 0);
    fwh_ack(PEER);
    fwh_run();
}

static void eq_commands_refused(void **state)
{
    (void)state;
    const uint16_t max = fwh.info.max_procs;
    memset(fh_host(EQ_PA, 4096), 0, 4096);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = 0, .pid = PID, .a = EQ_PA, .c = 3}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = max, .pid = PID, .a = EQ_PA, .c = 3}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = EQ, .pid = 0, .a = EQ_PA, .c = 3}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = EQ, .pid = PID, .a = EQ_PA, .c = 0}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = EQ, .pid = PID, .a = EQ_PA, .c = NIC_EQ_LOG2_MAX + 1}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = EQ, .pid = PID, .a = EQ_PA, .c = 3, .d = 0x80}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_OPEN, .ep = EQ, .pid = PID, .a = EQ_PA + 32, .c = 3}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_CLOSE, .ep = EQ}), NIC_ST_BAD_CMD); /* not open */
    assert_int_equal(eq_arm(EQ, PID, 0, 0), NIC_ST_BAD_CMD);
    /* an endpoint cannot report to a queue that is not open, or not its process's */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = EP2, .pid = PID, .a = FWH_CQ_PA + EP2 * 0x1000u,
                                           .c = FWH_CQ_LOG2, .d = EQ}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(eq_open(EQ, RPID, 3, 0), NIC_ST_OK);
    assert_int_equal(eq_open(EQ, PID, 3, 0), NIC_ST_BAD_CMD); /* open */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = EP2, .pid = PID, .a = FWH_CQ_PA + EP2 * 0x1000u,
                                           .c = FWH_CQ_LOG2, .d = EQ}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(eq_arm(EQ, PID, 0, 0), NIC_ST_BAD_CMD);  /* another pid's queue */
    assert_int_equal(eq_arm(EQ, RPID, 1, 0), NIC_ST_BAD_CMD); /* a count beyond what was written */
    assert_int_equal(eq_arm(EQ, RPID, 0, 2), NIC_ST_BAD_CMD); /* unknown mode */
    assert_int_equal(eq_arm(EQ, RPID, 0, NIC_EQ_ARM_COUNT_ONLY), NIC_ST_OK);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_CLOSE, .ep = EQ}), NIC_ST_OK);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_CLOSE, .ep = EQ}), NIC_ST_BAD_CMD);
    assert_int_equal(fwh.eq_events[EQ], 0);
}

/* Each completion of a bound endpoint: its CQE, then one NIC_EQE_CQ naming it; an endpoint not
 * bound (EP) writes none. */
static void eq_entry_after_completion(void **state)
{
    (void)state;
    struct nic_cqe c;
    struct nic_eqe e;
    fwh_prefill(PID);
    assert_int_equal(eq_open(EQ, PID, 3, 0), NIC_ST_OK);
    ep2_open();
    one_write(7);
    assert_true(fwh_cqe(EP2, &c));
    assert_int_equal(c.wr_id_lo, 7);
    assert_true(eqe(0, 3, &e));
    assert_int_equal(e.type, NIC_EQE_CQ);
    assert_int_equal(e.ep, EP2);
    assert_int_equal(e.a, 0); /* the completion queue entry it follows */
    assert_false(eqe(1, 3, &e));
    /* the completion's DMA went before the entry's */
    int cq_at = -1, eq_at = -1;
    for (uint32_t i = 0; i < fh_dma_count(); i++) {
        const struct fh_dma *d = fh_dma_log(i);
        if (d->to_host && d->host == FWH_CQ_PA + EP2 * 0x1000u)
            cq_at = (int)i;
        if (d->to_host && d->host == EQ_PA)
            eq_at = (int)i;
    }
    assert_true(cq_at >= 0 && eq_at > cq_at);
    /* the unbound endpoint: its completion, no entry */
    struct nic_sq_entry w = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 8);
    fwh_post(EP, &w);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    fwh_ack(PEER);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_false(eqe(1, 3, &e));
    struct nic_stats s = stats();
    assert_int_equal(s.eq_entries, 1);
    assert_int_equal(s.eq_lost, 0);
}

/* A 4-entry queue never read: 3 entries, then the report in the slot kept for it (lost 1), then
 * losses counted; a count (EQ_ARM) makes room: the report of the rest; EQ_ARM with entries there
 * beyond the count interrupts at once, on an empty queue at the next entry only, once. */
static void eq_overflow_and_arm(void **state)
{
    (void)state;
    struct nic_eqe e;
    fwh_prefill(PID);
    assert_int_equal(eq_open(EQ, PID, 2, 0), NIC_ST_OK);
    ep2_open();
    for (unsigned i = 0; i < 7; i++)
        one_write(i);
    for (unsigned i = 0; i < 3; i++) {
        assert_true(eqe(i, 2, &e));
        assert_int_equal(e.type, NIC_EQE_CQ);
        assert_int_equal(e.a, i);
    }
    assert_true(eqe(3, 2, &e));
    assert_int_equal(e.type, NIC_EQE_OVERFLOW);
    assert_int_equal(e.a, 1);
    struct nic_stats s = stats();
    assert_int_equal(s.eq_entries, 4);
    assert_int_equal(s.eq_lost, 4); /* writes 3..6: the first reported, three more since */
    assert_int_equal(fwh.eq_events[EQ], 0);
    /* the process read all 4 and sleeps: the report of the other 3 comes, and wakes it */
    assert_int_equal(eq_arm(EQ, PID, 4, 0), NIC_ST_OK);
    fwh_run();
    assert_true(eqe(4, 2, &e));
    assert_int_equal(e.type, NIC_EQE_OVERFLOW);
    assert_int_equal(e.a, 3);
    assert_int_equal(fwh.eq_events[EQ], 1);
    /* an entry beyond the count: the ARM interrupts at once */
    assert_int_equal(eq_arm(EQ, PID, 4, 0), NIC_ST_OK);
    fwh_run();
    assert_int_equal(fwh.eq_events[EQ], 2);
    /* empty queue: armed, no interrupt until the next entry, then one */
    assert_int_equal(eq_arm(EQ, PID, 5, 0), NIC_ST_OK);
    fwh_run();
    assert_int_equal(fwh.eq_events[EQ], 2);
    one_write(10);
    assert_int_equal(fwh.eq_events[EQ], 3);
    one_write(11);
    assert_int_equal(fwh.eq_events[EQ], 3); /* disarmed by the first */
    s = stats();
    assert_int_equal(s.eq_irqs, 3);
    assert_int_equal(s.eq_lost, 4);
    /* closed: nothing more is written */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_CLOSE, .ep = EQ}), NIC_ST_OK);
    uint8_t before[128];
    memcpy(before, fh_host(EQ_PA, sizeof before), sizeof before);
    one_write(12);
    assert_memory_equal(fh_host(EQ_PA, sizeof before), before, sizeof before);
}

/* A peer's write with immediate, two segments: one notification when the last segment is in
 * memory; a duplicate of that segment, a void one, or one whose DMA failed give none (the failed
 * one gives it when it is accepted again). */
static void imm_notified_once(void **state)
{
    (void)state;
    static uint8_t a[8192];
    struct nic_eqe e;
    const uint32_t m = mtu(), len = m + 300;
    for (uint32_t i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)(i * 7u + 3u);
    fwh_prefill(PID);
    assert_int_equal(eq_open(EQ, PID, 3, NIC_EQF_NOTIFY), NIC_ST_OK);
    struct pkt_hdr h1 = {.type = PKT_WRITE, .op = 77, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x1000, .len = (uint16_t)m,
                         .xlen = 0, .reason = 0xABCD};
    struct pkt_hdr h2 = h1;
    h2.off = 0x1000 + m;
    h2.len = 300;
    h2.xlen = m;
    h2.flags = PKT_F_LAST | PKT_F_IMM;
    fwh_send_seq(PEER, &h1, a);
    fwh_run();
    assert_false(eqe(0, 3, &e)); /* not before the last segment */
    fwh_send_seq(PEER, &h2, a + m);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x1000, len), a, len);
    assert_true(eqe(0, 3, &e));
    assert_int_equal(e.type, NIC_EQE_IMM);
    assert_int_equal(e.a, 0xABCD);
    assert_int_equal(e.b, len);
    assert_int_equal(e.c, LBUF);
    assert_int_equal(e.d, 0x1000);
    assert_int_equal(e.ep, PEER);
    /* the last segment again (a duplicate): dropped, no second notification */
    fwh_send(PEER, &h2, a + m);
    fwh_run();
    assert_false(eqe(1, 3, &e));
    assert_true(stats().dup_packets >= 1);
    /* a void last segment (the writer's data failed): no notification */
    struct pkt_hdr v = h2;
    v.len = 0;
    v.flags |= PKT_F_VOID;
    fwh_send_seq(PEER, &v, NULL);
    fwh_run();
    assert_false(eqe(1, 3, &e));
    /* the last segment's DMA fails: none; resent and delivered: one */
    struct pkt_hdr w = h2;
    w.off = 0x3000;
    w.xlen = 0;
    w.reason = 0x1234;
    fh_dma_fail(lpa + 0x3000, lpa + 0x3000 + 300, 1, 1);
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    assert_false(eqe(1, 3, &e));
    fwh.peer[PEER].tx_seq--; /* the peer resends it (the NCP did not acknowledge it) */
    fwh_send_seq(PEER, &w, a);
    fwh_run();
    assert_true(eqe(1, 3, &e));
    assert_int_equal(e.type, NIC_EQE_IMM);
    assert_int_equal(e.a, 0x1234);
    assert_int_equal(e.b, 300);
    assert_int_equal(e.d, 0x3000);
    assert_false(eqe(2, 3, &e));
    assert_memory_equal(fh_host(lpa + 0x3000, 300), a, 300);
    struct nic_stats s = stats();
    assert_int_equal(s.eq_entries, 2);
    assert_int_equal(s.imm_no_eq, 0);
    assert_int_equal(s.rx_dma_errors, 1);
}

/* A write with immediate to a process without a notify queue: placed and acknowledged, counted. */
static void imm_without_queue_counted(void **state)
{
    (void)state;
    static uint8_t a[64];
    memset(a, 0x5A, sizeof a);
    fwh_prefill(PID);
    assert_int_equal(eq_open(EQ, PID, 3, 0), NIC_ST_OK); /* a queue, but not for notifications */
    struct pkt_hdr h = {.type = PKT_WRITE, .op = 5, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x40, .len = 64,
                        .flags = PKT_F_LAST | PKT_F_IMM, .reason = 9};
    fwh_send_seq(PEER, &h, a);
    fwh_run();
    assert_memory_equal(fh_host(lpa + 0x40, 64), a, 64);
    struct pkt_hdr k = tx_expect(PKT_ACK, NULL);
    assert_int_equal(k.ack, h.seq + 1);
    struct nic_stats s = stats();
    assert_int_equal(s.imm_no_eq, 1);
    assert_int_equal(s.eq_entries, 0);
}

/* The initiator side: a write with immediate carries it on every segment, PKT_F_IMM on the last;
 * a read with the flag is malformed. */
static void imm_sent_on_last_segment(void **state)
{
    (void)state;
    struct nic_cqe c;
    const uint32_t m = mtu();
    fwh_prefill(PID);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, m + 10, RPID, RBUF, 0, RKEY, 1);
    e.flags |= NIC_WR_IMM;
    e.reserved1[0] = 0xFEED;
    fwh_post(EP, &e);
    fwh_run();
    struct pkt_hdr h1 = tx_expect(PKT_WRITE, NULL), h2 = tx_expect(PKT_WRITE, NULL);
    assert_int_equal(h1.flags & (PKT_F_IMM | PKT_F_LAST), 0);
    assert_int_equal(h2.flags & (PKT_F_IMM | PKT_F_LAST), PKT_F_IMM | PKT_F_LAST);
    assert_int_equal(h1.reason, 0xFEED);
    assert_int_equal(h2.reason, 0xFEED);
    fwh_ack(PEER);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_OK);
    struct nic_sq_entry r = e;
    r.op = NIC_OP_RDMA_READ;
    r.wr_id_lo = 2;
    fwh_post(EP, &r);
    fwh_run();
    assert_true(fwh_cqe(EP, &c));
    assert_int_equal(c.status, NIC_ST_BAD_DESC);
    assert_int_equal(fwh_tx_pending(), 0);
}

/* EQ_POST: the driver's upcall entry, as given, waking an armed queue; refused for another pid or
 * another entry type. */
static void eq_post_upcall(void **state)
{
    (void)state;
    struct nic_eqe e;
    assert_int_equal(eq_open(EQ, PID, 3, 0), NIC_ST_OK);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_POST, .ep = EQ, .pid = RPID, .key = NIC_EQE_UPCALL, .a = 1}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_POST, .ep = EQ, .pid = PID, .key = NIC_EQE_IMM, .a = 1}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_POST, .ep = 9, .pid = PID, .key = NIC_EQE_UPCALL}),
                     NIC_ST_BAD_CMD);
    assert_false(eqe(0, 3, &e));
    assert_int_equal(eq_arm(EQ, PID, 0, 0), NIC_ST_OK);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EQ_POST, .ep = EQ, .pid = PID, .key = NIC_EQE_UPCALL, .a = 42,
                                           .b = 0x10000000u, .c = 0xF, .d = 64}),
                     NIC_ST_OK);
    fwh_run();
    assert_true(eqe(0, 3, &e));
    assert_int_equal(e.type, NIC_EQE_UPCALL);
    assert_int_equal(e.a, 42);
    assert_int_equal(e.b, 0x10000000u);
    assert_int_equal(e.c, 0xF);
    assert_int_equal(e.d, 64);
    assert_int_equal(fwh.eq_events[EQ], 1);
}

/* NIC_CMD_USAGE: the VMH ways with their LRU stamps, as many as fit; a hit moves a line's stamp
 * forward; refused for an unknown cache or a buffer smaller than one way. */
static void usage_exports_lru_stamps(void **state)
{
    (void)state;
    static uint8_t a[64];
    const uint64_t pa = 0x60000u;
    const uint32_t L = fwh.info.cache[NIC_CACHE_VMH].line;
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE__COUNT, .a = (uint32_t)pa, .c = 4096}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pa, .c = 8}),
                     NIC_ST_BAD_CMD);
    fwh_prefill(PID); /* the buffer's VMH lines installed */
    const uint32_t l0 = (uint32_t)((LVA >> 12) / L);
    /* a write into line l0: a hit, its stamp moves forward */
    memset(fh_host(pa, 4096), 0xEE, 4096);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pa, .c = 4096}),
                     NIC_ST_OK);
    const struct nic_usage_way *w = (const struct nic_usage_way *)fh_host(pa, 4096);
    int at = -1;
    uint32_t before = 0;
    for (int i = 0; i < 256; i++)
        if (w[i].key == (PID | NIC_USAGE_VALID) && w[i].line == l0) {
            at = i;
            before = w[i].stamp;
        }
    assert_true(at >= 0);
    assert_int_equal(*fh_host(pa + 4096 - 1, 1) == 0xEE, fwh.info.cache[NIC_CACHE_VMH].entries / L * 16u < 4096u);
    struct pkt_hdr h = {.type = PKT_WRITE, .op = 3, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0, .len = 64,
                        .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &h, a);
    fwh_run();
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pa, .c = 4096}),
                     NIC_ST_OK);
    assert_true((int32_t)(w[at].stamp - before) > 0);
    /* a small buffer gets the first ways only: nothing written beyond it */
    memset(fh_host(pa, 4096), 0xEE, 4096);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pa, .c = 40}),
                     NIC_ST_OK);
    assert_int_equal(*fh_host(pa + 32, 1), 0xEE);
}

/* NIC_CMD_USAGE with d = NIC_USAGE_COUNTS (ABI 2.3, issue 15 item 4): one uint32_t per way, in the
 * ways' order, its hits since the fill: each packet into line l0 adds its lookups, other lines do not
 * move; announced in nic_info.caps; unknown d bits and a buffer below one count refused. */
static void usage_exports_access_counts(void **state)
{
    (void)state;
    static uint8_t a[64];
    const uint64_t pa = 0x60000u, pc = 0x62000u;
    const uint32_t L = fwh.info.cache[NIC_CACHE_VMH].line;
    assert_true(fwh.info.caps & NIC_CAP_USAGE_COUNTS);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pc, .c = 4096,
                                           .d = 2}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pc, .c = 3,
                                           .d = NIC_USAGE_COUNTS}),
                     NIC_ST_BAD_CMD);
    fwh_prefill(PID);
    const uint32_t l0 = (uint32_t)((LVA >> 12) / L);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pa, .c = 4096}),
                     NIC_ST_OK);
    const struct nic_usage_way *w = (const struct nic_usage_way *)fh_host(pa, 4096);
    int at = -1;
    for (int i = 0; i < 256 && at < 0; i++)
        if (w[i].key == (PID | NIC_USAGE_VALID) && w[i].line == l0)
            at = i;
    assert_true(at >= 0);
    uint32_t before[256];
    const uint32_t *u = (const uint32_t *)fh_host(pc, 4096);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pc, .c = 4096,
                                           .d = NIC_USAGE_COUNTS}),
                     NIC_ST_OK);
    memcpy(before, u, sizeof before);
    for (unsigned k = 0; k < 3; k++) { /* three writes into line l0 */
        struct pkt_hdr h = {.type = PKT_WRITE, .op = 3 + k, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0, .len = 64,
                            .flags = PKT_F_LAST};
        fwh_send_seq(PEER, &h, a);
        fwh_run();
    }
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pc, .c = 4096,
                                           .d = NIC_USAGE_COUNTS}),
                     NIC_ST_OK);
    assert_true(u[at] >= before[at] + 3u);
    for (int i = 0; i < 256; i++)
        if (i != at)
            assert_int_equal(u[i], before[i]);
    /* a small buffer gets the first counts only */
    memset(fh_host(pc, 4096), 0xEE, 4096);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_USAGE, .cache = NIC_CACHE_VMH, .a = (uint32_t)pc, .c = 10,
                                           .d = NIC_USAGE_COUNTS}),
                     NIC_ST_OK);
    assert_int_equal(*fh_host(pc + 8, 1), 0xEE);
    assert_true(u[0] != 0xEEEEEEEEu && u[1] != 0xEEEEEEEEu); /* 8 bytes: two counts */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(eq_commands_refused, scen_setup),
        cmocka_unit_test_setup(eq_entry_after_completion, scen_setup),
        cmocka_unit_test_setup(eq_overflow_and_arm, scen_setup),
        cmocka_unit_test_setup(imm_notified_once, scen_setup),
        cmocka_unit_test_setup(imm_without_queue_counted, scen_setup),
        cmocka_unit_test_setup(imm_sent_on_last_segment, scen_setup),
        cmocka_unit_test_setup(eq_post_upcall, scen_setup),
        cmocka_unit_test_setup(usage_exports_lru_stamps, scen_setup),
        cmocka_unit_test_setup(usage_exports_access_counts, scen_setup),
    };
    return FWH_RUN_TESTS("evq", tests) ? 1 : 0;
}
