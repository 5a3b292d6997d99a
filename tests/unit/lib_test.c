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
    assert_int_equal(nic_ep_open(w.a, &e2), NIC_EBUSY); /* one endpoint per process */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rdma_dynamic),
        cmocka_unit_test(rdma_static),
        cmocka_unit_test(errors_at_the_call),
        cmocka_unit_test(error_completions),
        cmocka_unit_test(close_flushes_outstanding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
