/*
 * Unit tests of the NCP lookup cache (firmware/lib/lkc.c): LRU order within a set, set
 * selection, pid in the tag, line fill (neighbour prefetch), invalidation, fills racing
 * invalidations (epochs), cold/non-cold miss split, and counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lkc.h"
#include "ncp_util.h"

void ncp_on_assert(unsigned module, unsigned id)
{
    fail_msg("NCP_ASSERT module %u id %u", module, id);
}

/* 4 sets x 4 ways x lines of 8 entries of 1 word: 128 entries. */
static const struct lkc_cfg cfg4 = {"test", 2, 2, 3, 0, 4, 10, 1};
static struct lkc_way ways[64];
static uint32_t data[4096];
static uint16_t epochs[64];
static uint32_t seen[64];
static uint32_t uses[64];
static struct lkc c;

static int setup(void **state)
{
    (void)state;
    lkc_init(&c, &cfg4, ways, data, epochs, seen, uses);
    return 0;
}

/* Installs line `line` of pid with entry i = (pid << 20 | line << 8 | i). */
static int fill(uint16_t pid, uint32_t line)
{
    unsigned way;
    uint32_t *d = lkc_fill_begin(&c, pid, line, lkc_epoch(&c, pid), &way);
    if (!d)
        return 0;
    for (uint32_t i = 0; i < 8; i++)
        d[i] = (uint32_t)pid << 20 | line << 8 | i;
    lkc_fill_commit(&c, way, pid, line);
    return 1;
}

static int present(uint16_t pid, uint32_t line)
{
    return lkc_peek(&c, pid, line << 3) != NULL;
}

static void lkc_miss_then_hit_returns_the_filled_entry(void **state)
{
    (void)state;
    assert_null(lkc_lookup(&c, 1, 42, LKC_PATH_SEND));
    assert_true(fill(1, 42 >> 3));
    const uint32_t *e = lkc_lookup(&c, 1, 42, LKC_PATH_SEND);
    assert_non_null(e);
    assert_int_equal(*e, 1u << 20 | 5u << 8 | 2u);
    /* the whole line came in: neighbours hit too (prefetch) */
    for (uint32_t i = 40; i < 48; i++)
        assert_int_equal(*lkc_lookup(&c, 1, i, LKC_PATH_RECV), 1u << 20 | 5u << 8 | (i & 7));
    assert_null(lkc_lookup(&c, 1, 48, LKC_PATH_RECV));
    assert_int_equal(c.st.lookups, 11);
    assert_int_equal(c.st.hits, 9);
    assert_int_equal(c.st.miss_cold_send, 1);
    assert_int_equal(c.st.miss_cold_recv, 1);
    assert_int_equal(c.st.fills, 1);
}

static void lkc_pid_is_part_of_the_tag(void **state)
{
    (void)state;
    assert_true(fill(7, 3));
    assert_non_null(lkc_lookup(&c, 7, 3 * 8 + 1, LKC_PATH_SEND));
    assert_null(lkc_lookup(&c, 8, 3 * 8 + 1, LKC_PATH_SEND));
    assert_true(fill(8, 3)); /* same line number, other process: both live in the cache */
    assert_int_equal(*lkc_lookup(&c, 7, 25, LKC_PATH_SEND), 7u << 20 | 3u << 8 | 1u);
    assert_int_equal(*lkc_lookup(&c, 8, 25, LKC_PATH_SEND), 8u << 20 | 3u << 8 | 1u);
}

static void lkc_lru_evicts_the_least_recently_used_way_of_the_set(void **state)
{
    (void)state;
    /* lines 0, 4, 8, 12, 16 of one pid all map to one set (4 sets) */
    for (uint32_t l = 0; l < 16; l += 4)
        assert_true(fill(1, l));
    /* touch 0, 8, 12: line 4 is now the LRU */
    assert_non_null(lkc_lookup(&c, 1, 0 * 8, LKC_PATH_SEND));
    assert_non_null(lkc_lookup(&c, 1, 8 * 8, LKC_PATH_SEND));
    assert_non_null(lkc_lookup(&c, 1, 12 * 8, LKC_PATH_SEND));
    assert_true(fill(1, 16));
    assert_false(present(1, 4));
    assert_true(present(1, 0) && present(1, 8) && present(1, 12) && present(1, 16));
    assert_int_equal(c.st.evictions, 1);
    /* next victim is line 0 (touched before 8 and 12, and 16 is newest) */
    assert_true(fill(1, 20));
    assert_false(present(1, 0));
    assert_int_equal(c.st.evictions, 2);
    /* other sets untouched by the pressure on that set */
    assert_true(fill(1, 1));
    assert_int_equal(c.st.evictions, 2);
    /* a miss on an evicted line is non-cold */
    assert_null(lkc_lookup(&c, 1, 4 * 8, LKC_PATH_RECV));
    assert_int_equal(c.st.miss_recv, 1);
    assert_int_equal(c.st.miss_cold_recv, 0);
}

static void lkc_refill_of_a_present_line_does_not_duplicate_it(void **state)
{
    (void)state;
    assert_true(fill(1, 2));
    assert_true(fill(1, 2));
    assert_true(fill(1, 6));
    assert_true(fill(1, 10));
    assert_true(fill(1, 14)); /* that set has exactly 4 distinct lines: no eviction */
    assert_int_equal(c.st.evictions, 0);
    assert_int_equal(c.st.fills, 5);
}

static void lkc_fill_in_progress_is_invisible(void **state)
{
    unsigned way;
    (void)state;
    assert_true(fill(1, 9));
    uint32_t *d = lkc_fill_begin(&c, 1, 9, lkc_epoch(&c, 1), &way);
    assert_non_null(d);
    /* while the new image is being written the old line must not be used (no torn entries) */
    assert_null(lkc_peek(&c, 1, 9 * 8));
    d[0] = 0xABCD;
    lkc_fill_commit(&c, way, 1, 9);
    assert_int_equal(*lkc_peek(&c, 1, 9 * 8), 0xABCD);
}

static void lkc_invalidate_range_and_pid(void **state)
{
    (void)state;
    for (uint32_t l = 0; l < 8; l++) {
        assert_true(fill(1, l));
        assert_true(fill(2, l));
    }
    assert_int_equal(lkc_invalidate(&c, 1, 2, 3), 3); /* lines 2, 3, 4 of pid 1 */
    for (uint32_t l = 0; l < 8; l++) {
        assert_int_equal(present(1, l), l < 2 || l > 4);
        assert_true(present(2, l));
    }
    assert_int_equal(lkc_invalidate(&c, 2, 0, 0), 8); /* every line of pid 2 */
    for (uint32_t l = 0; l < 8; l++)
        assert_false(present(2, l));
    assert_int_equal(lkc_invalidate(&c, 1, 100, 1000), 0); /* long range with nothing in it */
    assert_int_equal(c.st.invalidations, 11);
}

static void lkc_fill_racing_an_invalidation_is_rejected(void **state)
{
    unsigned way;
    (void)state;
    uint16_t e = lkc_epoch(&c, 3); /* the epoch the miss event carried */
    assert_null(lkc_lookup(&c, 3, 80, LKC_PATH_RECV));
    /* the driver invalidates pid 3 while its miss thread resolves the line */
    lkc_invalidate(&c, 3, 10, 1);
    assert_null(lkc_fill_begin(&c, 3, 10, e, &way));
    assert_int_equal(c.st.fills_rejected, 1);
    assert_false(present(3, 10));
    /* a fresh miss sees the new epoch and its fill is accepted */
    assert_int_not_equal(lkc_epoch(&c, 3), e);
    assert_true(fill(3, 10));
    /* other pids' epochs did not move */
    assert_true(fill(4, 10));
    assert_int_equal(c.st.fills_rejected, 1);
}

/* Issue 18, 8b: line 0 of every process used to map to set 0, so 8 processes thrashed 4 ways
 * (PCH: the line of pids 0..7; CBH: every process's first buffers). The pid salts the set. */
static void lkc_pids_spread_over_the_sets(void **state)
{
    unsigned way, sets_used = 0;
    (void)state;
    /* 8 consecutive pids, line 0 each, 16 ways in all: no eviction, every line stays */
    for (uint16_t pid = 1; pid <= 8; pid++) {
        uint32_t *d = lkc_fill_begin(&c, pid, 0, lkc_epoch(&c, pid), &way);
        assert_non_null(d);
        sets_used |= 1u << (way >> 2);
        d[0] = pid;
        lkc_fill_commit(&c, way, pid, 0);
    }
    assert_int_equal(c.st.evictions, 0);
    assert_int_equal(sets_used, 0xF); /* all four sets used */
    for (uint16_t pid = 1; pid <= 8; pid++)
        assert_int_equal(*lkc_lookup(&c, pid, 0, LKC_PATH_SEND), pid);
    /* each set holds exactly two of them (Fibonacci hashing of consecutive pids) */
    for (uint32_t s = 0; s < 4; s++) {
        unsigned n = 0;
        for (uint32_t w = 0; w < 4; w++)
            n += (ways[s * 4 + w].key & LKC_KEY_VALID) != 0;
        assert_int_equal(n, 2);
    }
    /* a short-range invalidation finds the line in its salted set */
    for (uint16_t pid = 1; pid <= 8; pid++)
        assert_int_equal(lkc_invalidate(&c, pid, 0, 1), 1);
    for (uint16_t pid = 1; pid <= 8; pid++)
        assert_null(lkc_peek(&c, pid, 0));
}

/* Same with a PCH-like geometry (4 sets x 2 ways): the 2-way set 0 took all of them before. */
static void lkc_pids_spread_two_ways(void **state)
{
    static const struct lkc_cfg cfg2 = {"pch", 2, 1, 3, 0, 4, 10, 1};
    (void)state;
    lkc_init(&c, &cfg2, ways, data, epochs, seen, uses);
    for (uint16_t pid = 1; pid <= 8; pid++)
        assert_true(fill(pid, 0));
    for (uint16_t pid = 1; pid <= 8; pid++)
        assert_true(present(pid, 0));
    assert_int_equal(c.st.evictions, 0);
    /* pids that do not start at 1 spread too */
    lkc_init(&c, &cfg2, ways, data, epochs, seen, uses);
    for (uint16_t k = 0; k < 4; k++)
        assert_true(fill((uint16_t)(1000 + k), 0));
    assert_int_equal(c.st.evictions, 0);
}

/* Unsalted (a cache keyed by the pid itself, PCH with lines of one entry): set = line mod sets,
 * so 8 consecutive pids fill 8 sets of 1 line each, and 16 of them 8 sets x 2 ways exactly. */
static void lkc_unsalted_pid_lines_spread(void **state)
{
    static const struct lkc_cfg cfg1 = {"pch1", 3, 1, 0, 0, 4, 10, 0};
    (void)state;
    lkc_init(&c, &cfg1, ways, data, epochs, seen, uses);
    for (uint16_t pid = 1; pid <= 16; pid++)
        assert_true(fill(pid, pid));
    for (uint16_t pid = 1; pid <= 16; pid++)
        assert_non_null(lkc_peek(&c, pid, pid));
    assert_int_equal(c.st.evictions, 0);
    assert_true(fill(17, 17)); /* a third line in set 1: one eviction, the LRU of that set */
    assert_int_equal(c.st.evictions, 1);
    assert_null(lkc_peek(&c, 1, 1));
}

/* The use count of the way holding (pid, line): NIC_CMD_USAGE with NIC_USAGE_COUNTS exports it
 * for the driver's LFU victim (issue 15 item 4). -1 when the line is not present. */
static long uses_of(uint16_t pid, uint32_t line)
{
    for (unsigned i = 0; i < 16; i++)
        if (ways[i].key == (pid | LKC_KEY_VALID) && ways[i].line == line)
            return (long)uses[i];
    return -1;
}

/* Each hit counts (lkc_lookup here; the inlined hit paths and the VMH memo: fwhost.evq
 * usage_exports_access_counts, whose packets take them); a miss, a peek and another line's hit do
 * not; a fill (also a refill in place) starts at 0; invalidation and a new line start over. */
static void lkc_counts_hits_since_fill(void **state)
{
    (void)state;
    assert_true(fill(1, 5));
    assert_true(fill(1, 6));
    assert_int_equal(uses_of(1, 5), 0);
    for (int i = 0; i < 3; i++)
        assert_non_null(lkc_lookup(&c, 1, 5 * 8 + (uint32_t)i, LKC_PATH_SEND));
    assert_null(lkc_lookup(&c, 2, 5 * 8, LKC_PATH_SEND)); /* another pid: a miss, counts nothing */
    assert_non_null(lkc_peek(&c, 1, 5 * 8));
    assert_non_null(lkc_lookup(&c, 1, 6 * 8, LKC_PATH_RECV));
    assert_int_equal(uses_of(1, 5), 3);
    assert_int_equal(uses_of(1, 6), 1);
    assert_true(fill(1, 5)); /* a refill: the line starts over */
    assert_int_equal(uses_of(1, 5), 0);
    assert_int_equal(uses_of(1, 6), 1);
    assert_int_equal(lkc_invalidate(&c, 1, 6, 1), 1);
    assert_int_equal(uses_of(1, 6), -1);
    lkc_reset(&c);
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(uses[i], 0);
}

static void lkc_geometry_bytes(void **state)
{
    (void)state;
    /* 16 ways x (16 B + a 4-byte use count) + 128 one-word entries + 16 epochs + 1024-bit filter */
    assert_int_equal(lkc_bytes(&cfg4), 16 * 20 + 4 * 4 * 8 * 4 + 16 * 2 + 128);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(lkc_miss_then_hit_returns_the_filled_entry, setup),
        cmocka_unit_test_setup(lkc_pid_is_part_of_the_tag, setup),
        cmocka_unit_test_setup(lkc_lru_evicts_the_least_recently_used_way_of_the_set, setup),
        cmocka_unit_test_setup(lkc_refill_of_a_present_line_does_not_duplicate_it, setup),
        cmocka_unit_test_setup(lkc_fill_in_progress_is_invisible, setup),
        cmocka_unit_test_setup(lkc_invalidate_range_and_pid, setup),
        cmocka_unit_test_setup(lkc_fill_racing_an_invalidation_is_rejected, setup),
        cmocka_unit_test_setup(lkc_geometry_bytes, setup),
        cmocka_unit_test_setup(lkc_counts_hits_since_fill, setup),
        cmocka_unit_test_setup(lkc_pids_spread_over_the_sets, setup),
        cmocka_unit_test_setup(lkc_pids_spread_two_ways, setup),
        cmocka_unit_test_setup(lkc_unsalted_pid_lines_spread, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
