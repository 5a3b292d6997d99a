/* Unit tests of the coroutine scheduler: ordering by wake time and FIFO among equals, sleep and
 * yield timing, event waits with and without deadlines, deterministic interleaving, shutdown,
 * runaway bound, and stack overflow detection (guard page in a child process, canary). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "coro.h"

/* A log of (coroutine tag, cycle) pairs. */
static struct {
    int n;
    char tag[256];
    sim_cycle_t at[256];
} lg;

static void log_reset(void)
{
    memset(&lg, 0, sizeof lg);
}

static void log_it(char tag)
{
    if (lg.n < 255) {
        lg.tag[lg.n] = tag;
        lg.at[lg.n++] = coro_now();
    }
}

/* Advance the scheduler event by event (as the harness does) up to limit. */
static void run_until(coro_sched_t *s, sim_cycle_t limit)
{
    for (int guard = 0; guard < 100000; guard++) {
        sim_cycle_t t = coro_next_event(s);
        if (t > limit)
            return;
        assert_true(coro_run(s, t) >= 0);
    }
    fail_msg("scheduler did not settle");
}

static void sleeper(void *arg)
{
    const char *spec = arg; /* tag, then sleeps */

    log_it(spec[0]);
    assert_int_equal(coro_sleep(10), SIM_OK);
    log_it(spec[0]);
    assert_int_equal(coro_sleep_until(25), SIM_OK);
    log_it(spec[0]);
    assert_int_equal(coro_yield(), SIM_OK);
    log_it(spec[0]);
}

static void coro_equal_wake_times_run_in_fifo_order(void **state)
{
    coro_sched_t *s = coro_sched_create(NULL);
    struct coro_stats st;

    (void)state;
    log_reset();
    assert_int_equal(coro_spawn(s, "a", sleeper, "a", NULL), SIM_OK);
    assert_int_equal(coro_spawn(s, "b", sleeper, "b", NULL), SIM_OK);
    assert_int_equal(coro_spawn(s, "c", sleeper, "c", NULL), SIM_OK);
    assert_int_equal(coro_next_event(s), 0);
    run_until(s, 1000);
    assert_int_equal(lg.n, 12);
    assert_memory_equal(lg.tag, "abcabcabcabc", 12);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(lg.at[i], 0);
        assert_int_equal(lg.at[3 + i], 10);
        assert_int_equal(lg.at[6 + i], 25);
        assert_int_equal(lg.at[9 + i], 26); /* yield resumes one cycle later */
    }
    coro_stats(s, &st);
    assert_int_equal(st.finished, 3);
    assert_int_equal(st.live, 0);
    assert_int_equal(coro_next_event(s), SIM_CYCLE_NEVER);
    coro_sched_destroy(s);
}

static coro_event_t ev;

static void waiter(void *arg)
{
    char tag = *(const char *)arg;

    log_it(tag);
    assert_int_equal(coro_wait(&ev, SIM_CYCLE_NEVER), SIM_OK);
    log_it(tag);
    assert_int_equal(coro_wait(&ev, coro_now() + 50), SIM_ETIMEDOUT);
    log_it(tag);
}

static void coro_event_wakes_waiters_in_wait_order(void **state)
{
    coro_sched_t *s = coro_sched_create(NULL);

    (void)state;
    log_reset();
    coro_event_init(&ev);
    assert_int_equal(coro_spawn(s, "x", waiter, "x", NULL), SIM_OK);
    assert_int_equal(coro_spawn(s, "y", waiter, "y", NULL), SIM_OK);
    run_until(s, 1000);
    assert_int_equal(lg.n, 2);
    assert_int_equal(coro_next_event(s), SIM_CYCLE_NEVER); /* both wait without deadline */
    coro_event_signal(&ev, 300);                           /* from the harness */
    assert_int_equal(coro_next_event(s), 300);
    run_until(s, 1000);
    assert_int_equal(lg.n, 6);
    assert_memory_equal(lg.tag, "xyxyxy", 6);
    assert_int_equal(lg.at[2], 300);
    assert_int_equal(lg.at[3], 300);
    assert_int_equal(lg.at[4], 350);
    assert_int_equal(lg.at[5], 350);
    assert_int_equal(coro_event_count(&ev), 1);
    coro_sched_destroy(s);
}

/* Producer/consumer through an event with coro_wait_change: no lost wake-ups. */
static int produced, consumed;

static void producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++) {
        coro_sleep(7);
        produced++;
        coro_event_signal(&ev, coro_now());
        if (i == 2)
            coro_event_signal(&ev, coro_now()); /* two signals before the consumer runs */
    }
}

static void consumer(void *arg)
{
    (void)arg;
    for (;;) {
        uint64_t seen = coro_event_count(&ev);
        while (consumed < produced) {
            consumed++;
            log_it('c');
        }
        if (consumed == 5)
            return;
        if (coro_wait_change(&ev, seen, SIM_CYCLE_NEVER) != SIM_OK)
            return;
    }
}

static void coro_wait_change_loses_no_wakeups_and_interleaves_deterministically(void **state)
{
    char first[64];
    int firstn = 0;

    (void)state;
    for (int run = 0; run < 2; run++) {
        coro_sched_t *s = coro_sched_create(NULL);
        log_reset();
        coro_event_init(&ev);
        produced = consumed = 0;
        assert_int_equal(coro_spawn(s, "cons", consumer, NULL, NULL), SIM_OK);
        assert_int_equal(coro_spawn(s, "prod", producer, NULL, NULL), SIM_OK);
        run_until(s, 1000);
        assert_int_equal(consumed, 5);
        assert_int_equal(lg.at[0], 7);
        assert_int_equal(lg.at[4], 35);
        if (run == 0) {
            firstn = lg.n;
            for (int i = 0; i < lg.n; i++)
                first[i] = (char)lg.at[i];
        } else {
            assert_int_equal(lg.n, firstn);
            for (int i = 0; i < lg.n; i++)
                assert_int_equal((char)lg.at[i], first[i]);
        }
        coro_sched_destroy(s);
    }
}

static int canceled_seen;

static void stubborn(void *arg)
{
    (void)arg;
    if (coro_wait(&ev, SIM_CYCLE_NEVER) == SIM_ECANCELED)
        canceled_seen++;
}

static void coro_shutdown_cancels_blocked_coroutines(void **state)
{
    coro_sched_t *s = coro_sched_create(NULL);
    struct coro_stats st;
    uint64_t id;

    (void)state;
    coro_event_init(&ev);
    canceled_seen = 0;
    for (int i = 0; i < 5; i++)
        assert_int_equal(coro_spawn(s, "stubborn", stubborn, NULL, &id), SIM_OK);
    run_until(s, 10);
    assert_int_equal(coro_alive(s, id), 1);
    assert_int_equal(coro_sched_shutdown(s), SIM_OK);
    assert_int_equal(canceled_seen, 5);
    coro_stats(s, &st);
    assert_int_equal(st.canceled, 5);
    assert_int_equal(st.abandoned, 0);
    assert_int_equal(coro_alive(s, id), 0);
    coro_sched_destroy(s);
}

static void spinner(void *arg)
{
    (void)arg;
    for (;;)
        if (coro_sleep_until(0) == SIM_ECANCELED) /* never advances time */
            continue;                             /* and ignores cancellation */
}

static void coro_runaway_is_bounded_and_abandoned_at_shutdown(void **state)
{
    struct coro_config cfg;
    coro_sched_t *s;
    struct coro_stats st;

    (void)state;
    coro_config_default(&cfg);
    cfg.max_resumes = 1000;
    s = coro_sched_create(&cfg);
    assert_int_equal(coro_spawn(s, "spin", spinner, NULL, NULL), SIM_OK);
    assert_int_equal(coro_run(s, 0), SIM_EOVERFLOW);
    assert_int_equal(coro_sched_shutdown(s), SIM_EBUSY);
    coro_stats(s, &st);
    assert_int_equal(st.abandoned, 1);
    coro_sched_destroy(s);
}

static void coro_spawn_is_bounded(void **state)
{
    struct coro_config cfg;
    coro_sched_t *s;

    (void)state;
    coro_config_default(&cfg);
    cfg.max_coros = 2;
    s = coro_sched_create(&cfg);
    coro_event_init(&ev);
    assert_int_equal(coro_spawn(s, "1", stubborn, NULL, NULL), SIM_OK);
    assert_int_equal(coro_spawn(s, "2", stubborn, NULL, NULL), SIM_OK);
    assert_int_equal(coro_spawn(s, "3", stubborn, NULL, NULL), SIM_ENOMEM);
    assert_int_equal(coro_spawn(s, "4", NULL, NULL, NULL), SIM_EINVAL);
    coro_sched_destroy(s);
}

/* ---- stack guard ---- */

static volatile size_t depth_reached, depth_limit = SIZE_MAX;

static size_t recurse(size_t n)
{
    volatile char pad[512];

    pad[0] = (char)n;
    depth_reached = n;
    if (n >= depth_limit) /* never: the limit is volatile so the compiler cannot tell */
        return 0;
    return recurse(n + 1) + (size_t)pad[0];
}

static void overflow_body(void *arg)
{
    (void)arg;
    recurse(0);
}

static void clobber_canary(void *arg)
{
    void *lo;
    size_t size;

    (void)arg;
    coro_stack_bounds(&lo, &size);
    memset(lo, 0, 8); /* what an overflow that skipped the guard page would do */
    coro_yield();
}

/* Runs body in a child process on a coroutine; returns the child's stderr and signal. */
static int run_child(coro_fn body, char *err, size_t errn)
{
    int fds[2], status = 0;
    pid_t pid;
    ssize_t got;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct coro_config cfg;
        coro_sched_t *s;
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        coro_config_default(&cfg);
        cfg.stack_size = 64 * 1024;
        s = coro_sched_create(&cfg);
        coro_spawn(s, "victim", body, NULL, NULL);
        coro_run(s, 0);
        coro_run(s, 1);
        _exit(0);
    }
    close(fds[1]);
    /* Read to EOF: closing the pipe early would kill a child still writing with SIGPIPE. */
    size_t have = 0;
    while ((got = read(fds[0], err + have, errn - 1 - have)) > 0 && have + (size_t)got < errn - 1)
        have += (size_t)got;
    if (got > 0)
        have += (size_t)got;
    err[have] = '\0';
    while (read(fds[0], &status, sizeof status) > 0) /* drain anything beyond errn */
        ;
    status = 0;
    close(fds[0]);
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void coro_stack_overflow_hits_the_guard_and_names_the_coroutine(void **state)
{
    char err[512];

    (void)state;
    assert_int_equal(run_child(overflow_body, err, sizeof err), SIGABRT);
    assert_non_null(strstr(err, "stack overflow in coroutine 'victim' (hit its guard page)"));
}

static void coro_canary_catches_a_clobbered_stack_bottom(void **state)
{
    char err[512];

    (void)state;
    assert_int_equal(run_child(clobber_canary, err, sizeof err), SIGABRT);
    assert_non_null(strstr(err, "stack overflow in coroutine 'victim' (canary overwritten)"));
}

static size_t peak;

static void measure(void *arg)
{
    volatile char big[20000];

    (void)arg;
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = 1;
    peak = coro_stack_peak();
}

static void coro_stack_peak_reports_use(void **state)
{
    coro_sched_t *s = coro_sched_create(NULL);

    (void)state;
    assert_int_equal(coro_spawn(s, "m", measure, NULL, NULL), SIM_OK);
    assert_true(coro_run(s, 0) == 1);
    assert_true(peak >= 20000 && peak < 64 * 1024);
    coro_sched_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coro_equal_wake_times_run_in_fifo_order),
        cmocka_unit_test(coro_event_wakes_waiters_in_wait_order),
        cmocka_unit_test(coro_wait_change_loses_no_wakeups_and_interleaves_deterministically),
        cmocka_unit_test(coro_shutdown_cancels_blocked_coroutines),
        cmocka_unit_test(coro_runaway_is_bounded_and_abandoned_at_shutdown),
        cmocka_unit_test(coro_spawn_is_bounded),
        cmocka_unit_test(coro_stack_overflow_hits_the_guard_and_names_the_coroutine),
        cmocka_unit_test(coro_canary_catches_a_clobbered_stack_bottom),
        cmocka_unit_test(coro_stack_peak_reports_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
