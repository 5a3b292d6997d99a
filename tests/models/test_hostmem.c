/* Unit tests of hostmem: sparse frames, per-device pin counts and the unpinned-DMA oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hostmem.h"

static hostmem_t *quiet_mem(void)
{
    struct hostmem_config cfg;

    hostmem_config_default(&cfg);
    cfg.max_frames = 64;
    cfg.fail_loudly = false;
    return hostmem_create(&cfg);
}

static void hostmem_frames_are_zeroed_sparse_and_bounded(void **state)
{
    hostmem_t *m = quiet_mem();
    uint64_t pfn[64], extra;
    uint8_t buf[16];

    (void)state;
    assert_non_null(m);
    for (int i = 0; i < 64; i++)
        assert_int_equal(hostmem_frame_alloc(m, &pfn[i]), SIM_OK);
    assert_int_equal(hostmem_frame_alloc(m, &extra), SIM_ENOMEM);
    for (int i = 0; i < 64; i++) {
        assert_true(pfn[i] >= 0x100 && pfn[i] < 0x100 + 64);
        for (int j = 0; j < i; j++)
            assert_true(pfn[i] != pfn[j]);
    }
    assert_int_equal(hostmem_cpu_read(m, pfn[3] << 12, buf, sizeof buf), SIM_OK);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
    assert_int_equal(hostmem_frame_free(m, pfn[3]), SIM_OK);
    assert_int_equal(hostmem_frame_free(m, pfn[3]), SIM_EINVAL);
    assert_int_equal(hostmem_cpu_read(m, pfn[3] << 12, buf, sizeof buf), SIM_EBUS);
    assert_int_equal(hostmem_cpu_read(m, 0, buf, 1), SIM_EBUS); /* below the physical range */
    assert_int_equal(hostmem_counters(m)->frames_in_use, 63);
    assert_int_equal(hostmem_counters(m)->frames_peak, 64);
    hostmem_destroy(m);
}

static void hostmem_pin_counts_are_per_device(void **state)
{
    hostmem_t *m = quiet_mem();
    uint64_t pfn;

    (void)state;
    assert_int_equal(hostmem_frame_alloc(m, &pfn), SIM_OK);
    assert_int_equal(hostmem_pin(m, 0, pfn), SIM_OK);
    assert_int_equal(hostmem_pin(m, 0, pfn), SIM_OK);
    assert_int_equal(hostmem_pin(m, 1, pfn), SIM_OK);
    assert_int_equal(hostmem_pin_count(m, 0, pfn), 2);
    assert_int_equal(hostmem_pin_count(m, 1, pfn), 1);
    assert_int_equal(hostmem_pin_total(m, pfn), 3);
    assert_int_equal(hostmem_pin(m, HOSTMEM_MAX_DEVS, pfn), SIM_EINVAL);
    assert_int_equal(hostmem_frame_free(m, pfn), SIM_EPINNED);
    assert_int_equal(hostmem_unpin(m, 1, pfn), SIM_OK);
    assert_int_equal(hostmem_unpin(m, 1, pfn), SIM_ENOTPINNED);
    assert_int_equal(hostmem_unpin(m, 0, pfn), SIM_OK);
    assert_int_equal(hostmem_unpin(m, 0, pfn), SIM_OK);
    assert_int_equal(hostmem_frame_free(m, pfn), SIM_OK);
    hostmem_destroy(m);
}

static void hostmem_dma_checks_every_frame_and_writes_nothing_on_violation(void **state)
{
    hostmem_t *m = quiet_mem();
    uint64_t a, b;
    uint8_t buf[200], back[200];
    struct hostmem_violation v;

    (void)state;
    assert_int_equal(hostmem_frame_alloc(m, &a), SIM_OK);
    assert_int_equal(hostmem_frame_alloc(m, &b), SIM_OK);
    hostmem_set_owner(m, a, 7, 0x1234);
    hostmem_set_owner(m, b, 7, 0x1235);
    memset(buf, 0xAB, sizeof buf);
    assert_int_equal(hostmem_pin(m, 0, a), SIM_OK);
    /* Within the pinned frame: fine, for device 0 only. */
    assert_int_equal(hostmem_dma_write(m, 0, (a << 12) + 100, buf, sizeof buf), SIM_OK);
    assert_int_equal(hostmem_dma_read(m, 0, (a << 12) + 100, back, sizeof back), SIM_OK);
    assert_memory_equal(buf, back, sizeof buf);
    hostmem_set_now(m, 777);
    assert_int_equal(hostmem_dma_read(m, 1, (a << 12) + 100, back, 4), SIM_EUNPINNED);
    /* Crossing from pinned a into unpinned b (only if b follows a): use a DMA at b directly. */
    assert_int_equal(hostmem_dma_write(m, 0, (b << 12) + 8, buf, 16), SIM_EUNPINNED);
    assert_int_equal(hostmem_violation_get(m, 0, &v), SIM_OK);
    assert_int_equal(v.kind, HOSTMEM_VIOL_UNPINNED);
    assert_true(v.is_write);
    assert_int_equal(v.pid, 7);
    assert_int_equal(v.va, (0x1235ull << 12) + 8);
    assert_int_equal(v.bad_pa, (b << 12) + 8);
    assert_int_equal(v.pfn, b);
    assert_int_equal(v.when, 777);
    assert_int_equal(hostmem_cpu_read(m, b << 12, back, 32), SIM_OK);
    for (int i = 0; i < 32; i++)
        assert_int_equal(back[i], 0); /* nothing written */
    /* A DMA to no frame at all is a bus error. */
    assert_int_equal(hostmem_dma_read(m, 0, 0x100000000ull, back, 4), SIM_EBUS);
    assert_int_equal(hostmem_violation_get(m, 0, &v), SIM_OK);
    assert_int_equal(v.kind, HOSTMEM_VIOL_BUS);
    assert_int_equal(v.pid, HOSTMEM_NO_PID);
    assert_int_equal(hostmem_counters(m)->violations, 3);
    assert_int_equal(hostmem_counters(m)->bus_errors, 1);
    assert_int_equal(hostmem_counters(m)->dma_bytes_written, sizeof buf);
    assert_int_equal(hostmem_counters(m)->dma_bytes_read, sizeof buf);
    hostmem_destroy(m);
}

static void hostmem_dma_spanning_two_frames_needs_both_pinned(void **state)
{
    struct hostmem_config cfg;
    hostmem_t *m;
    uint64_t a, b;
    uint8_t buf[64] = { 1 };

    (void)state;
    hostmem_config_default(&cfg);
    cfg.scatter = false; /* consecutive frames, so one DMA can span both */
    cfg.fail_loudly = false;
    m = hostmem_create(&cfg);
    assert_int_equal(hostmem_frame_alloc(m, &a), SIM_OK);
    assert_int_equal(hostmem_frame_alloc(m, &b), SIM_OK);
    assert_int_equal(b, a + 1);
    assert_int_equal(hostmem_pin(m, 0, a), SIM_OK);
    assert_int_equal(hostmem_dma_write(m, 0, (b << 12) - 32, buf, sizeof buf), SIM_EUNPINNED);
    assert_int_equal(hostmem_pin(m, 0, b), SIM_OK);
    assert_int_equal(hostmem_dma_write(m, 0, (b << 12) - 32, buf, sizeof buf), SIM_OK);
    hostmem_destroy(m);
}

struct hook_log {
    int calls;
    char msg[256];
};

static void record_hook(void *ctx, const struct hostmem_violation *v, const char *msg)
{
    struct hook_log *log = ctx;

    (void)v;
    log->calls++;
    strncpy(log->msg, msg, sizeof log->msg - 1);
}

static void hostmem_fail_loudly_calls_the_hook_with_a_message(void **state)
{
    hostmem_t *m = hostmem_create(NULL); /* defaults: fail loudly */
    struct hook_log log = { 0 };
    uint64_t a;
    uint32_t x = 0;

    (void)state;
    hostmem_set_fail_hook(m, record_hook, &log);
    assert_int_equal(hostmem_frame_alloc(m, &a), SIM_OK);
    hostmem_set_owner(m, a, 3, 0x42);
    assert_int_equal(hostmem_dma_read(m, 0, a << 12, &x, sizeof x), SIM_EUNPINNED);
    assert_int_equal(log.calls, 1);
    assert_non_null(strstr(log.msg, "DMA to unpinned page"));
    assert_non_null(strstr(log.msg, "pid 3 va 0x42000"));
    hostmem_set_fail_loudly(m, false);
    assert_int_equal(hostmem_dma_read(m, 0, a << 12, &x, sizeof x), SIM_EUNPINNED);
    assert_int_equal(log.calls, 1);
    hostmem_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hostmem_frames_are_zeroed_sparse_and_bounded),
        cmocka_unit_test(hostmem_pin_counts_are_per_device),
        cmocka_unit_test(hostmem_dma_checks_every_frame_and_writes_nothing_on_violation),
        cmocka_unit_test(hostmem_dma_spanning_two_frames_needs_both_pinned),
        cmocka_unit_test(hostmem_fail_loudly_calls_the_hook_with_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
