/*
 * Unit tests of the NCP miss table (firmware/lib/misstab.c): one request per missing line
 * (merging), the bound (full: refused and counted, nothing overwritten), held events,
 * resolution by fill, expiry of unanswered requests, and forgetting a process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "misstab.h"
#include "ncp_util.h"

void ncp_on_assert(unsigned module, unsigned id)
{
    fail_msg("NCP_ASSERT module %u id %u", module, id);
}

static struct miss_ent ents[4];
static struct misstab t;

static int setup(void **state)
{
    (void)state;
    miss_init(&t, ents, 4, 1000);
    return 0;
}

static void miss_same_line_merges(void **state)
{
    struct miss_ent *e1, *e2;
    (void)state;
    assert_int_equal(miss_add(&t, 0, 1, 10, 5, 1, 0, &e1), MISS_ADD_NEW);
    assert_int_equal(e1->state, MISS_HELD);
    assert_ptr_equal(miss_next_held(&t), e1);
    miss_posted(&t, e1, 0);
    assert_null(miss_next_held(&t));
    assert_int_equal(miss_add(&t, 0, 1, 10, 5, 0, 5, &e2), MISS_ADD_MERGED);
    assert_ptr_equal(e1, e2);
    /* other cache, other pid, other line: separate requests */
    assert_int_equal(miss_add(&t, 1, 1, 10, 0, 1, 0, &e2), MISS_ADD_NEW);
    assert_int_equal(miss_add(&t, 0, 2, 10, 0, 1, 0, &e2), MISS_ADD_NEW);
    assert_int_equal(miss_add(&t, 0, 1, 11, 0, 1, 0, &e2), MISS_ADD_NEW);
    assert_int_equal(miss_outstanding(&t), 4);
    assert_int_equal(t.st.merged, 1);
}

static void miss_full_table_refuses_without_overwriting(void **state)
{
    struct miss_ent *e;
    (void)state;
    for (uint32_t l = 0; l < 4; l++)
        assert_int_equal(miss_add(&t, 0, 1, l, 0, 1, 0, &e), MISS_ADD_NEW);
    assert_int_equal(miss_add(&t, 0, 1, 99, 0, 1, 0, &e), MISS_ADD_FULL);
    assert_null(e);
    assert_int_equal(t.st.full, 1);
    for (uint32_t l = 0; l < 4; l++)
        assert_int_equal(ents[l].line, l);
    assert_true(miss_resolve(&t, 0, 1, 2));
    assert_false(miss_resolve(&t, 0, 1, 2));
    assert_int_equal(miss_add(&t, 0, 1, 99, 0, 1, 0, &e), MISS_ADD_NEW);
    assert_int_equal(t.st.resolved, 1);
}

static void miss_unanswered_request_expires_and_reposts(void **state)
{
    struct miss_ent *e;
    (void)state;
    assert_int_equal(miss_add(&t, 2, 3, 4, 7, 1, 100, &e), MISS_ADD_NEW);
    miss_posted(&t, e, 100);
    assert_int_equal(miss_add(&t, 2, 3, 4, 7, 1, 1099, &e), MISS_ADD_MERGED);
    assert_int_equal(miss_add(&t, 2, 3, 4, 8, 1, 1100, &e), MISS_ADD_NEW);
    assert_int_equal(e->epoch, 8);
    assert_int_equal(t.st.expired, 1);
}

static void miss_forget_drops_a_process(void **state)
{
    struct miss_ent *e;
    (void)state;
    miss_add(&t, 0, 1, 1, 0, 1, 0, &e);
    miss_add(&t, 0, 1, 2, 0, 1, 0, &e);
    miss_add(&t, 0, 2, 1, 0, 1, 0, &e);
    assert_int_equal(miss_forget(&t, 0, 1), 2);
    assert_int_equal(miss_outstanding(&t), 1);
}

/* Prefetch on a miss (issue 14): a request covering lines [10, 14) of (VMH, pid 1). */
static void miss_range_merges_and_shrinks_in_order(void **state)
{
    struct miss_ent *e, *e2;
    (void)state;
    assert_int_equal(miss_add(&t, 0, 1, 10, 0, 1, 0, &e), MISS_ADD_NEW);
    assert_int_equal(e->n, 1);
    miss_set_span(e, 4);
    miss_posted(&t, e, 0);
    /* a miss on a prefetched line merges (no second request), counted; one past the range does not */
    assert_int_equal(miss_add(&t, 0, 1, 13, 0, 1, 0, &e2), MISS_ADD_MERGED);
    assert_ptr_equal(e2, e);
    assert_int_equal(t.st.range_merged, 1);
    assert_int_equal(miss_add(&t, 0, 1, 9, 0, 1, 0, &e2), MISS_ADD_NEW);
    assert_int_equal(miss_add(&t, 0, 1, 14, 0, 1, 0, &e2), MISS_ADD_NEW);
    assert_int_equal(miss_add(&t, 0, 2, 11, 0, 1, 0, &e2), MISS_ADD_NEW); /* another pid */
    assert_int_equal(t.st.range_merged, 1);
    /* fills in order: the range shrinks from the front, the entry leaves with its last line */
    assert_false(miss_resolve(&t, 0, 1, 10));
    assert_int_equal(e->line, 11);
    assert_int_equal(e->n, 3);
    assert_int_equal(miss_add(&t, 0, 1, 10, 0, 1, 0, &e2), MISS_ADD_FULL); /* 10 is no longer covered */
    assert_int_equal(miss_add(&t, 0, 1, 11, 0, 1, 0, &e2), MISS_ADD_MERGED); /* a prefetched line, now first */
    assert_int_equal(t.st.range_merged, 2);
    assert_false(miss_resolve(&t, 0, 1, 12)); /* a skipped line (11) resolves with the later one */
    assert_int_equal(e->line, 13);
    assert_int_equal(e->n, 1);
    assert_true(miss_resolve(&t, 0, 1, 13));
    assert_int_equal(e->state, MISS_FREE);
    assert_false(miss_resolve(&t, 0, 1, 13));
    assert_int_equal(t.st.resolved, 1);
}

static void miss_span_is_bounded(void **state)
{
    struct miss_ent *e;
    (void)state;
    miss_add(&t, 0, 1, 0xFFFFFFF0u, 0, 1, 0, &e);
    miss_set_span(e, 0);
    assert_int_equal(e->n, 1);
    miss_set_span(e, 1000);
    assert_int_equal(e->n, 255);
    miss_set_span(e, 16);
    assert_true(miss_resolve(&t, 0, 1, 0xFFFFFFFFu));
    assert_int_equal(miss_outstanding(&t), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(miss_same_line_merges, setup),
        cmocka_unit_test_setup(miss_full_table_refuses_without_overwriting, setup),
        cmocka_unit_test_setup(miss_unanswered_request_expires_and_reposts, setup),
        cmocka_unit_test_setup(miss_forget_drops_a_process, setup),
        cmocka_unit_test_setup(miss_range_merges_and_shrinks_in_order, setup),
        cmocka_unit_test_setup(miss_span_is_bounded, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
