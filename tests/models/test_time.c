/* Unit tests of the shared simulation base: ns <-> cycle conversion and the seeded generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim_err.h"
#include "sim_rng.h"
#include "sim_time.h"

static void time_conversions_round_as_documented(void **state)
{
    (void)state;
    assert_int_equal(sim_ns_to_cycles(0, 5), 1);                 /* 5 ns at 200 MHz = 1 cycle */
    assert_int_equal(sim_ns_to_cycles(200000000, 6), 2);         /* 1.2 cycles rounds up */
    assert_int_equal(sim_ns_to_cycles(200000000, 50000), 10000); /* seed 000: 50 us */
    assert_int_equal(sim_ns_to_cycles(200000000, 0), 0);
    assert_int_equal(sim_ns_to_cycles(1000000000, 3000000000ull), 3000000000ull);
    assert_int_equal(sim_cycles_to_ns(200000000, 10000), 50000);
    assert_int_equal(sim_cycles_to_ns(100000000, 3), 30);
    assert_int_equal(sim_rate_to_bytes_per_cycle(200000000, 7900000000ull), 39); /* PCIe gen3 x8 */
    assert_int_equal(sim_rate_to_bits_per_cycle(200000000, 10000000000ull), 50); /* 10 Gb/s */
    assert_int_equal(sim_cycle_add(SIM_CYCLE_NEVER - 1, 5), SIM_CYCLE_NEVER);
    assert_string_equal(sim_strerror(SIM_EUNPINNED), "DMA to a page not pinned for this device");
}

static void rng_same_seed_same_stream_different_seed_differs(void **state)
{
    sim_rng_t a, b, c, d;
    int same = 0;

    (void)state;
    sim_rng_seed(&a, 42, 0);
    sim_rng_seed(&b, 42, 0);
    sim_rng_seed(&c, 43, 0);
    sim_rng_seed(&d, 42, 1);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = sim_rng_next(&a), y = sim_rng_next(&b), z = sim_rng_next(&c), w = sim_rng_next(&d);
        assert_true(x == y);
        same += (x == z) + (x == w);
    }
    assert_int_equal(same, 0);
}

static void rng_bounded_draws_stay_in_range_and_are_roughly_uniform(void **state)
{
    sim_rng_t r;
    unsigned hist[10] = { 0 };

    (void)state;
    sim_rng_seed(&r, 7, 0);
    for (int i = 0; i < 100000; i++) {
        uint64_t v = sim_rng_below(&r, 10);
        assert_true(v < 10);
        hist[v]++;
        assert_true(sim_rng_range(&r, 5, 7) >= 5);
        assert_true(sim_rng_unit(&r) < 1.0);
    }
    for (int i = 0; i < 10; i++)
        assert_true(hist[i] > 9500 && hist[i] < 10500);
    /* Rates of 0 and 1 consume nothing: the stream is unchanged afterwards. */
    {
        sim_rng_t x, y;
        sim_rng_seed(&x, 9, 0);
        sim_rng_seed(&y, 9, 0);
        assert_false(sim_rng_chance(&x, 0.0));
        assert_true(sim_rng_chance(&x, 1.0));
        assert_true(sim_rng_next(&x) == sim_rng_next(&y));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_conversions_round_as_documented),
        cmocka_unit_test(rng_same_seed_same_stream_different_seed_differs),
        cmocka_unit_test(rng_bounded_draws_stay_in_range_and_are_roughly_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
