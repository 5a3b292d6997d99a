/*
 * lib_test.c - unit tests of the user library (nic.h) on the fake NIC: RDMA write and read with
 * data verified (loopback between two processes, misses served by the driver), every error path
 * at the call and as an error completion, close with outstanding work, no leaks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drv_fake.h"
#include "nic.h"

#define A_VA 0x20000000ull
#define B_VA 0x30000000ull
#define LEN (3 * 4096 + 100)

struct world {
    struct fake *f;
    uint32_t pa, pb;
    nic_dev_t *a, *b;
    nic_ep_t ea, eb;
    struct nic_mr src, dst;
};

static void pattern(struct world *w, uint32_t pid, uint64_t va, size_t len, uint8_t seed)
{
    uint8_t buf[LEN];
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 31 + seed);
    assert_int_equal(os_write(w->f->os, pid, va, buf, len), 0);
}

static void setup_world(struct world *w, bool dynamic)
{
    size_t len;
    const uint8_t *img;
    char err[200];

    memset(w, 0, sizeof *w);
    w->f = fake_create(dynamic);
    img = fake_image(&len);
    assert_non_null(fake_driver(w->f, NULL));
    assert_int_equal(nicdrv_probe(w->f->drv, img, len, err, sizeof err), 0);
    w->pa = fake_proc(w->f);
    w->pb = fake_proc(w->f);
    assert_int_equal(nic_dev_open(w->f->drv, w->pa, NULL, &w->a), NIC_OK);
    assert_int_equal(nic_dev_open(w->f->drv, w->pb, NULL, &w->b), NIC_OK);
    assert_int_equal(nic_ep_open(w->a, &w->ea), NIC_OK);
    assert_int_equal(nic_ep_open(w->b, &w->eb), NIC_OK);
    pattern(w, w->pa, A_VA, LEN, 7);
    pattern(w, w->pb, B_VA, LEN, 99);
    assert_int_equal(nic_reg(w->a, A_VA, LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &w->src), NIC_OK);
    assert_int_equal(nic_reg(w->b, B_VA, LEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &w->dst), NIC_OK);
}

static void teardown_world(struct world *w)
{
    struct nicdrv_stats st;

    assert_int_equal(nic_dev_close(w->a), NIC_OK);
    assert_int_equal(nic_dev_close(w->b), NIC_OK);
    /* nothing leaks: pins, driver tables, NIC endpoints */
    assert_int_equal(os_pinned_pages_total(w->f->os), 0);
    nicdrv_stats(w->f->drv, &st);
    assert_int_equal(st.pinned_pages, 0);
    assert_int_equal(st.eps, 0);
    assert_int_equal(st.bufs, 0);
    assert_int_equal(st.procs, 0);
    for (unsigned i = 0; i < 16; i++)
        assert_false(w->f->ep[i].open);
    assert_int_equal(w->f->order_violations, 0);
    assert_int_equal(w->f->oracle_violations, 0);
    fake_destroy(w->f);
}

static struct nic_wr wr_to(const struct world *w, uint64_t off, uint32_t len, uint64_t id)
{
    struct nic_wr wr = { .local_va = A_VA + off, .len = len, .remote_offset = off, .wr_id = id, .signaled = 1 };
    wr.remote = (struct nic_remote){ w->dst.node, w->dst.pid, w->dst.handle, w->dst.rkey };
    return wr;
}

static void write_and_read_verified(void **state, bool dynamic)
{
    struct world w;
    struct nic_wc wc;
    uint8_t got[LEN], want[LEN];
    struct nicdrv_stats st;
    (void)state;

    setup_world(&w, dynamic);
    struct nic_wr wr = wr_to(&w, 0, LEN, 0x1234567890ull);
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(wc.wr_id, 0x1234567890ull);
    assert_int_equal(wc.bytes, LEN);
    assert_int_equal(wc.op, NIC_OP_RDMA_WRITE);
    os_read(w.f->os, w.pa, A_VA, want, LEN);
    os_read(w.f->os, w.pb, B_VA, got, LEN);
    assert_memory_equal(got, want, LEN);
    /* read back a piece into A at another offset */
    pattern(&w, w.pb, B_VA + 5000, 3000, 55);
    wr = wr_to(&w, 5000, 3000, 2);
    assert_int_equal(nic_post_read(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(wc.op, NIC_OP_RDMA_READ);
    os_read(w.f->os, w.pb, B_VA + 5000, want, 3000);
    os_read(w.f->os, w.pa, A_VA + 5000, got, 3000);
    assert_memory_equal(got, want, 3000);
    nicdrv_stats(w.f->drv, &st);
    if (dynamic)
        /* PCH and CBH lines prefilled at endpoint open and registration, VMH lines by misses */
        assert_true(st.prefills >= 3 && st.fills >= 2);
    else
        assert_int_equal(st.misses, 0);
    teardown_world(&w);
}

/* ABI 2.2 host endpoints (issue 15 item 2) through the library: with the NIC's resident endpoints
 * taken, a process gets a host endpoint, whose entries and doorbell record the library writes into
 * the process's own send queue page; its write completes with every byte there; a ring of it by
 * another process names a count its record does not hold: refused, nothing executed; its handle is
 * no endpoint of the other process; nothing leaks. */
static void host_endpoint_through_the_library(void **state)
{
    struct world w;
    struct nic_wc wc;
    nic_dev_t *x[2];
    nic_ep_t e, h;
    uint8_t got[LEN], want[LEN];
    uint32_t rec = 0;
    size_t len;
    const uint8_t *img;
    char err[200];
    (void)state;

    memset(&w, 0, sizeof w);
    w.f = fake_create(true);
    w.f->max_eps = FAKE_EP_IDS;
    img = fake_image(&len);
    assert_non_null(fake_driver(w.f, NULL));
    assert_int_equal(nicdrv_probe(w.f->drv, img, len, err, sizeof err), 0);
    w.pa = fake_proc(w.f);
    w.pb = fake_proc(w.f);
    assert_int_equal(nic_dev_open(w.f->drv, w.pa, NULL, &w.a), NIC_OK);
    assert_int_equal(nic_dev_open(w.f->drv, w.pb, NULL, &w.b), NIC_OK);
    assert_int_equal(nic_ep_open(w.a, &w.ea), NIC_OK);
    assert_int_equal(nic_ep_open(w.b, &w.eb), NIC_OK);
    pattern(&w, w.pa, A_VA, LEN, 7);
    pattern(&w, w.pb, B_VA, LEN, 99);
    assert_int_equal(nic_reg(w.a, A_VA, LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &w.src), NIC_OK);
    assert_int_equal(nic_reg(w.b, B_VA, LEN, NIC_ACCESS_REMOTE_WRITE | NIC_ACCESS_REMOTE_READ, &w.dst), NIC_OK);
    for (unsigned i = 0; i < 2; i++) { /* the other 13 resident endpoints: 7 + 6 */
        assert_int_equal(nic_dev_open(w.f->drv, fake_proc(w.f), NULL, &x[i]), NIC_OK);
        for (unsigned j = 0; j < 7u - i; j++) {
            assert_int_equal(nic_ep_open(x[i], &e), NIC_OK);
            assert_true((e & 0xFFFFu) < 16);
        }
    }
    assert_int_equal(nic_ep_open(w.a, &h), NIC_OK);
    assert_true((h & 0xFFFFu) >= 16 && (h & 0xFFFFu) < FAKE_EP_IDS);
    assert_true(w.f->ep[h & 0xFFFFu].host);
    struct nic_wr wr = wr_to(&w, 0, LEN, 77);
    assert_int_equal(nic_post_write(w.a, h, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, h, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(wc.wr_id, 77);
    assert_int_equal(wc.bytes, LEN);
    os_read(w.f->os, w.pa, A_VA, want, LEN);
    os_read(w.f->os, w.pb, B_VA, got, LEN);
    assert_memory_equal(got, want, LEN);
    /* A's slot 1: its send queue page is the second after the event queue page (the defaults) */
    assert_int_equal(os_read(w.f->os, w.pa, NIC_CQ_VA_DEFAULT + (NIC_MAX_EPS + 2) * 4096ull + NIC_EPC_DBREC, &rec, 4), 0);
    assert_int_equal(rec, 1);
    /* B rings A's host endpoint for requests A never posted */
    assert_int_equal(w.f->bus.wr32(w.f->bus.ctx, NICDRV_BAR_DOORBELL, (h & 0xFFFFu) * NIC_DB_PAGE + NIC_DB_SQ_PI, 5), 0);
    assert_int_equal(w.f->db_refused, 1);
    assert_int_equal(nic_poll(w.a, h, &wc, 1), 0);
    assert_int_equal(nic_post_write(w.b, h, &wr), NIC_EBADEP);
    assert_int_equal(nic_ep_close(w.a, h, NULL, 0), 0);
    assert_false(w.f->ep[h & 0xFFFFu].open);
    assert_int_equal(nic_post_write(w.a, h, &wr), NIC_EBADEP);
    assert_int_equal(nic_dev_close(x[0]), NIC_OK);
    assert_int_equal(nic_dev_close(x[1]), NIC_OK);
    teardown_world(&w);
}

static void rdma_dynamic(void **state)
{
    write_and_read_verified(state, true);
}

static void rdma_static(void **state)
{
    write_and_read_verified(state, false);
}

static void errors_at_the_call(void **state)
{
    struct world w;
    struct nic_wr wr;
    struct nic_wc wc;
    struct nic_mr mr;
    nic_ep_t e2;
    (void)state;

    setup_world(&w, true);
    wr = wr_to(&w, 0, 100, 1);
    assert_int_equal(nic_post_write(w.a, w.ea ^ 0x10000, &wr), NIC_EBADEP); /* stale generation */
    assert_int_equal(nic_post_write(w.a, 0, &wr), NIC_EBADEP);
    assert_int_equal(nic_poll(w.a, 12345, &wc, 1), NIC_EBADEP);
    {   /* several endpoints per process, up to NIC_MAX_EPS; each its own handle */
        nic_ep_t more[NIC_MAX_EPS];
        for (unsigned i = 1; i < NIC_MAX_EPS; i++) {
            assert_int_equal(nic_ep_open(w.a, &more[i]), NIC_OK);
            assert_true(more[i] != w.ea && (i == 1 || more[i] != more[i - 1]));
            assert_int_equal(nic_outstanding(w.a, more[i]), 0);
        }
        assert_int_equal(nic_ep_open(w.a, &e2), NIC_EBUSY); /* NIC_MAX_EPS open */
        for (unsigned i = 1; i < NIC_MAX_EPS; i++)
            assert_int_equal(nic_ep_close(w.a, more[i], NULL, 0), 0);
        assert_int_equal(nic_poll(w.a, more[1], &wc, 1), NIC_EBADEP); /* closed */
    }
    wr.len = 0;
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_EINVAL);
    wr.len = NIC_MAX_XFER + 1;
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_EINVAL);
    wr = wr_to(&w, LEN - 10, 100, 1); /* runs off the local buffer */
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_EBOUNDS);
    wr = wr_to(&w, 0, 100, 1);
    wr.local_va = 0x90000000ull; /* nothing registered there */
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_EBOUNDS);
    assert_int_equal(nic_reg(w.a, 0x50000000ull, 4096, NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    wr.local_va = 0x50000000ull;
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_ERIGHTS); /* write needs LOCAL_READ */
    assert_int_equal(nic_post_read(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    wr = wr_to(&w, 0, 100, 1);
    wr.remote.node = 7;
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_EPEER);
    assert_int_equal(nic_dereg(w.a, 999), NIC_EBADHANDLE);
    assert_int_equal(nic_dereg(w.a, mr.handle), NIC_OK);
    assert_int_equal(nic_dereg(w.a, mr.handle), NIC_EBADHANDLE);
    assert_int_equal(nic_reg(w.a, A_VA, 4096, 0x1, &mr), NIC_EINVAL);
    assert_int_equal(nic_reg(w.a, A_VA, 0, NIC_ACCESS_LOCAL_READ, &mr), NIC_EINVAL);
    /* queue full: nothing completes while misses are not served */
    w.f->auto_miss = false;
    int posted = 0, rc;
    struct nic_mr fresh;
    assert_int_equal(nic_reg(w.b, B_VA + 8 * 4096ull * 16, 4096, NIC_ACCESS_REMOTE_WRITE, &fresh), NIC_OK);
    wr = wr_to(&w, 0, 8, 0);
    wr.remote = (struct nic_remote){ fresh.node, fresh.pid, fresh.handle, fresh.rkey };
    wr.remote_offset = 0;
    while ((rc = nic_post_write(w.a, w.ea, &wr)) == NIC_OK)
        posted++;
    assert_int_equal(rc, NIC_EQFULL);
    assert_int_equal(posted, 32);
    assert_int_equal(nic_outstanding(w.a, w.ea), 32);
    w.f->auto_miss = true;
    for (int n = 0; n < posted;) {
        assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
        assert_int_equal(wc.status, NIC_WC_SUCCESS);
        n++;
    }
    assert_int_equal(nic_outstanding(w.a, w.ea), 0);
    teardown_world(&w);
}

static void error_completions(void **state)
{
    struct world w;
    struct nic_wr wr;
    struct nic_wc wc;
    struct nic_mr ro;
    (void)state;

    setup_world(&w, true);
    struct {
        void (*edit)(struct nic_wr *wr, const struct nic_mr *ro);
        int status;
    } cases[5];
    wr = wr_to(&w, 0, 100, 10);
    wr.remote.handle = 77; /* not registered at the peer */
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_BAD_HANDLE);
    assert_int_equal(wc.wr_id, 10);
    wr = wr_to(&w, 0, 100, 11);
    wr.remote.rkey ^= 1;
    wr.signaled = 0; /* errors complete even unsignalled */
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_KEY);
    wr = wr_to(&w, 0, 100, 12);
    wr.remote_offset = LEN - 50;
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_BOUNDS);
    assert_int_equal(nic_reg(w.b, 0x60000000ull, 4096, NIC_ACCESS_REMOTE_READ, &ro), NIC_OK);
    wr = wr_to(&w, 0, 100, 13);
    wr.remote = (struct nic_remote){ ro.node, ro.pid, ro.handle, ro.rkey };
    wr.remote_offset = 0;
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK); /* read-only buffer */
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_RIGHTS);
    wr = wr_to(&w, 0, 100, 14);
    wr.remote.node = 1; /* the fake's peer never answers */
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.status, NIC_WC_UNREACHABLE);
    assert_string_equal(nic_wc_status_str(wc.status), "peer unreachable");
    (void)cases;
    /* unsignalled successes report nothing, and never fill the queue (internal signalling) */
    for (int i = 0, full = 0; i < 100; i++) {
        wr = wr_to(&w, 0, 64, 100 + (uint64_t)i);
        wr.signaled = 0;
        while (nic_post_write(w.a, w.ea, &wr) == NIC_EQFULL) { /* parked on a miss: let it be served */
            assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000), NIC_ETIMEDOUT);
            assert_true(++full < 10);
        }
    }
    assert_int_equal(nic_poll(w.a, w.ea, &wc, 1), 0);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000), NIC_ETIMEDOUT);
    teardown_world(&w);
}

static void close_flushes_outstanding(void **state)
{
    struct world w;
    struct nic_wr wr;
    struct nic_wc wc[8];
    nic_ep_t old;
    (void)state;

    setup_world(&w, true);
    w.f->auto_miss = false; /* everything parks on its first miss */
    for (int i = 0; i < 3; i++) {
        wr = wr_to(&w, 0, 100, 40 + (uint64_t)i);
        wr.signaled = i != 1;
        assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    }
    old = w.ea;
    assert_int_equal(nic_ep_close(w.a, w.ea, wc, 8), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(wc[i].status, NIC_WC_FLUSHED);
        assert_int_equal(wc[i].wr_id, 40 + (uint64_t)i);
    }
    assert_int_equal(nic_post_write(w.a, old, &wr), NIC_EBADEP);
    assert_int_equal(nic_ep_close(w.a, old, wc, 8), NIC_EBADEP); /* twice */
    assert_int_equal(nic_poll(w.a, old, wc, 1), NIC_EBADEP);
    w.f->auto_miss = true;
    assert_int_equal(nic_ep_open(w.a, &w.ea), NIC_OK); /* reopen: a fresh handle */
    assert_true(w.ea != old);
    teardown_world(&w);
}


/* Every accepted request is accounted exactly once: signalled ones and failures reported once, in
 * request order, with their own wr_id; unsignalled successes never (not even the library's
 * internally signalled ones); no completion dropped however long the caller does not poll;
 * nic_outstanding exact. */
static void completions_identified_never_lost(void **state)
{
    struct world w;
    struct nic_wr wr;
    struct nic_wc wc[64];
    struct nic_lib_counters lc;
    uint32_t rng = 12345, posted = 0, expect_next = 0, last_reported = 0, eqfull = 0;
    static uint8_t reported[300], want[300];
    (void)state;

    setup_world(&w, true);
    memset(reported, 0, sizeof reported);
    wr = wr_to(&w, 0, 64, 0); /* the first post misses; served while waiting for EQFULL to clear */
    while (posted < 300) {
        rng = rng * 1103515245u + 12345u;
        wr = wr_to(&w, 0, 64, posted);
        wr.signaled = (rng >> 16) % 10 >= 3; /* 30 % unsignalled */
        if ((rng >> 20) % 7 == 0)
            wr.remote.rkey ^= 1; /* fails: reported whether signalled or not */
        int rc = nic_post_write(w.a, w.ea, &wr);
        if (rc == NIC_EQFULL) { /* only when completions are waiting to be polled */
            eqfull++;
            if (eqfull % 3 != 0)
                continue; /* keep not polling for a while: the next post is still refused */
            int n = nic_wait(w.a, w.ea, &wc[0], 1000000) == NIC_OK;
            assert_int_equal(n, 1);
            n += nic_poll(w.a, w.ea, wc + 1, 63);
            for (int i = 0; i < n; i++) {
                assert_true(wc[i].wr_id < posted);
                assert_true(wc[i].wr_id >= expect_next);                 /* request order */
                assert_int_equal(reported[wc[i].wr_id], 0);            /* never twice */
                reported[wc[i].wr_id] = 1;
                expect_next = (uint32_t)wc[i].wr_id + 1;
            }
            continue;
        }
        assert_int_equal(rc, NIC_OK);
        want[posted] = wr.signaled || wr.remote.rkey != w.dst.rkey;
        if (want[posted])
            last_reported = posted + 1;
        posted++;
    }
    assert_true(eqfull > 0); /* the bound was met, and refused rather than dropped */
    for (int n; (n = nic_poll(w.a, w.ea, wc, 64)) > 0;)
        for (int i = 0; i < n; i++) {
            assert_true(wc[i].wr_id >= expect_next);
            assert_int_equal(reported[wc[i].wr_id], 0);
            reported[wc[i].wr_id] = 1;
            expect_next = (uint32_t)wc[i].wr_id + 1;
        }
    for (uint32_t i = 0; i < posted; i++)
        assert_int_equal(reported[i], want[i]);
    (void)last_reported;
    assert_int_equal(nic_lib_counters(w.a, &lc), NIC_OK);
    assert_int_equal(lc.stash_dropped, 0);
    assert_int_equal(lc.cqe_bogus, 0);
    /* outstanding: requests after the last one whose completion (user or internal) was seen */
    uint32_t last_seen = 0;
    for (uint32_t i = 0; i < posted; i++)
        if (want[i] || i % 16 == 15)
            last_seen = i + 1;
    assert_int_equal(nic_outstanding(w.a, w.ea), (int)(posted - last_seen));
    teardown_world(&w);
}

/* 300 signalled posts, never polled while completions wait: the library refuses at its bound
 * (NIC_EQFULL: 64 = 2 x sq_entries requests unretired or unpolled) and every accepted request's
 * completion comes back, in order, with its wr_id. */
static void no_poll_300_signalled(void **state)
{
    struct world w;
    struct nic_wc wc;
    uint32_t posted = 0, got = 0, rounds = 0;
    int rc;
    (void)state;

    setup_world(&w, true);
    struct nic_wr wr = wr_to(&w, 0, 32, 9999); /* warm the translations: later posts complete at once */
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.wr_id, 9999);
    while (posted < 300) {
        uint32_t before = posted;
        for (;;) {
            wr = wr_to(&w, 0, 32, posted);
            rc = nic_post_write(w.a, w.ea, &wr);
            if (rc != NIC_OK)
                break;
            posted++;
        }
        assert_int_equal(rc, NIC_EQFULL);
        assert_int_equal(posted - before, 64); /* refused at the bound, not dropped past it */
        rounds++;
        while (got < posted) {
            assert_int_equal(nic_poll(w.a, w.ea, &wc, 1), 1);
            assert_int_equal(wc.status, NIC_WC_SUCCESS);
            assert_int_equal(wc.wr_id, got);
            got++;
        }
    }
    assert_true(rounds >= 4);
    assert_int_equal(nic_poll(w.a, w.ea, &wc, 1), 0);
    assert_int_equal(nic_outstanding(w.a, w.ea), 0);
    teardown_world(&w);
}

/* A signalled 256 KiB write followed by three unsignalled writes: its completion comes, and
 * outstanding is not 0 before it. */
static void signalled_then_unsignalled(void **state)
{
    struct world w;
    struct nic_wc wc;
    struct nic_mr big, bigdst;
    (void)state;

    setup_world(&w, true);
    assert_int_equal(nic_reg(w.a, 0x40000000ull, 256 * 1024, NIC_ACCESS_LOCAL_READ, &big), NIC_OK);
    assert_int_equal(nic_reg(w.b, 0x48000000ull, 256 * 1024, NIC_ACCESS_REMOTE_WRITE, &bigdst), NIC_OK);
    w.f->auto_miss = false; /* held: nothing completes yet */
    struct nic_wr wr = { .local_va = 0x40000000ull, .len = 256 * 1024, .wr_id = 77, .signaled = 1 };
    wr.remote = (struct nic_remote){ bigdst.node, bigdst.pid, bigdst.handle, bigdst.rkey };
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    for (int i = 0; i < 3; i++) {
        struct nic_wr u = wr;
        u.len = 4096;
        u.wr_id = 78 + (uint64_t)i;
        u.signaled = 0;
        assert_int_equal(nic_post_write(w.a, w.ea, &u), NIC_OK);
    }
    assert_int_equal(nic_outstanding(w.a, w.ea), 4);
    assert_int_equal(nic_poll(w.a, w.ea, &wc, 1), 0);
    w.f->auto_miss = true;
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 10000000), NIC_OK);
    assert_int_equal(wc.wr_id, 77);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(wc.bytes, 256 * 1024);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 100000), NIC_ETIMEDOUT); /* nothing for the others */
    assert_int_equal(nic_dereg(w.a, big.handle), NIC_OK);
    assert_int_equal(nic_dereg(w.b, bigdst.handle), NIC_OK);
    teardown_world(&w);
}

/* A completion entry that names no outstanding request (written into the queue behind the NIC's
 * back) is ignored and counted: nothing is invented. */
static void forged_cqe_ignored(void **state)
{
    struct world w;
    struct nic_wc wc;
    struct nic_lib_counters lc;
    struct nic_cqe c;
    (void)state;

    setup_world(&w, true);
    struct nic_wr wr = wr_to(&w, 0, 64, 5);
    assert_int_equal(nic_post_write(w.a, w.ea, &wr), NIC_OK);
    assert_int_equal(nic_wait(w.a, w.ea, &wc, 1000000), NIC_OK);
    assert_int_equal(wc.wr_id, 5);
    const struct fake_ep *fe = &w.f->ep[w.ea & 0xFFFF];
    memset(&c, 0, sizeof c);
    c.req = 9; /* never posted */
    c.sq_ci = 10;
    c.wr_id_lo = 0xBAD;
    c.phase = (uint8_t)(((fe->cq_pi / fe->cq_n) & 1u) ^ 1u);
    assert_int_equal(hostmem_dma_write(w.f->mem, 0, fe->cq_pa + (fe->cq_pi % fe->cq_n) * sizeof c, &c, sizeof c), 0);
    w.f->ep[w.ea & 0xFFFF].cq_pi++;
    assert_int_equal(nic_poll(w.a, w.ea, &wc, 1), 0);
    assert_int_equal(nic_lib_counters(w.a, &lc), NIC_OK);
    assert_int_equal(lc.cqe_bogus, 1);
    assert_int_equal(nic_outstanding(w.a, w.ea), 0);
    teardown_world(&w);
}

/* Raw send queue entries (bypassing the library's checks) through the endpoint's doorbell page:
 * the local range is checked against the named buffer's registered bytes, not its pages; a bad
 * handle, another process's buffer, a missing right and a malformed entry each complete with
 * their status, in request order, and nothing moves. */
#define C_VA 0x70000000ull
#define C_LEN (4096 + 100)
static void raw_local_range(void **state)
{
    struct world w;
    struct nic_mr r, ro, gone;
    nic_dev_t *c;
    nic_ep_t ec;
    uint8_t before[2 * 4096], after[2 * 4096], dst1[256];
    (void)state;

    setup_world(&w, true);
    uint32_t pc = fake_proc(w.f);
    assert_int_equal(nic_dev_open(w.f->drv, pc, NULL, &c), NIC_OK);
    assert_int_equal(nic_ep_open(c, &ec), NIC_OK);
    pattern(&w, pc, C_VA, 2 * 4096, 3);
    assert_int_equal(nic_reg(c, C_VA, C_LEN, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &r), NIC_OK);
    assert_int_equal(nic_reg(c, C_VA + 4 * 4096, 4096, NIC_ACCESS_LOCAL_READ, &ro), NIC_OK);
    assert_int_equal(nic_reg(c, C_VA + 8 * 4096, 4096, NIC_ACCESS_LOCAL_READ, &gone), NIC_OK);
    assert_int_equal(nic_dereg(c, gone.handle), NIC_OK);
    os_read(w.f->os, pc, C_VA, before, sizeof before);
    struct {
        uint8_t op;
        uint64_t laddr;
        uint32_t len, lbuf;
        int32_t want;
    } cs[] = {
        { NIC_OP_RDMA_WRITE, C_VA + C_LEN, 50, r.handle, NIC_ST_BOUNDS },       /* past the end, same page */
        { NIC_OP_RDMA_READ, C_VA + C_LEN - 10, 50, r.handle, NIC_ST_BOUNDS },   /* straddles the end */
        { NIC_OP_RDMA_WRITE, C_VA - 8, 16, r.handle, NIC_ST_BOUNDS },           /* before the start */
        { NIC_OP_RDMA_WRITE, C_VA, 16, 200, NIC_ST_BAD_HANDLE },                /* not registered */
        { NIC_OP_RDMA_WRITE, C_VA + 8 * 4096, 16, gone.handle, NIC_ST_BAD_HANDLE }, /* deregistered */
        { NIC_OP_RDMA_READ, C_VA + 4 * 4096, 16, ro.handle, NIC_ST_RIGHTS },    /* no LOCAL_WRITE */
        { 9, C_VA, 16, r.handle, NIC_ST_BAD_DESC },                             /* malformed */
        { NIC_OP_RDMA_WRITE, C_VA + 100, C_LEN - 100, r.handle, NIC_ST_OK },    /* exactly to the end */
    };
    uint32_t n = sizeof cs / sizeof cs[0], page = (ec & 0xFFFFu) * NIC_DB_PAGE;
    uint32_t refused0 = w.f->local_refused;
    for (uint32_t i = 0; i < n; i++) {
        struct nic_sq_entry e;
        uint32_t wd[sizeof e / 4];
        memset(&e, 0, sizeof e);
        e.op = cs[i].op;
        e.flags = NIC_WR_SIGNALED;
        e.rnode = w.dst.node;
        e.len = cs[i].len;
        e.laddr_lo = (uint32_t)cs[i].laddr;
        e.laddr_hi = (uint32_t)(cs[i].laddr >> 32);
        e.rbuf = w.dst.handle;
        e.rpid = w.dst.pid;
        e.rkey = w.dst.rkey;
        e.wr_id_lo = 1000 + i;
        e.lbuf = cs[i].lbuf;
        memcpy(wd, &e, sizeof wd);
        for (unsigned k = 0; k < sizeof e / 4; k++)
            assert_int_equal(w.f->bus.wr32(w.f->bus.ctx, NICDRV_BAR_DOORBELL, page + i * 64u + 4 * k, wd[k]), 0);
        assert_int_equal(w.f->bus.wr32(w.f->bus.ctx, NICDRV_BAR_DOORBELL, page + NIC_DB_SQ_PI, i + 1), 0);
    }
    fake_run(w.f);
    for (uint32_t i = 0; i < n; i++) {
        struct nic_cqe q;
        assert_int_equal(os_read(w.f->os, pc, NIC_CQ_VA_DEFAULT + i * sizeof q, &q, sizeof q), 0);
        assert_int_equal(q.phase & 1, 1);
        assert_int_equal(q.req, i);
        assert_int_equal(q.sq_ci, i + 1);
        assert_int_equal(q.wr_id_lo, 1000 + i);
        assert_int_equal(q.status, cs[i].want);
    }
    assert_int_equal(w.f->local_refused - refused0, 6);
    /* nothing of the refused requests moved: C's bytes (past its end too) and B's target intact,
     * except the last (valid) write's target range */
    os_read(w.f->os, pc, C_VA, after, sizeof after);
    assert_memory_equal(after, before, sizeof after);
    os_read(w.f->os, w.pb, B_VA, dst1, sizeof dst1);
    assert_memory_equal(dst1, before + 100, sizeof dst1);
    assert_int_equal(nic_ep_close(c, ec, NULL, 0), 0);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}


/* ---- the event queue (docs/api.md "Event queue") ---- */

#define E_VA 0x60000000ull

/* A third process with its event queue (attr may be NULL) and n endpoints opened after it, and
 * a registered source buffer. */
static nic_dev_t *eq_proc(struct world *w, uint32_t *pid, const struct nic_eq_attr *attr, nic_ep_t *ep, unsigned n)
{
    nic_dev_t *c;
    struct nic_mr mr;

    *pid = fake_proc(w->f);
    pattern(w, *pid, E_VA, 4096, 5);
    assert_int_equal(nic_dev_open(w->f->drv, *pid, NULL, &c), NIC_OK);
    assert_int_equal(nic_eq_open(c, attr), NIC_OK);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(nic_ep_open(c, &ep[i]), NIC_OK);
    assert_int_equal(nic_reg(c, E_VA, 4096, NIC_ACCESS_LOCAL_READ | NIC_ACCESS_LOCAL_WRITE, &mr), NIC_OK);
    return c;
}

static struct nic_wr eq_wr(const struct world *w, uint64_t id, int signaled)
{
    struct nic_wr wr = { .local_va = E_VA, .len = 100, .remote_offset = 200, .wr_id = id, .signaled = signaled };
    wr.remote = (struct nic_remote){ w->dst.node, w->dst.pid, w->dst.handle, w->dst.rkey };
    return wr;
}

/* One queue reports the completions of several endpoints: each once, with its endpoint, in request
 * order per endpoint, failures too; nic_poll on one endpoint still works and what it took is not
 * reported again; the library never read a completion queue it had no event for. */
static void eq_several_endpoints(void **state)
{
    struct world w;
    nic_ep_t ep[3];
    uint32_t pc;
    struct nic_ev ev[16];
    struct nic_wc wc;
    struct nic_lib_counters lc;
    struct nic_wr wr;
    int seen[5] = { 0 }, n, pos13 = -1, pos10 = -1;
    (void)state;

    setup_world(&w, true);
    nic_dev_t *c = eq_proc(&w, &pc, NULL, ep, 3);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(w.f->ep[ep[i] & 0xFFFF].eq, w.f->ep[ep[0] & 0xFFFF].eq); /* bound to one queue */
    assert_true(w.f->ep[ep[0] & 0xFFFF].eq != 0);
    wr = eq_wr(&w, 10, 1);
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    wr = eq_wr(&w, 11, 0);
    wr.remote.rkey ^= 1; /* fails (wrong key): reported although unsignalled */
    assert_int_equal(nic_post_write(c, ep[1], &wr), NIC_OK);
    wr = eq_wr(&w, 12, 1);
    assert_int_equal(nic_post_read(c, ep[2], &wr), NIC_OK);
    wr = eq_wr(&w, 13, 1);
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    wr = eq_wr(&w, 14, 0); /* unsignalled success: never reported */
    assert_int_equal(nic_post_write(c, ep[2], &wr), NIC_OK);
    fake_run(w.f); /* misses resolved: every request done */
    n = nic_eq_poll(c, ev, 16);
    assert_int_equal(n, 4);
    for (int i = 0; i < n; i++) {
        uint64_t id = ev[i].wc.wr_id;
        assert_int_equal(ev[i].kind, NIC_EV_COMPLETION);
        assert_true(id >= 10 && id <= 13);
        seen[id - 10]++;
        assert_int_equal(ev[i].ep, id == 11 ? ep[1] : id == 12 ? ep[2] : ep[0]);
        assert_int_equal(ev[i].wc.status, id == 11 ? NIC_WC_KEY : NIC_WC_SUCCESS);
        assert_int_equal(ev[i].wc.op, id == 12 ? NIC_OP_RDMA_READ : NIC_OP_RDMA_WRITE);
        if (id == 10)
            pos10 = i;
        if (id == 13)
            pos13 = i;
    }
    assert_true(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1);
    assert_true(pos10 < pos13); /* request order within an endpoint */
    assert_int_equal(nic_eq_poll(c, ev, 16), 0);
    assert_int_equal(nic_lib_counters(c, &lc), NIC_OK);
    assert_int_equal(lc.cq_reads, 0); /* no completion queue polled: the queue said which */
    assert_int_equal(lc.eqe_bogus, 0);
    assert_int_equal(lc.cqe_bogus, 0);
    /* a completion taken by nic_poll is not reported again by the queue */
    wr = eq_wr(&w, 20, 1);
    assert_int_equal(nic_post_write(c, ep[1], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_poll(c, ep[1], &wc, 1), 1);
    assert_int_equal(wc.wr_id, 20);
    assert_int_equal(nic_eq_poll(c, ev, 16), 0);
    /* closing an endpoint: its handle is dead for the queue too, the others report on */
    assert_int_equal(nic_ep_close(c, ep[1], NULL, 0), 0);
    wr = eq_wr(&w, 21, 1);
    assert_int_equal(nic_post_write(c, ep[2], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 16), 1);
    assert_int_equal(ev[0].wc.wr_id, 21);
    assert_int_equal(ev[0].ep, ep[2]);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}

/* nic_eq_wait sleeps (no polling) until the queue's interrupt: nothing there -> one EQ_ARM, asleep
 * to the deadline, ETIMEDOUT; an event already there -> no sleep; an ARM with an old count fires at
 * once (the wake-up cannot be lost between the check and the sleep). */
static void eq_wait_sleeps(void **state)
{
    struct world w;
    nic_ep_t ep[1];
    uint32_t pc;
    struct nic_ev ev;
    struct nic_lib_counters lc;
    struct nicdrv_stats st;
    struct nic_wr wr;
    (void)state;

    setup_world(&w, true);
    nic_dev_t *c = eq_proc(&w, &pc, NULL, ep, 1);
    uint64_t t0 = w.f->now;
    uint32_t arms = w.f->eq_arms;
    assert_int_equal(nic_eq_wait(c, &ev, 50000), NIC_ETIMEDOUT);
    assert_true(w.f->now >= t0 + 50000);
    assert_int_equal(nic_lib_counters(c, &lc), NIC_OK);
    assert_true(lc.eq_sleeps >= 1 && lc.eq_sleeps <= 2); /* slept, not polled every microsecond */
    assert_true(lc.eq_reads <= 3);
    assert_true(w.f->eq_arms - arms == lc.eq_sleeps);
    /* the armed queue fires at the next entry: the driver counts the wake-up */
    uint32_t fires = w.f->eq_fires;
    wr = eq_wr(&w, 1, 1);
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(w.f->eq_fires, fires + 1);
    nicdrv_stats(w.f->drv, &st);
    assert_true(st.eq_wakeups >= 1);
    t0 = w.f->now;
    assert_int_equal(nic_eq_wait(c, &ev, 50000), NIC_OK); /* there already: no sleep */
    assert_int_equal(ev.kind, NIC_EV_COMPLETION);
    assert_int_equal(ev.wc.wr_id, 1);
    assert_int_equal(nic_lib_counters(c, &lc), NIC_OK);
    assert_true(lc.eq_sleeps <= 2);
    assert_true(w.f->now - t0 < 50000);
    /* an ARM with a count behind what was written wakes at once */
    wr = eq_wr(&w, 2, 1);
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    fake_run(w.f);
    fires = w.f->eq_fires;
    t0 = w.f->now;
    assert_int_equal(nicdrv_eq_wait(w.f->drv, pc, 1, t0 + 50000), NICDRV_OK);
    assert_int_equal(w.f->eq_fires, fires + 1);
    assert_true(w.f->now - t0 < 50000);
    assert_int_equal(nic_eq_poll(c, &ev, 1), 1);
    assert_int_equal(ev.wc.wr_id, 2);
    assert_int_equal(nicdrv_eq_wait(w.f->drv, pc, 99, t0 + 50000), NICDRV_EFW); /* count beyond the queue */
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}

/* A full queue: the NIC loses entries, counts them and reports them (NIC_EV_OVERFLOW: in the slot
 * kept for it at once, the rest once the library's count makes room: the counts add up); no completion is lost or doubled (the library re-reads every
 * endpoint's completion queue on the report). */
static void eq_overflow_reported(void **state)
{
    struct world w;
    nic_ep_t ep[2];
    uint32_t pc;
    struct nic_ev ev[32];
    struct nic_lib_counters lc;
    struct nic_wr wr;
    const struct nic_eq_attr attr = { .log2_entries = 2 }; /* 4 entries: 3 for events, 1 for the report */
    int seen[8] = { 0 }, n = 0, overflow = 0, r;
    uint32_t lost = 0;
    (void)state;

    setup_world(&w, true);
    nic_dev_t *c = eq_proc(&w, &pc, &attr, ep, 2);
    for (unsigned i = 0; i < 8; i++) {
        wr = eq_wr(&w, i, 1);
        assert_int_equal(nic_post_write(c, ep[i % 2], &wr), NIC_OK);
    }
    fake_run(w.f);
    assert_int_equal(w.f->eq_lost, 5); /* 3 entries fit, the 5 others were lost */
    while ((r = nic_eq_poll(c, ev, 32)) > 0) {
        for (int i = 0; i < r; i++) {
            if (ev[i].kind == NIC_EV_OVERFLOW) {
                overflow++;
                lost += ev[i].lost;
                continue;
            }
            assert_int_equal(ev[i].kind, NIC_EV_COMPLETION);
            assert_true(ev[i].wc.wr_id < 8);
            assert_int_equal(ev[i].ep, ep[ev[i].wc.wr_id % 2]);
            seen[ev[i].wc.wr_id]++;
            n++;
        }
    }
    assert_int_equal(r, 0);
    /* the reserved slot took a report at the first loss, the rest came once there was room */
    assert_true(overflow >= 1 && overflow <= 2);
    assert_int_equal(lost, 5);
    assert_int_equal(n, 8);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(seen[i], 1);
    assert_int_equal(nic_lib_counters(c, &lc), NIC_OK);
    assert_int_equal(lc.eq_lost, 5);
    assert_true(lc.eq_credits >= 1); /* the count that made room */
    /* and the queue works on */
    wr = eq_wr(&w, 40, 1);
    assert_int_equal(nic_post_write(c, ep[1], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 32), 1);
    assert_int_equal(ev[0].wc.wr_id, 40);
    assert_int_equal(w.f->eq_lost, 5);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}

/* Message queues (ABI 2.2): a receiver with a notify queue posts buffers; sends land in them in
 * post order, each reported once as NIC_EV_RECV (queue, length, buffer, offset, source node and
 * process, status) with its bytes in place; the send completes NIC_OP_SEND / SUCCESS, a post
 * NIC_OP_POST_RECV (only when signalled). */
#define MQ_VA 0x48000000ull
static nic_dev_t *mq_receiver(struct world *w, uint32_t *pid, nic_ep_t *ep, struct nic_mr *mr)
{
    nic_dev_t *t;
    const struct nic_eq_attr notify = { .flags = NIC_EQ_NOTIFY };
    *pid = fake_proc(w->f);
    for (uint64_t o = 0; o < 16384; o += 4096)
        pattern(w, *pid, MQ_VA + o, 4096, 9);
    assert_int_equal(nic_dev_open(w->f->drv, *pid, NULL, &t), NIC_OK);
    assert_int_equal(nic_eq_open(t, &notify), NIC_OK);
    assert_int_equal(nic_ep_open(t, ep), NIC_OK);
    assert_int_equal(nic_reg(t, MQ_VA, 16384, NIC_ACCESS_LOCAL_WRITE, mr), NIC_OK);
    return t;
}

static struct nic_wr mq_wr(uint32_t q, uint32_t key, uint32_t len, uint64_t id)
{
    struct nic_wr wr = { .local_va = E_VA, .len = len, .wr_id = id, .signaled = 1 };
    wr.remote = (struct nic_remote){ .node = 0, .handle = q, .rkey = key };
    return wr;
}

static void mq_send_and_recv(void **state)
{
    struct world w;
    nic_dev_t *t, *c;
    nic_ep_t te, ep[1];
    uint32_t pt, pc;
    struct nic_mr tmr;
    struct nic_ev ev[4];
    struct nic_wc wc;
    uint8_t got[400], want[400];
    (void)state;

    setup_world(&w, true);
    t = mq_receiver(&w, &pt, &te, &tmr);
    c = eq_proc(&w, &pc, NULL, ep, 1);
    struct nic_wr r1 = { .local_va = MQ_VA + 100, .len = 400, .wr_id = 11, .signaled = 1 };
    struct nic_wr r2 = { .local_va = MQ_VA + 8192, .len = 4096, .wr_id = 12 };
    assert_int_equal(nic_post_recv(t, te, 3, 0xAB, &r1), NIC_OK);
    assert_int_equal(nic_post_recv(t, te, 3, 0xAB, &r2), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_poll(t, te, &wc, 1), 1); /* the signalled post only */
    assert_int_equal(wc.wr_id, 11);
    assert_int_equal(wc.op, NIC_OP_POST_RECV);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(nic_poll(t, te, &wc, 1), 0);
    struct nic_wr s1 = mq_wr(3, 0xAB, 400, 21), s2 = mq_wr(3, 0xAB, 33, 22);
    assert_int_equal(nic_post_send(c, ep[0], &s1), NIC_OK);
    assert_int_equal(nic_post_send(c, ep[0], &s2), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 4), 2);
    assert_int_equal(ev[0].wc.wr_id, 21);
    assert_int_equal(ev[0].wc.op, NIC_OP_SEND);
    assert_int_equal(ev[0].wc.status, NIC_WC_SUCCESS);
    assert_int_equal(ev[0].wc.bytes, 400);
    assert_int_equal(ev[1].wc.wr_id, 22);
    assert_int_equal(nic_eq_poll(t, ev, 4), 2);
    assert_int_equal(ev[0].kind, NIC_EV_RECV);
    assert_int_equal(ev[0].queue, 3);
    assert_int_equal(ev[0].len, 400);
    assert_int_equal(ev[0].handle, tmr.handle);
    assert_int_equal(ev[0].offset, 100);
    assert_int_equal(ev[0].src_node, 0);
    assert_int_equal(ev[0].src_pid, pc);
    assert_int_equal(ev[0].status, NIC_WC_SUCCESS);
    assert_int_equal(ev[1].kind, NIC_EV_RECV);
    assert_int_equal(ev[1].len, 33);
    assert_int_equal(ev[1].offset, 8192);
    os_read(w.f->os, pt, MQ_VA + 100, got, 400);
    os_read(w.f->os, pc, E_VA, want, 400);
    assert_memory_equal(got, want, 400);
    os_read(w.f->os, pt, MQ_VA + 8192, got, 33);
    assert_memory_equal(got, want, 33);
    assert_int_equal(w.f->mq_placed, 2);
    assert_int_equal(nic_eq_poll(t, ev, 4), 0);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    assert_int_equal(nic_dev_close(t), NIC_OK);
    teardown_world(&w);
}

/* Every failure: at the call (NIC_EINVAL, NIC_ENOEQ, NIC_EPEER, local range), and completed: no
 * such queue, wrong key, no buffer (RNR), too long (both sides), a full ring, another process's
 * queue; nothing written by a refused send. */
static void mq_errors(void **state)
{
    struct world w;
    nic_dev_t *t, *c, *b;
    nic_ep_t te, ep[1], be;
    uint32_t pt, pc;
    struct nic_mr tmr;
    struct nic_ev ev[4];
    struct nic_wc wc;
    uint8_t got[200], before[200];
    (void)state;

    setup_world(&w, true);
    t = mq_receiver(&w, &pt, &te, &tmr);
    c = eq_proc(&w, &pc, NULL, ep, 1);
    struct nic_wr r = { .local_va = MQ_VA, .len = 100, .wr_id = 1, .signaled = 1 }, s;
    /* at the call */
    assert_int_equal(nic_post_recv(t, te, 0, 1, &r), NIC_EINVAL);
    assert_int_equal(nic_post_recv(t, te, NIC_MQ_QUEUES, 1, &r), NIC_EINVAL);
    assert_int_equal(nic_post_recv(t, te, 1, 1, NULL), NIC_EINVAL);
    r.local_va = MQ_VA + 16384 - 50;
    assert_int_equal(nic_post_recv(t, te, 1, 1, &r), NIC_EBOUNDS);
    r.local_va = MQ_VA;
    assert_int_equal(nic_post_recv(c, ep[0], 1, 1, &(struct nic_wr){ .local_va = E_VA, .len = 10 }), NIC_ENOEQ);
    s = mq_wr(1, 1, NIC_MSG_MAX + 1, 5);
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_EINVAL);
    s = mq_wr(0, 1, 10, 5);
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_EINVAL);
    s = mq_wr(1, 1, 10, 5);
    s.with_imm = 1;
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_EINVAL);
    s = mq_wr(1, 1, 10, 5);
    s.remote.node = 7;
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_EPEER);
    /* completed with a status */
    s = mq_wr(1, 1, 10, 6); /* nobody's queue */
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_OK);
    assert_int_equal(nic_post_recv(t, te, 1, 0x99, &r), NIC_OK); /* a 100-byte buffer */
    fake_run(w.f);
    assert_int_equal(nic_poll(t, te, &wc, 1), 1);
    assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(nic_eq_poll(c, ev, 4), 1);
    assert_int_equal(ev[0].wc.status, NIC_WC_BAD_HANDLE);
    os_read(w.f->os, pt, MQ_VA, before, sizeof before);
    s = mq_wr(1, 0x98, 10, 7); /* wrong key */
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_OK);
    s = mq_wr(1, 0x99, 101, 8); /* too long */
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 4), 2);
    assert_int_equal(ev[0].wc.status, NIC_WC_KEY);
    assert_int_equal(ev[1].wc.status, NIC_WC_TOO_BIG);
    assert_int_equal(ev[1].wc.bytes, 0);
    assert_int_equal(nic_eq_poll(t, ev, 4), 1);
    assert_int_equal(ev[0].kind, NIC_EV_RECV);
    assert_int_equal(ev[0].status, NIC_WC_TOO_BIG);
    assert_int_equal(ev[0].len, 101);
    os_read(w.f->os, pt, MQ_VA, got, sizeof got);
    assert_memory_equal(got, before, sizeof got); /* nothing written */
    s = mq_wr(1, 0x99, 100, 9); /* fits: the buffer was kept */
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_OK);
    s = mq_wr(1, 0x99, 10, 10); /* no buffer left: RNR */
    assert_int_equal(nic_post_send(c, ep[0], &s), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 4), 2);
    assert_int_equal(ev[0].wc.status, NIC_WC_SUCCESS);
    assert_int_equal(ev[1].wc.status, NIC_WC_RNR);
    assert_string_equal(nic_wc_status_str(NIC_WC_RNR), "receiver not ready (no buffer posted)");
    assert_int_equal(w.f->mq_refused, 4);
    assert_int_equal(w.f->mq_placed, 1);
    /* the ring holds NIC_MQ_DEPTH buffers */
    for (unsigned i = 0; i < NIC_MQ_DEPTH; i++)
        assert_int_equal(nic_post_recv(t, te, 1, 0x99, &r), NIC_OK);
    fake_run(w.f);
    while (nic_poll(t, te, &wc, 1) == 1)
        assert_int_equal(wc.status, NIC_WC_SUCCESS);
    assert_int_equal(nic_post_recv(t, te, 1, 0x99, &r), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_poll(t, te, &wc, 1), 1);
    assert_int_equal(wc.status, NIC_WC_NO_RESOURCES);
    /* another process (with a notify queue) may not post into it; a wrong key neither */
    b = mq_receiver(&w, &pc, &be, &tmr);
    struct nic_wr rb = { .local_va = MQ_VA, .len = 10, .wr_id = 3 };
    assert_int_equal(nic_post_recv(b, be, 1, 0x99, &rb), NIC_OK);
    assert_int_equal(nic_post_recv(t, te, 1, 0x98, &r), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_poll(b, be, &wc, 1), 1);
    assert_int_equal(wc.status, NIC_WC_KEY);
    assert_int_equal(nic_poll(t, te, &wc, 1), 1);
    assert_int_equal(wc.status, NIC_WC_KEY);
    /* the owner's endpoint closed: the queue is free to claim */
    assert_int_equal(nic_dev_close(t), NIC_OK);
    assert_int_equal(nic_post_recv(b, be, 1, 0x42, &rb), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_poll(b, be, &wc, 1), 0); /* unsignalled, and no error: a fresh ring */
    assert_int_equal(nic_dev_close(b), NIC_OK);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}

/* Target-side notification: a write with immediate gives the target process exactly one
 * NIC_EV_IMM (its immediate, length, buffer, offset, source node), with the bytes in place; a write
 * without one gives none; a target without a notify queue gets nothing (counted by the NIC); bad
 * immediates are refused at the call. */
static void eq_write_with_imm(void **state)
{
    struct world w;
    nic_dev_t *t;
    nic_ep_t te, ep[1];
    uint32_t pt, pc;
    struct nic_mr tmr;
    struct nic_ev ev[4];
    struct nic_wc wc;
    struct nic_wr wr;
    uint8_t got[300], want[300];
    const struct nic_eq_attr notify = { .flags = NIC_EQ_NOTIFY };
    (void)state;

    setup_world(&w, true);
    pt = fake_proc(w.f);
    assert_int_equal(nic_dev_open(w.f->drv, pt, NULL, &t), NIC_OK);
    assert_int_equal(nic_eq_open(t, &notify), NIC_OK);
    assert_int_equal(nic_ep_open(t, &te), NIC_OK);
    assert_int_equal(nic_reg(t, 0x40000000ull, 8192, NIC_ACCESS_REMOTE_WRITE, &tmr), NIC_OK);
    nic_dev_t *c = eq_proc(&w, &pc, NULL, ep, 1);
    wr = eq_wr(&w, 1, 1);
    wr.remote = (struct nic_remote){ tmr.node, tmr.pid, tmr.handle, tmr.rkey };
    wr.remote_offset = 1000;
    wr.len = 300;
    wr.with_imm = 1;
    wr.imm = 0xBEEF;
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 4), 1); /* the writer: its completion */
    assert_int_equal(ev[0].wc.status, NIC_WC_SUCCESS);
    assert_int_equal(nic_eq_poll(t, ev, 4), 1); /* the target: one notification */
    assert_int_equal(ev[0].kind, NIC_EV_IMM);
    assert_int_equal(ev[0].imm, 0xBEEF);
    assert_int_equal(ev[0].len, 300);
    assert_int_equal(ev[0].handle, tmr.handle);
    assert_int_equal(ev[0].offset, 1000);
    assert_int_equal(ev[0].src_node, 0);
    os_read(w.f->os, pt, 0x40000000ull + 1000, got, sizeof got);
    os_read(w.f->os, pc, E_VA, want, sizeof want);
    assert_memory_equal(got, want, sizeof got); /* the data is there when the event is */
    assert_int_equal(nic_eq_poll(t, ev, 4), 0);
    /* without an immediate: no notification */
    wr.with_imm = 0;
    wr.wr_id = 2;
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 4), 1);
    assert_int_equal(nic_eq_poll(t, ev, 4), 0);
    /* to a process without a notify queue (w.b has none): the write succeeds, the NIC counts it */
    wr = eq_wr(&w, 3, 1);
    wr.with_imm = 1;
    wr.imm = 7;
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_OK);
    fake_run(w.f);
    assert_int_equal(nic_eq_poll(c, ev, 4), 1);
    assert_int_equal(ev[0].wc.status, NIC_WC_SUCCESS);
    assert_int_equal(w.f->imm_no_eq, 1);
    /* refused at the call: an immediate beyond 16 bits, a read with one */
    wr.imm = NIC_IMM_MAX + 1;
    assert_int_equal(nic_post_write(c, ep[0], &wr), NIC_EINVAL);
    wr.imm = 1;
    assert_int_equal(nic_post_read(c, ep[0], &wr), NIC_EINVAL);
    assert_int_equal(nic_poll(c, ep[0], &wc, 1), 0);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    assert_int_equal(nic_dev_close(t), NIC_OK);
    teardown_world(&w);
}

/* Eviction upcall through the library: the process's queue reports NIC_EV_UPCALL (its range), and
 * an answer after the grace period is NIC_ELATE. */
static void eq_upcall_reported(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f = fake_create(true);
    size_t ilen;
    const uint8_t *img = fake_image(&ilen);
    char err[200];
    nic_dev_t *c;
    nic_ep_t ep;
    struct nic_mr mr;
    struct nic_ev ev;
    const uint8_t *e;
    (void)state;

    nicdrv_config_default(&cfg);
    cfg.nodes = 2;
    cfg.pin_hwm_pages = 2 * FAKE_VMH_L + 2; /* two lines, the queue page and the completion queue */
    cfg.fill_residency = 0;
    cfg.upcall_grace = 10000;
    assert_non_null(fake_driver(f, &cfg));
    assert_int_equal(nicdrv_probe(f->drv, img, ilen, err, sizeof err), 0);
    uint32_t pid = fake_proc(f);
    assert_int_equal(nic_dev_open(f->drv, pid, NULL, &c), NIC_OK);
    assert_int_equal(nic_eq_open(c, NULL), NIC_OK);
    assert_int_equal(nic_ep_open(c, &ep), NIC_OK);
    assert_int_equal(nic_reg(c, A_VA, 3 * FAKE_VMH_L * 4096ull, NIC_ACCESS_REMOTE_WRITE, &mr), NIC_OK);
    for (unsigned line = 0; line < 3; line++) { /* the third line's fill takes back the first */
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (A_VA >> 12) + line * FAKE_VMH_L, &e), 1);
        fake_run(f);
    }
    assert_int_equal(nic_eq_poll(c, &ev, 1), 1);
    assert_int_equal(ev.kind, NIC_EV_UPCALL);
    assert_int_equal(ev.va, A_VA);
    assert_int_equal(ev.len, FAKE_VMH_L * 4096u);
    assert_int_equal(nic_upcall_done(c, ev.token), NIC_ELATE); /* the grace period ended: the pages went */
    assert_int_equal(nic_eq_poll(c, &ev, 1), 0);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    fake_destroy(f);
}

/* REGISTER-WAIT (static build: the NIC's tables full): nic_reg_wait waits for a deregistration
 * and times out with NIC_ETIMEDOUT when none comes; a removal wakes the wait (room_gen) at once;
 * with room it registers at once; other errors are not waited on. */
static void reg_wait_for_room(void **state)
{
    struct world w;
    nic_dev_t *c;
    struct nic_mr mr[FAKE_LINES + 1], m2;
    struct nic_lib_counters lc;
    unsigned n;
    int rc = NIC_OK;
    (void)state;

    setup_world(&w, false);
    uint32_t pc = fake_proc(w.f);
    assert_int_equal(nic_dev_open(w.f->drv, pc, NULL, &c), NIC_OK);
    for (n = 0; n <= FAKE_LINES && (rc = nic_reg(c, E_VA + n * FAKE_VMH_L * 4096ull, 4096, NIC_ACCESS_REMOTE_WRITE,
                                                  &mr[n])) == NIC_OK; n++)
        ;
    assert_int_equal(rc, NIC_ENORES);
    assert_true(n > 1);
    uint64_t t0 = w.f->now;
    assert_int_equal(nic_reg_wait(c, E_VA + n * FAKE_VMH_L * 4096ull, 4096, NIC_ACCESS_REMOTE_WRITE, &m2, 5000),
                     NIC_ETIMEDOUT);
    assert_true(w.f->now >= t0 + 5000);
    assert_int_equal(nic_lib_counters(c, &lc), NIC_OK);
    assert_true(lc.reg_waits >= 1);
    /* a removal is what a waiter waits for */
    uint64_t seen = nicdrv_room_gen(w.f->drv);
    assert_int_equal(nic_dereg(c, mr[0].handle), NIC_OK);
    t0 = w.f->now;
    assert_int_equal(nicdrv_room_wait(w.f->drv, seen, t0 + 5000), NICDRV_OK);
    assert_true(w.f->now < t0 + 5000);
    assert_int_equal(nic_reg_wait(c, E_VA + n * FAKE_VMH_L * 4096ull, 4096, NIC_ACCESS_REMOTE_WRITE, &m2, 5000), NIC_OK);
    assert_int_equal(nic_reg_wait(c, E_VA, 0, NIC_ACCESS_REMOTE_WRITE, &m2, 5000), NIC_EINVAL); /* not waited on */
    assert_int_equal(nic_reg_wait(c, E_VA, 4096, NIC_ACCESS_REMOTE_WRITE, NULL, 5000), NIC_EINVAL);
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}

/* The event queue's errors at the call. */
static void eq_errors(void **state)
{
    struct world w;
    struct nic_ev ev;
    struct nic_eq_attr attr = { 0 };
    nic_dev_t *c;
    nic_ep_t e;
    uint32_t pc;
    (void)state;

    setup_world(&w, true);
    assert_int_equal(nic_eq_poll(w.a, &ev, 1), NIC_ENOEQ);
    assert_int_equal(nic_eq_wait(w.a, &ev, 1000), NIC_ENOEQ);
    assert_int_equal(nic_eq_close(w.a), NIC_ENOEQ);
    assert_int_equal(nic_eq_open(w.a, NULL), NIC_EBUSY); /* its endpoint is open: open the queue first */
    assert_int_equal(nic_eq_open(NULL, NULL), NIC_EINVAL);
    pc = fake_proc(w.f);
    assert_int_equal(nic_dev_open(w.f->drv, pc, NULL, &c), NIC_OK);
    attr.log2_entries = NIC_EQ_LOG2_MAX + 1;
    assert_int_equal(nic_eq_open(c, &attr), NIC_EINVAL);
    attr.log2_entries = 1;
    assert_int_equal(nic_eq_open(c, &attr), NIC_EINVAL);
    attr.log2_entries = 3;
    attr.flags = 0x80;
    assert_int_equal(nic_eq_open(c, &attr), NIC_EINVAL);
    attr.flags = NIC_EQ_NOTIFY;
    assert_int_equal(nic_eq_open(c, &attr), NIC_OK);
    assert_int_equal(nic_eq_open(c, &attr), NIC_EBUSY); /* one per process */
    assert_int_equal(nicdrv_eq_open(w.f->drv, pc, 0x40000000ull, 3, 0), NICDRV_EBUSY);
    assert_int_equal(nic_eq_poll(c, NULL, 1), NIC_EINVAL);
    assert_int_equal(nic_eq_poll(c, &ev, -1), NIC_EINVAL);
    assert_int_equal(nic_eq_wait(c, NULL, 1), NIC_EINVAL);
    assert_int_equal(nic_eq_poll(c, &ev, 1), 0);
    assert_int_equal(nic_eq_close(c), NIC_OK);
    assert_int_equal(nic_eq_poll(c, &ev, 1), NIC_ENOEQ);
    assert_int_equal(nic_eq_close(c), NIC_ENOEQ);
    /* an endpoint opened without a queue reports to none */
    assert_int_equal(nic_ep_open(c, &e), NIC_OK);
    assert_int_equal(w.f->ep[e & 0xFFFF].eq, 0);
    assert_int_equal(nicdrv_eq_wait(w.f->drv, pc, 0, 1000), NICDRV_ENOENT);
    /* queue ids run out on the NIC: ENORES, nothing pinned for the refused one */
    {
        nic_dev_t *more[16];
        unsigned k = 0;
        int rc = NIC_OK;
        for (; k < 16 && rc == NIC_OK; k++) {
            assert_int_equal(nic_dev_open(w.f->drv, fake_proc(w.f), NULL, &more[k]), NIC_OK);
            rc = nic_eq_open(more[k], NULL);
        }
        assert_int_equal(rc, NIC_ENORES);
        assert_true(k > 8);
        for (unsigned i = 0; i < k; i++)
            assert_int_equal(nic_dev_close(more[i]), NIC_OK);
    }
    assert_int_equal(nic_dev_close(c), NIC_OK);
    teardown_world(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rdma_dynamic),
        cmocka_unit_test(host_endpoint_through_the_library),
        cmocka_unit_test(rdma_static),
        cmocka_unit_test(errors_at_the_call),
        cmocka_unit_test(error_completions),
        cmocka_unit_test(close_flushes_outstanding),
        cmocka_unit_test(completions_identified_never_lost),
        cmocka_unit_test(no_poll_300_signalled),
        cmocka_unit_test(signalled_then_unsignalled),
        cmocka_unit_test(forged_cqe_ignored),
        cmocka_unit_test(raw_local_range),
        cmocka_unit_test(eq_several_endpoints),
        cmocka_unit_test(eq_wait_sleeps),
        cmocka_unit_test(eq_overflow_reported),
        cmocka_unit_test(eq_errors),
        cmocka_unit_test(eq_write_with_imm),
        cmocka_unit_test(mq_send_and_recv),
        cmocka_unit_test(mq_errors),
        cmocka_unit_test(eq_upcall_reported),
        cmocka_unit_test(reg_wait_for_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
