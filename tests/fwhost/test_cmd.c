/*
 * test_cmd.c - the NCP's command ring and event ring, host-native (tests/fwhost): the info block,
 * every command's refusals, ring order, FILL / INVALIDATE ordering against DMA, stale fills, the
 * event ring's back-pressure, doorbell coalescing, SHUTDOWN, boot checks.
 */
#include "scen.h"

#include "nic_regs.h"

void ncp_boot(void);

/* The info block the driver reads at probe. */
static void info_block(void **state)
{
    (void)state;
    const struct nic_info *i = &fwh.info;
    assert_int_equal(i->caps, NIC_CAP_DYNAMIC_LOOKUP | NIC_CAP_NACK | NIC_CAP_USAGE_COUNTS | NIC_CAP_INLINE);
    assert_true(i->mtu >= 256 && i->mtu % 64 == 0);
    assert_true(i->max_procs >= 2 && i->max_procs <= NIC_SENDQ_SLOTS);
    assert_true(i->sq_entries >= 1 && i->sq_entries * 64u <= NIC_SENDQ_STRIDE);
    assert_int_equal(i->sq_stride, NIC_SENDQ_STRIDE);
    assert_true(i->cmd_entries >= 2 && i->max_peers >= NODES);
    for (unsigned c = 0; c < NIC_CACHE__COUNT; c++) {
        assert_true(i->cache[c].line >= 1 && i->cache[c].ways >= 1);
        assert_int_equal(i->cache[c].entries % (i->cache[c].line * i->cache[c].ways), 0);
    }
    assert_true(i->lookup_bytes >= i->cache[NIC_CACHE_VMH].entries * 4u); /* at least the VMH words */
    assert_true(i->lookup_bytes < NIC_SRAM_SIZE);
}

static int32_t cmd1(struct nic_cmd c)
{
    return fwh_cmd(&c);
}

/* Malformed commands are answered NIC_ST_BAD_CMD and change nothing. */
static void bad_commands_refused(void **state)
{
    (void)state;
    const uint32_t d = ME | NODES << 16;
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 1, .d = d}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 17, .d = d}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 8, .d = (ME + 1) | NODES << 16}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 8, .d = ME}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 8, .d = ME | 999u << 16}),
                     NIC_ST_BAD_CMD);
    const uint32_t cq = FWH_CQ_PA + 0x8000u;
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = 0, .pid = 1, .a = cq, .c = 4}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = (uint16_t)fwh.info.max_procs, .pid = 1,
                                           .a = cq, .c = 4}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = EP, .pid = 1, .a = cq, .c = 4}),
                     NIC_ST_BAD_CMD); /* open */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = 4, .pid = 1, .a = cq, .c = 0}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_OPEN, .ep = 4, .pid = 1, .a = cq, .c = 17}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = 0}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = 99}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_EP_CLOSE, .ep = 4}), NIC_ST_BAD_CMD); /* not open */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_FILL, .cache = NIC_CACHE__COUNT, .a = FWH_IMG_PA}),
                     NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_STATIC_LOAD, .cache = NIC_CACHE_VMH, .a = FWH_IMG_PA}),
                     NIC_ST_BAD_CMD); /* a dynamic build */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_FILL, .cache = NIC_CACHE_VMH, .key = 0xFFFFFFFFu,
                                           .a = FWH_IMG_PA, .c = NIC_FILL_CURRENT}),
                     NIC_ST_BAD_CMD); /* no such line */
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INVALIDATE, .cache = 7}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = 99}), NIC_ST_BAD_CMD);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_NOP}), NIC_ST_OK);
    /* the endpoint that was open still works */
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 10, RPID, RBUF, 0, RKEY, 1);
    fwh_post(EP, &e);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
}

/* Commands are answered in ring order, each once, whatever they wait for. */
static void commands_answered_in_ring_order(void **state)
{
    (void)state;
    struct nic_cmd c[6] = {
        {.op = NIC_CMD_NOP},
        {.op = NIC_CMD_STATS, .a = FWH_STATS_PA},
        {.op = NIC_CMD_NOP},
        {.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID, .key = 0, .c = 4},
        {.op = 99},
        {.op = NIC_CMD_NOP},
    };
    fwh_fill_cmd(&c[2], NIC_CACHE_VMH, PID, (uint32_t)(LVA >> 12));
    uint32_t first = fwh.n_done, seq0 = fwh.cmd_pi;
    for (unsigned i = 0; i < 6; i++)
        fwh_cmd_post(&c[i]);
    fwh_run();
    assert_int_equal(fwh.n_done - first, 6);
    for (unsigned i = 0; i < 6; i++)
        assert_int_equal(fwh.done_order[first + i], seq0 + i);
    int32_t st;
    assert_true(fwh_cmd_answered(seq0 + 4, &st));
    assert_int_equal(st, NIC_ST_BAD_CMD);
}

/* INVALIDATE is answered only after every DMA posted before it completed (a receive DMA into a
 * page of the invalidated line, held by the engine); a FILL only after its image came in. */
static void invalidate_waits_for_earlier_dma(void **state)
{
    (void)state;
    static uint8_t a[512];
    memset(a, 0x3C, sizeof a);
    fwh_prefill(PID);
    fh_dma_hold(1);
    struct pkt_hdr w = {.type = PKT_WRITE, .op = 5, .pid = PID, .buf = LBUF, .key = LKEY, .off = 0x100, .len = 512,
                        .flags = PKT_F_LAST};
    fwh_send_seq(PEER, &w, a);
    fh_run();
    assert_int_equal(fh_dma_queued(), 1); /* the data, held */
    uint32_t dma0 = fh_dma_count();
    struct nic_cmd inv = {.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID,
                          .key = (uint32_t)((LVA >> 12) / fwh.info.cache[NIC_CACHE_VMH].line), .c = 1};
    uint32_t seq = fwh_cmd_post(&inv);
    int32_t st;
    for (unsigned i = 0; i < 3; i++) { /* the NCP runs, the engine does not complete */
        fh_run();
        assert_false(fwh_cmd_answered(seq, &st));
    }
    fh_dma_hold(0);
    fwh_run();
    assert_true(fwh_cmd_answered(seq, &st));
    assert_int_equal(st, NIC_ST_OK);
    /* in the engine's order: the data first, then the CMD_DONE event */
    int data_at = -1, event_at = -1;
    for (uint32_t i = dma0; i < fh_dma_count(); i++) {
        const struct fh_dma *d = fh_dma_log(i);
        if (d->to_host && d->host == lpa + 0x100)
            data_at = (int)i;
        if (d->to_host && d->host >= FWH_EV_PA && d->host < FWH_CQ_PA && event_at < 0)
            event_at = (int)i;
    }
    assert_true(data_at >= 0 && event_at > data_at);
    assert_memory_equal(fh_host(lpa + 0x100, 512), a, 512);
    /* a FILL waits for its image */
    fh_dma_hold(1);
    struct nic_cmd f;
    fwh_fill_cmd(&f, NIC_CACHE_VMH, PID, (uint32_t)(LVA >> 12));
    seq = fwh_cmd_post(&f);
    fh_run();
    assert_false(fwh_cmd_answered(seq, &st));
    fh_dma_hold(0);
    fwh_run();
    assert_true(fwh_cmd_answered(seq, &st));
    assert_int_equal(st, NIC_ST_OK);
}

/* After an invalidation the line misses again; a fill carrying the epoch of a miss from before
 * the invalidation is rejected (it could install a stale translation). */
static void invalidation_and_stale_fill(void **state)
{
    (void)state;
    fwh_prefill(PID);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 1);
    fwh_post(EP, &e);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    assert_int_equal(fwh.misses, 0);
    uint32_t line = (uint32_t)((LVA >> 12) / fwh.info.cache[NIC_CACHE_VMH].line);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID, .key = line,
                                           .c = 1}),
                     NIC_ST_OK);
    fwh.auto_fill = 0;
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh.misses, 1);
    struct nic_event m = fwh.last_miss;
    assert_int_equal(m.cache, NIC_CACHE_VMH);
    assert_int_equal(m.key, line);
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INVALIDATE, .cache = NIC_CACHE_VMH, .pid = PID, .key = line,
                                           .c = 1}),
                     NIC_ST_OK);
    struct nic_cmd f;
    fwh_fill_cmd(&f, NIC_CACHE_VMH, PID, (uint32_t)(LVA >> 12));
    f.c = 0;
    f.epoch = m.epoch; /* the miss's epoch: stale now */
    assert_int_equal(fwh_cmd(&f), NIC_ST_NO_RESOURCES);
    assert_int_equal(stats().cache[NIC_CACHE_VMH].fills_rejected, 1);
    fwh.auto_fill = 1;
    fwh_fill_cmd(&f, NIC_CACHE_VMH, PID, (uint32_t)(LVA >> 12));
    assert_int_equal(fwh_cmd(&f), NIC_ST_OK);
    fwh_run();
    tx_expect(PKT_WRITE, NULL); /* the parked request went on */
}

/* A FILL whose image DMA fails is answered NIC_ST_HOST_ERROR and installs nothing. */
static void fill_dma_error(void **state)
{
    (void)state;
    fh_dma_fail(FWH_IMG_PA, FWH_STATS_PA, 1, FH_DMA_HOST_ERR);
    assert_int_equal(fwh_fill(NIC_CACHE_PCH, PID, PID), NIC_ST_HOST_ERROR);
    struct nic_stats s = stats();
    assert_int_equal(s.cache[NIC_CACHE_PCH].fills, 0);
    assert_int_equal(fwh_fill(NIC_CACHE_PCH, PID, PID), NIC_ST_OK);
    assert_int_equal(stats().cache[NIC_CACHE_PCH].fills, 1);
}

/* The event ring never overwrites unread entries: events wait (counted) until the driver
 * publishes its consumer count, then come in order. */
static void event_ring_backpressure(void **state)
{
    (void)state;
    /* INIT again with a ring of 4 entries (its answer is the first entry of the new ring) */
    memset(fh_host(FWH_EV_PA, 32u << FWH_EV_LOG2), 0, 32u << FWH_EV_LOG2);
    fwh.ev_log2 = 2;
    fwh.ev_ci = 0;
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 2, .d = ME | NODES << 16,
                                           .key = (uint32_t)SECRET, .pid = (uint16_t)(SECRET >> 32),
                                           .epoch = (uint16_t)(SECRET >> 48)}),
                     NIC_ST_OK);
    uint32_t first = fwh.n_done, seq0 = fwh.cmd_pi, n = 7;
    fwh.hold_events = 1;
    for (uint32_t i = 0; i < n; i++)
        fwh_cmd_post(&(struct nic_cmd){.op = NIC_CMD_NOP});
    fwh_run();
    /* four answers in the ring (unread), the rest held */
    for (uint32_t i = 0; i < 4; i++) {
        const struct nic_event *e = (const struct nic_event *)(const void *)fh_host(FWH_EV_PA + 32u * ((1 + i) % 4), 32);
        if (i < 3) {
            assert_int_equal(e->type, NIC_EV_CMD_DONE);
            assert_int_equal(e->a, seq0 + i);
        }
    }
    fwh.hold_events = 0;
    fwh_run();
    assert_int_equal(fwh.n_done - first, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(fwh.done_order[first + i], seq0 + i);
    assert_true(stats().events_held >= 1);
}

/* A miss while the event ring is full waits (held) and is posted when the driver makes room; the
 * request it parked goes on after the fill. */
static void held_miss_posted_when_ring_has_room(void **state)
{
    (void)state;
    memset(fh_host(FWH_EV_PA, 32u << FWH_EV_LOG2), 0, 32u << FWH_EV_LOG2);
    fwh.ev_log2 = 2;
    fwh.ev_ci = 0;
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_INIT, .a = FWH_EV_PA, .c = 2, .d = ME | NODES << 16,
                                           .key = (uint32_t)SECRET, .pid = (uint16_t)(SECRET >> 32),
                                           .epoch = (uint16_t)(SECRET >> 48)}),
                     NIC_ST_OK);
    fwh.hold_events = 1;
    for (unsigned i = 0; i < 4; i++)
        fwh_cmd_post(&(struct nic_cmd){.op = NIC_CMD_NOP});
    fwh_run(); /* the ring is full of answers */
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 100, RPID, RBUF, 0, RKEY, 1);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    assert_int_equal(fwh.misses, 0);
    fwh.hold_events = 0;
    fwh_run();
    assert_true(fwh.misses >= 1);
    tx_expect(PKT_WRITE, NULL);
    assert_true(stats().events_held >= 1);
}

/* Doorbells: a count rung twice before it is taken is coalesced (the latest wins); writes to no
 * doorbell register fill a FIFO and past it are dropped, each counted. */
static void doorbell_coalescing_and_overflow(void **state)
{
    (void)state;
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 10, RPID, RBUF, 0, RKEY, 1);
    fwh_post(EP, &e);
    fwh_post(EP, &e); /* the second count replaces the first */
    for (unsigned i = 0; i < FH_DB_FIFO + 3; i++)
        fh_doorbell(0, 0x900, i);
    fwh_run();
    tx_expect(PKT_WRITE, NULL);
    tx_expect(PKT_WRITE, NULL);
    struct nic_stats s = stats();
    assert_int_equal(s.db_coalesced, 1);
    assert_int_equal(s.db_dropped, 3);
    assert_int_equal(s.doorbell_bad, FH_DB_FIFO);
}

/* SHUTDOWN: answered, fw_state says so, later commands and doorbells are refused. */
static void shutdown_stops_work(void **state)
{
    (void)state;
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_SHUTDOWN}), NIC_ST_OK);
    assert_int_equal(fh_fw_state(), 3);
    assert_int_equal(cmd1((struct nic_cmd){.op = NIC_CMD_NOP}), NIC_ST_BAD_CMD);
    struct nic_sq_entry e = fwh_write_wr(PEER, LVA, LBUF, 10, RPID, RBUF, 0, RKEY, 1);
    fwh_post(EP, &e);
    fwh_run();
    assert_int_equal(fwh_tx_pending(), 0);
    struct nic_cmd st = {.op = NIC_CMD_STATS, .a = FWH_STATS_PA};
    assert_int_equal(fwh_cmd(&st), NIC_ST_BAD_CMD); /* every command, STATS too */
}

/* Boot checks: a register block with the wrong id stops the NCP (fatal, with the block's index). */
static void boot_block_mismatch_is_fatal(void **state)
{
    (void)state;
    uint32_t code = 0;
    fh_reset(ME);
    fh_bad_block(3);
    assert_true(fh_try(ncp_boot, &code));
    assert_int_equal(code, 3);
    assert_int_equal(fh_fw_state(), 2);
}

static void run_driver(void)
{
    fwh_run();
}

/* An engine that completes a request with another request's tag breaks the NCP's invariant (DMA
 * completions in order): the NCP stops (assertion: module HAL, id 2) instead of running on. */
static void dma_completion_wrong_tag_is_fatal(void **state)
{
    (void)state;
    uint32_t code = 0;
    fh_dma_bad_tag(1);
    fwh_cmd_post(&(struct nic_cmd){.op = NIC_CMD_STATS, .a = FWH_STATS_PA});
    assert_true(fh_try(run_driver, &code));
    assert_int_equal(code, 5u << 8 | 2u);
    assert_int_equal(fh_fw_state(), 2);
}

/* A doorbell for the command ring beyond what the ring holds is refused (not trusted). */
static void command_doorbell_beyond_ring(void **state)
{
    (void)state;
    fh_doorbell(0, NIC_DB_CMD_PI, fwh.cmd_pi + fwh.info.cmd_entries + 1);
    fh_doorbell(0, NIC_DB_EV_CI, fwh.ev_ci + 1000); /* beyond what was produced */
    fwh_run();
    assert_int_equal(stats().doorbell_bad, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(info_block, scen_setup),
        cmocka_unit_test_setup(bad_commands_refused, scen_setup),
        cmocka_unit_test_setup(commands_answered_in_ring_order, scen_setup),
        cmocka_unit_test_setup(invalidate_waits_for_earlier_dma, scen_setup),
        cmocka_unit_test_setup(invalidation_and_stale_fill, scen_setup),
        cmocka_unit_test_setup(fill_dma_error, scen_setup),
        cmocka_unit_test_setup(event_ring_backpressure, scen_setup),
        cmocka_unit_test_setup(held_miss_posted_when_ring_has_room, scen_setup),
        cmocka_unit_test_setup(doorbell_coalescing_and_overflow, scen_setup),
        cmocka_unit_test_setup(shutdown_stops_work, scen_setup),
        cmocka_unit_test(boot_block_mismatch_is_fatal),
        cmocka_unit_test_setup(command_doorbell_beyond_ring, scen_setup),
        cmocka_unit_test_setup(dma_completion_wrong_tag_is_fatal, scen_setup),
    };
    return FWH_RUN_TESTS("cmd", tests) ? 1 : 0;
}
