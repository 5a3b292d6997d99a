/* Unit tests of the host cost model: defaults from the seeds, key=value parsing (good and bad),
 * conversion to cycles, seeded draws, and the miss-penalty recorder's percentiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "costs.h"

static void costs_defaults_come_from_the_seeds(void **state)
{
    costs_t *c = costs_create(0, 1);
    const struct costs_params *p = costs_params(c);

    (void)state;
    assert_int_equal(p->wake.min_ns, 0); /* seed 000: miss delay 0-50 us */
    assert_int_equal(p->wake.max_ns, 50000);
    assert_int_equal(p->miss_proc.min_ns, 5000); /* seed 000: processing 5-500 us */
    assert_int_equal(p->miss_proc.max_ns, 500000);
    assert_int_equal(p->pin_fixed_ns, 1300); /* seed 004: 1.3 us + 150 ns per page */
    assert_int_equal(p->pin_page_ns, 150);
    /* 200 MHz: 5 ns per cycle */
    assert_int_equal(costs_pin(c, 0), 0);
    assert_int_equal(costs_pin(c, 1), 290);
    assert_int_equal(costs_pin(c, 64), (1300 + 64 * 150) / 5);
    assert_int_equal(costs_irq(c), 100);
    assert_int_equal(costs_unpin(c, 10), 0);
    costs_destroy(c);
}

static void costs_accepts_keys_with_units(void **state)
{
    costs_t *c = costs_create(100000000, 1); /* 100 MHz: 10 ns per cycle */
    char buf[1024];

    (void)state;
    assert_int_equal(costs_set(c, "pin_fixed_ns=2000"), SIM_OK);
    assert_int_equal(costs_set(c, "pin_page_ns=0.72us"), SIM_OK);
    assert_int_equal(costs_params(c)->pin_page_ns, 720);
    assert_int_equal(costs_pin(c, 2), (2000 + 2 * 720) / 10);
    assert_int_equal(costs_set(c, "irq_ns=1ms"), SIM_OK);
    assert_int_equal(costs_irq(c), 100000);
    assert_int_equal(costs_set_list(c, "wake_min_ns=10us,wake_max_ns=10us,wake_dist=fixed,syscall_ns=7ns"), SIM_OK);
    assert_int_equal(costs_draw_wake(c), 1000);
    assert_int_equal(costs_syscall(c), 1); /* 7 ns rounds up to one cycle */
    assert_true(costs_format(c, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "pin_fixed_ns=2000\n"));
    assert_non_null(strstr(buf, "wake_dist=fixed\n"));
    costs_destroy(c);
}

static void costs_rejects_bad_keys_and_values_without_changes(void **state)
{
    costs_t *c = costs_create(0, 1);
    const char *bad[] = { "pin_fixed=2000",
                          "pin_fixed_ns",
                          "pin_fixed_ns=",
                          "pin_fixed_ns=-5",
                          "pin_fixed_ns=12xs",
                          "pin_fixed_ns=1.2.3",
                          "wake_dist=gaussian",
                          "wake_min_ns=60us", /* above wake_max_ns */
                          "pin_fixed_ns=99999999999999999999",
                          "=5",
                          "" };

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(costs_set(c, bad[i]), SIM_EINVAL);
        assert_true(strlen(costs_error(c)) > 0);
    }
    assert_non_null(strstr((costs_set(c, "pin_fixed=1"), costs_error(c)), "unknown host cost key 'pin_fixed'"));
    assert_int_equal(costs_params(c)->pin_fixed_ns, 1300);
    assert_int_equal(costs_params(c)->wake.min_ns, 0);
    /* A list stops at its first bad item; earlier items stay applied. */
    assert_int_equal(costs_set_list(c, "irq_ns=1us,bogus=1,syscall_ns=1"), SIM_EINVAL);
    assert_int_equal(costs_params(c)->irq_ns, 1000);
    assert_int_equal(costs_params(c)->syscall_ns, 300);
    costs_destroy(c);
}

static void costs_draws_are_in_range_and_seeded(void **state)
{
    costs_t *a = costs_create(0, 42), *b = costs_create(0, 42), *d = costs_create(0, 43);
    int differ = 0;
    unsigned below_50us = 0;

    (void)state;
    for (int i = 0; i < 10000; i++) {
        sim_cycle_t wa = costs_draw_wake(a), pa = costs_draw_miss_proc(a);
        assert_true(wa <= 10000);                /* 50 us */
        assert_true(pa >= 1000 && pa <= 100000); /* 5-500 us */
        below_50us += pa < 10000;
        assert_true(wa == costs_draw_wake(b));
        assert_true(pa == costs_draw_miss_proc(b));
        differ += wa != costs_draw_wake(d);
        costs_draw_miss_proc(d);
    }
    assert_true(differ > 9000);
    /* log-uniform over two decades: half the draws below the geometric mean (50 us) */
    assert_true(below_50us > 4700 && below_50us < 5300);
    costs_destroy(a);
    costs_destroy(b);
    costs_destroy(d);
}

static void costs_recorder_reports_percentiles(void **state)
{
    costs_t *c = costs_create(0, 1);
    struct costs_stats st;

    (void)state;
    costs_stats(c, &st);
    assert_int_equal(st.count, 0);
    for (sim_cycle_t i = 1; i <= 100; i++)
        costs_record_miss(c, i, 1000 - i);
    costs_stats(c, &st);
    assert_int_equal(st.count, 100);
    assert_int_equal(st.delay_p50, 50);
    assert_int_equal(st.delay_p99, 99);
    assert_int_equal(st.delay_max, 100);
    assert_int_equal(st.proc_p50, 949); /* 50th of 900..999 */
    assert_int_equal(st.proc_max, 999);
    assert_int_equal(st.total_p50, 1000);
    /* Beyond the cap the reservoir keeps COSTS_REC_MAX samples and counts all. */
    for (int i = 0; i < COSTS_REC_MAX + 1000; i++)
        costs_record_miss(c, 7, 7);
    costs_stats(c, &st);
    assert_int_equal(st.count, 100 + COSTS_REC_MAX + 1000);
    assert_int_equal(st.kept, COSTS_REC_MAX);
    assert_int_equal(st.delay_p50, 7);
    costs_reset_samples(c);
    costs_stats(c, &st);
    assert_int_equal(st.count, 0);
    costs_destroy(c);
}

/* The fill's part of the processing: its own percentiles, and the processing less the fill per
 * sample (not the difference of the medians); a fill above its processing is clamped; imported
 * with the samples (the MPI merge), 0 when the sender had none. */
static void costs_recorder_splits_the_fill(void **state)
{
    costs_t *c = costs_create(0, 1), *m = costs_create(0, 2);
    struct costs_stats st;
    const sim_cycle_t *dl, *pr;
    uint64_t count;
    uint32_t kept;

    (void)state;
    for (sim_cycle_t i = 1; i <= 100; i++)
        costs_record_miss_fill(c, 5, 1000 + i, 10 * i); /* proc less fill: 1000 - 9 i */
    costs_stats(c, &st);
    assert_int_equal(st.fill_p50, 500);
    assert_int_equal(st.fill_p99, 990);
    assert_int_equal(st.fill_max, 1000);
    assert_int_equal(st.proc_p50, 1050);
    assert_int_equal(st.nofill_p50, 1000 - 9 * 51); /* 50th of 100..991 */
    assert_int_equal(st.nofill_p99, 1000 - 9 * 2);
    costs_record_miss_fill(m, 1, 100, 250);
    costs_stats(m, &st);
    assert_int_equal(st.fill_max, 100);
    assert_int_equal(st.nofill_p50, 0);
    costs_reset_samples(m);
    kept = costs_samples(c, &count, &dl, &pr);
    costs_import(m, count, kept, dl, pr, costs_fill_samples(c));
    costs_stats(m, &st);
    assert_int_equal(st.fill_p50, 500);
    assert_int_equal(st.nofill_p50, 1000 - 9 * 51);
    costs_reset_samples(m);
    costs_import(m, count, kept, dl, pr, NULL);
    costs_stats(m, &st);
    assert_int_equal(st.fill_max, 0);
    assert_int_equal(st.nofill_p50, st.proc_p50);
    costs_destroy(c);
    costs_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(costs_defaults_come_from_the_seeds),
        cmocka_unit_test(costs_accepts_keys_with_units),
        cmocka_unit_test(costs_rejects_bad_keys_and_values_without_changes),
        cmocka_unit_test(costs_draws_are_in_range_and_seeded),
        cmocka_unit_test(costs_recorder_reports_percentiles),
        cmocka_unit_test(costs_recorder_splits_the_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
