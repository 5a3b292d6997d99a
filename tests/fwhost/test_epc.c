/*
 * test_epc.c - host endpoints (issue 15 item 2, firmware/src/epc.c), host-native (tests/fwhost):
 * EP_TABLE and EP_OPEN refusals; a host endpoint filled on its first doorbell (context, record,
 * entries fetched by DMA), its write sent and completed; the cache full: the least recently rung
 * idle endpoint evicted (its counts written back into its context) and filled again with its
 * completion queue and request stream where they were; doorbells refused and counted (a closed
 * endpoint, an unknown offset, a count beyond the queue, a count ahead of the owner's record: nothing
 * executed); doorbells dropped by the FIFO recovered from the records; close of a cached and of an
 * evicted endpoint.
 */
#include "scen.h"

#include "ncp.h"

/* links epc.c (the NCP's own references to it are weak: firmware/src/epc.h) */
void epc_poll(void);
static void (*const link_epc)(void) __attribute__((used)) = epc_poll;

#define TAB_PA 0x600000u
#define HEP_CQ(id) (0x800000u + (uint32_t)(id) * 0x2000u)
#define HEP_SQ(id) (HEP_CQ(id) + 0x1000u)
#define H0 100u /* the first host endpoint id the tests use */

static uint32_t hsq_pi[NIC_BAR_DOORBELL_PAGES], hcq_ci[NIC_BAR_DOORBELL_PAGES];

static int32_t cmd1(struct nic_cmd c)
{
    return fwh_cmd(&c);
}

static struct nic_stats stats_now(void)
{
    struct nic_stats s;
    fwh_stats(&s);
    return s;
}

static void table(void)
{
    for (uint32_t k = 0; k < 4; k++) {
        memset(fh_host(TAB_PA + k * 4096u, 4096), 0, 4096);
        assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_TABLE, .key = k, .a = TAB_PA + k * 4096u}), NIC_ST_OK);
    }
}

static struct nic_ep_ctx ctx_of(uint32_t id)
{
    struct nic_ep_ctx x;
    memcpy(&x, fh_host(TAB_PA + id * sizeof x, sizeof x), sizeof x);
    return x;
}

static void ctx_set(uint32_t id, const struct nic_ep_ctx *x)
{
    memcpy(fh_host(TAB_PA + id * sizeof *x, sizeof *x), x, sizeof *x);
}

/* The driver's part of a host endpoint's open: context valid, then EP_OPEN. */
static void hep_open(uint32_t id)
{
    struct nic_ep_ctx x = {.flags = NIC_EPC_VALID, .pid = PID, .cq_log2 = FWH_CQ_LOG2, .cq_lo = HEP_CQ(id),
                           .sq_lo = HEP_SQ(id)};
    memset(fh_host(HEP_CQ(id), 0x2000), 0, 0x2000);
    ctx_set(id, &x);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = (uint16_t)id, .pid = PID, .a = HEP_CQ(id),
                                           .c = FWH_CQ_LOG2}),
                     NIC_ST_OK);
    hsq_pi[id] = hcq_ci[id] = 0;
}

/* The library's part of a post: the entry and the record in the process's page, then the ring. */
static void hep_post(uint32_t id, const struct nic_sq_entry *e)
{
    memcpy(fh_host(HEP_SQ(id) + (hsq_pi[id] % fwh.info.sq_entries) * 64u, 64), e, 64);
    hsq_pi[id]++;
    memcpy(fh_host(HEP_SQ(id) + NIC_EPC_DBREC, 4), &hsq_pi[id], 4);
    fh_doorbell(id, NIC_DB_SQ_PI, hsq_pi[id]);
}

static int hep_cqe(uint32_t id, struct nic_cqe *c)
{
    uint32_t ci = hcq_ci[id];
    memcpy(c, fh_host(HEP_CQ(id) + (ci & ((1u << FWH_CQ_LOG2) - 1u)) * sizeof *c, sizeof *c), sizeof *c);
    if ((c->phase & 1u) != (((ci >> FWH_CQ_LOG2) & 1u) ^ 1u))
        return 0;
    hcq_ci[id]++;
    return 1;
}

/* A signalled 100-byte write on host endpoint id, sent, acknowledged, completed (req = its index). */
static void hep_write(uint32_t id, uint64_t wr_id)
{
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, wr_id);
    struct nic_cqe c;
    hep_post(id, &e);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    fwh_ack(PEER);
    fwh_run();
    assert_true(hep_cqe(id, &c));
    assert_int_equal(c.wr_id_lo, (uint32_t)wr_id);
    assert_int_equal(c.status, NIC_ST_OK);
    assert_int_equal(c.req, hsq_pi[id] - 1u);
}

static void table_and_open_refused(void **state)
{
    (void)state;
    assert_int_equal(fwh.info.max_eps, NIC_BAR_DOORBELL_PAGES);
    assert_int_equal(fwh.info.ep_slots, NCP_EPC_N);
    /* no table yet: a host endpoint cannot open */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = H0, .pid = PID, .a = HEP_CQ(H0), .c = 3}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_TABLE, .key = 4, .a = TAB_PA}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_TABLE, .key = 0, .a = TAB_PA + 64}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_TABLE, .key = 0, .a = 0}), NIC_ST_BAD_CMD);
    table();
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = NIC_BAR_DOORBELL_PAGES, .pid = PID,
                                           .a = HEP_CQ(H0), .c = 3}),
                     NIC_ST_BAD_CMD);
    /* an event queue that is not the process's */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = H0, .pid = PID, .a = HEP_CQ(H0), .c = 3, .d = 2}),
                     NIC_ST_BAD_CMD);
    hep_open(H0);
    /* closing an endpoint the NCP holds nothing of: OK at once */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = H0}), NIC_ST_OK);
    assert_int_equal(stats_now().ep_fills, 0);
}

/* The first doorbell fills the context, reads the record, fetches the entry: the write goes out. */
static void fill_on_doorbell(void **state)
{
    (void)state;
    fwh_prefill(PID);
    table();
    hep_open(H0);
    hep_write(H0, 41);
    hep_write(H0, 42); /* cached now: no second fill */
    struct nic_stats s = stats_now();
    assert_int_equal(s.ep_fills, 1);
    assert_int_equal(s.ep_evictions, 0);
    assert_int_equal(s.ep_db_refused, 0);
}

/* NCP_EPC_N + 1 endpoints: the least recently rung is evicted (counts written back), then filled
 * again when it rings: its completions and requests continue where they were. */
static void evict_and_refill(void **state)
{
    (void)state;
    struct nic_ep_ctx x;
    fwh_prefill(PID);
    table();
    for (uint32_t i = 0; i <= NCP_EPC_N; i++) {
        hep_open(H0 + i);
        hep_write(H0 + i, 100 + i);
    }
    struct nic_stats s = stats_now();
    assert_int_equal(s.ep_fills, NCP_EPC_N + 1);
    assert_int_equal(s.ep_evictions, 1);
    x = ctx_of(H0); /* the first one was rung least recently */
    assert_int_equal(x.cq_n, 1);
    assert_int_equal(x.sq_n, 1);
    assert_int_equal(x.flags, NIC_EPC_VALID);
    hep_write(H0, 200); /* filled again (evicting H0 + 1): completion 1, request 1 */
    s = stats_now();
    assert_int_equal(s.ep_fills, NCP_EPC_N + 2);
    assert_int_equal(s.ep_evictions, 2);
    assert_int_equal(ctx_of(H0 + 1).sq_n, 1);
    assert_int_equal(hcq_ci[H0], 2);
    /* close of the evicted one: nothing on the NIC; of the cached one: drained */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = H0 + 1}), NIC_ST_OK);
    x = ctx_of(H0);
    x.flags = 0; /* the driver invalidates the context before EP_CLOSE */
    ctx_set(H0, &x);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = H0}), NIC_ST_OK);
    /* a ring of the closed one: a fill of an invalid context, refused */
    fh_doorbell(H0, NIC_DB_SQ_PI, 3);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(stats_now().ep_db_refused, 1);
}

/* Doorbells that are refused and counted, none executed. */
static void doorbells_refused(void **state)
{
    (void)state;
    fwh_prefill(PID);
    table();
    hep_open(H0);
    hep_write(H0, 1);
    fh_doorbell(H0 + 1, NIC_DB_SQ_PI, 1); /* never opened: its context is not valid */
    fwh_run();
    assert_int_equal(stats_now().ep_db_refused, 1);
    fh_doorbell(H0, 0x900, 2); /* an offset no doorbell has */
    fwh_run();
    assert_int_equal(stats_now().ep_db_refused, 2);
    fh_doorbell(H0, NIC_DB_SQ_PI, 1 + fwh.info.sq_entries + 1); /* beyond the queue */
    fwh_run();
    assert_int_equal(stats_now().ep_db_refused, 3);
    /* a stale entry sits in slot 1 (a previous lap, say); someone rings for it: the owner's record
     * says 1, so nothing is taken */
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 99);
    memcpy(fh_host(HEP_SQ(H0) + 64u, 64), &e, 64);
    fh_doorbell(H0, NIC_DB_SQ_PI, 2);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(stats_now().ep_db_refused, 4);
    hep_write(H0, 2); /* the owner goes on */
    assert_int_equal(stats_now().ep_db_refused, 4);
}

/* The doorbell FIFO drops a host endpoint's ring: the NCP sees the drop counter move and reads the
 * records again, so the request is not stranded. */
static void lost_doorbell_recovered(void **state)
{
    (void)state;
    struct nic_cqe c;
    fwh_prefill(PID);
    table();
    hep_open(H0);
    hep_open(H0 + 1);
    hep_write(H0, 1); /* cached */
    for (uint32_t i = 0; i < 256; i++) /* fill the FIFO: writes at an offset no doorbell has */
        fh_doorbell(EP, 0x900, i);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 2);
    hep_post(H0, &e); /* its ring is dropped */
    e.wr_id_lo = 3;
    hep_post(H0 + 1, &e); /* and this one (not cached) */
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    fwh_ack(PEER);
    fwh_run();
    assert_true(hep_cqe(H0, &c)); /* (write 1's completion was taken by hep_write) */
    assert_int_equal(c.wr_id_lo, 2);
    assert_true(hep_cqe(H0 + 1, &c));
    assert_int_equal(c.wr_id_lo, 3);
    assert_true(stats_now().db_dropped > 0);
    assert_int_equal(stats_now().ep_db_refused, 0); /* the records of the other ids were read unseen */
}

/* Inline writes (ABI 2.4) on a host endpoint: the entry (with its bytes) is fetched by DMA into
 * the slot's staging image; the frame carries the bytes, around the ring's end; a lost one is
 * resent with the same bytes, read from the staging image again. */
static void inline_writes_on_host_endpoint(void **state)
{
    uint8_t data[NIC_INLINE_MAX];
    (void)state;
    for (unsigned i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0x5Au ^ (i * 29u));
    fwh_prefill(PID);
    table();
    hep_open(H0);
    for (uint32_t k = 0; k < fwh.info.sq_entries + 3u; k++) { /* past the ring's end */
        uint32_t len = 1u + k % NIC_INLINE_MAX;
        struct nic_sq_entry e = fwh_write_wr(PEER, 0, 0, len, RPID, RBUF, 0, RKEY, 900u + k);
        e.flags |= NIC_WR_INLINE;
        nic_sqe_inline_pack(&e, data, len);
        hep_post(H0, &e);
        fwh_run();
        const uint8_t *p;
        if (k == 5) { /* lost: the timer resends it */
            struct pkt_hdr h;
            assert_true(fwh_tx_next(&h, NULL));
            fwh.peer[PEER].rx_next--; /* it never arrived */
            timer_fires();
        }
        struct pkt_hdr h = tx_expect(PKT_WRITE, &p);
        assert_int_equal(h.len, len);
        assert_memory_equal(p, data, len);
        fwh_ack(PEER);
        fwh_run();
        struct nic_cqe c;
        assert_true(hep_cqe(H0, &c));
        assert_int_equal(c.status, NIC_ST_OK);
        assert_int_equal(c.bytes, len);
        assert_int_equal(c.wr_id_lo, 900u + k);
    }
    struct nic_stats s = stats_now();
    assert_int_equal(s.retransmits, 1);
    assert_int_equal(s.local_refused, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(table_and_open_refused, scen_setup),
        cmocka_unit_test_setup(fill_on_doorbell, scen_setup),
        cmocka_unit_test_setup(evict_and_refill, scen_setup),
        cmocka_unit_test_setup(doorbells_refused, scen_setup),
        cmocka_unit_test_setup(lost_doorbell_recovered, scen_setup),
        cmocka_unit_test_setup(inline_writes_on_host_endpoint, scen_setup),
    };
    return FWH_RUN_TESTS("epc", tests);
}
