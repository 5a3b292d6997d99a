/* Unit tests of the OS model: demand allocation, pin reference counts, migration, reclaim, the
 * oracle's reverse map, memory pressure and leak checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "costs.h"
#include "hostmem.h"
#include "os.h"

struct world {
    hostmem_t *mem;
    costs_t *costs;
    os_t *os;
    uint32_t pid;
};

static int setup(void **state)
{
    static struct world w;
    struct hostmem_config hc;

    hostmem_config_default(&hc);
    hc.max_frames = 1024;
    hc.fail_loudly = false;
    w.mem = hostmem_create(&hc);
    w.costs = costs_create(0, 1);
    w.os = os_create(NULL, w.mem, w.costs);
    if (!w.mem || !w.costs || !w.os || os_proc_create(w.os, 48, &w.pid) != SIM_OK)
        return -1;
    *state = &w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;

    os_destroy(w->os);
    costs_destroy(w->costs);
    hostmem_destroy(w->mem);
    return 0;
}

#define VA 0x7f0000001000ull

static void os_first_touch_allocates_zeroed_pages(void **state)
{
    struct world *w = *state;
    uint8_t buf[100];
    uint64_t pa;

    assert_int_equal(os_translate(w->os, w->pid, VA, &pa), SIM_EFAULT);
    assert_int_equal(os_read(w->os, w->pid, VA + 10, buf, sizeof buf), SIM_OK);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0);
    assert_int_equal(os_translate(w->os, w->pid, VA + 10, &pa), SIM_OK);
    assert_int_equal(pa & 0xFFF, 10);
    assert_int_equal(os_write(w->os, w->pid, VA + 4090, "hello world", 12), SIM_OK); /* spans pages */
    assert_int_equal(os_read(w->os, w->pid, VA + 4090, buf, 12), SIM_OK);
    assert_string_equal((char *)buf, "hello world");
    assert_int_equal(os_resident_pages(w->os, w->pid), 2);
    assert_int_equal(os_counters(w->os)->demand_allocs, 2);
    assert_int_equal(os_read(w->os, 99, VA, buf, 1), SIM_ENOENT);
}

static void os_va_space_is_bounded_by_va_bits(void **state)
{
    struct world *w = *state;
    uint32_t p32;
    uint8_t b = 1;

    assert_int_equal(os_proc_create(w->os, 31, &p32), SIM_EINVAL);
    assert_int_equal(os_proc_create(w->os, 32, &p32), SIM_OK);
    assert_int_equal(os_write(w->os, p32, 0xFFFFFFFFull, &b, 1), SIM_OK);
    assert_int_equal(os_write(w->os, p32, 0x100000000ull, &b, 1), SIM_EINVAL);
    assert_int_equal(os_write(w->os, p32, 0xFFFFFFFFull, "ab", 2), SIM_EINVAL);
    assert_int_equal(os_proc_destroy(w->os, p32), SIM_OK);
    assert_false(os_proc_exists(w->os, p32));
}

static void os_pin_twice_unpin_once_still_pinned(void **state)
{
    struct world *w = *state;
    sim_cycle_t cost;
    uint64_t pa;

    assert_int_equal(os_pin(w->os, w->pid, 0, VA, 3 * 4096, &cost), SIM_OK);
    /* seed 004 default: 1300 ns + 3 * 150 ns = 1750 ns = 350 cycles at 200 MHz */
    assert_int_equal(cost, 350);
    assert_int_equal(os_pin(w->os, w->pid, 0, VA, 4096, NULL), SIM_OK);
    assert_int_equal(os_pinned_pages(w->os, w->pid), 3);
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 4096, NULL), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa), SIM_OK);
    assert_int_equal(hostmem_pin_count(w->mem, 0, pa >> 12), 1);
    assert_int_equal(os_pinned_pages(w->os, w->pid), 3);
    assert_int_equal(os_migrate(w->os, w->pid, VA), SIM_EPINNED);
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 3 * 4096, NULL), SIM_OK);
    assert_int_equal(os_pinned_pages(w->os, w->pid), 0);
    assert_int_equal(os_counters(w->os)->pins, 4);
    assert_int_equal(os_counters(w->os)->unpins, 4);
}

static void os_unpin_of_unpinned_page_is_an_error_and_changes_nothing(void **state)
{
    struct world *w = *state;
    uint64_t pa;

    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 4096, NULL), SIM_ENOTPINNED); /* never touched */
    assert_int_equal(os_pin(w->os, w->pid, 0, VA, 4096, NULL), SIM_OK);
    /* Range of two pages, the second unpinned: all or nothing. */
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 8192, NULL), SIM_ENOTPINNED);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa), SIM_OK);
    assert_int_equal(hostmem_pin_count(w->mem, 0, pa >> 12), 1);
    /* Wrong device. */
    assert_int_equal(os_unpin(w->os, w->pid, 1, VA, 4096, NULL), SIM_ENOTPINNED);
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 4096, NULL), SIM_OK);
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 4096, NULL), SIM_ENOTPINNED);
}

static void os_migration_keeps_contents_and_moves_the_frame(void **state)
{
    struct world *w = *state;
    uint64_t pa0, pa1;
    char buf[32];

    assert_int_equal(os_write(w->os, w->pid, VA + 100, "migrate me", 11), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa0), SIM_OK);
    assert_int_equal(os_migrate(w->os, w->pid, VA + 5), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa1), SIM_OK);
    assert_true(pa0 != pa1);
    assert_false(hostmem_frame_exists(w->mem, pa0 >> 12)); /* old frame freed */
    assert_int_equal(os_read(w->os, w->pid, VA + 100, buf, 11), SIM_OK);
    assert_string_equal(buf, "migrate me");
    assert_int_equal(os_counters(w->os)->migrations, 1);
    assert_int_equal(os_migrate(w->os, w->pid, VA + 0x100000), SIM_EFAULT); /* not resident */
}

static void os_pinned_page_refuses_migration_reclaim_unmap_and_exit(void **state)
{
    struct world *w = *state;
    uint64_t pa0, pa1;

    assert_int_equal(os_pin(w->os, w->pid, 2, VA, 1, NULL), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa0), SIM_OK);
    assert_int_equal(os_migrate(w->os, w->pid, VA), SIM_EPINNED);
    assert_int_equal(os_reclaim(w->os, w->pid, VA), SIM_EPINNED);
    assert_int_equal(os_unmap(w->os, w->pid, VA, 4096), SIM_EPINNED);
    assert_int_equal(os_proc_destroy(w->os, w->pid), SIM_EPINNED);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa1), SIM_OK);
    assert_int_equal(pa0, pa1);
    assert_int_equal(os_counters(w->os)->refused_pinned, 3);
    assert_int_equal(os_pinned_pages_total(w->os), 1);
    assert_int_equal(os_unpin(w->os, w->pid, 2, VA, 1, NULL), SIM_OK);
    assert_int_equal(os_pinned_pages_total(w->os), 0);
}

static void os_reclaim_swaps_out_and_the_next_touch_restores(void **state)
{
    struct world *w = *state;
    uint64_t pa0, pa1;
    char buf[16];

    assert_int_equal(os_write(w->os, w->pid, VA, "swapped", 8), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa0), SIM_OK);
    assert_int_equal(os_reclaim(w->os, w->pid, VA), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA, &pa1), SIM_EFAULT);
    assert_int_equal(os_resident_pages(w->os, w->pid), 0);
    assert_false(hostmem_frame_exists(w->mem, pa0 >> 12));
    /* Pinning a reclaimed page swaps it back in. */
    assert_int_equal(os_pin(w->os, w->pid, 0, VA, 8, NULL), SIM_OK);
    assert_int_equal(os_read(w->os, w->pid, VA, buf, 8), SIM_OK);
    assert_string_equal(buf, "swapped");
    assert_int_equal(os_counters(w->os)->swap_ins, 1);
    assert_int_equal(os_counters(w->os)->reclaims, 1);
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA, 8, NULL), SIM_OK);
    /* Unmap: the next touch sees zeros. */
    assert_int_equal(os_unmap(w->os, w->pid, VA, 4096), SIM_OK);
    assert_int_equal(os_read(w->os, w->pid, VA, buf, 8), SIM_OK);
    assert_int_equal(buf[0], 0);
}

static void os_oracle_names_pid_va_pa_of_an_unpinned_dma(void **state)
{
    struct world *w = *state;
    uint64_t pa, stale;
    uint8_t data[8] = { 9 };
    struct hostmem_violation v;

    assert_int_equal(os_write(w->os, w->pid, VA + 0x2000 + 40, "x", 1), SIM_OK);
    assert_int_equal(os_translate(w->os, w->pid, VA + 0x2000 + 40, &pa), SIM_OK);
    assert_int_equal(hostmem_dma_write(w->mem, 0, pa, data, sizeof data), SIM_EUNPINNED);
    assert_int_equal(hostmem_violation_get(w->mem, 0, &v), SIM_OK);
    assert_int_equal(v.pid, w->pid);
    assert_int_equal(v.va, VA + 0x2000 + 40);
    assert_int_equal(v.bad_pa, pa);
    /* Pinned: the same DMA is fine. */
    assert_int_equal(os_pin(w->os, w->pid, 0, VA + 0x2000, 4096, NULL), SIM_OK);
    assert_int_equal(hostmem_dma_write(w->mem, 0, pa, data, sizeof data), SIM_OK);
    assert_int_equal(os_unpin(w->os, w->pid, 0, VA + 0x2000, 4096, NULL), SIM_OK);
    /* Migrated away: a NIC with the stale translation hits a freed frame (bus error). */
    stale = pa;
    assert_int_equal(os_migrate(w->os, w->pid, VA + 0x2000), SIM_OK);
    assert_int_equal(hostmem_dma_write(w->mem, 0, stale, data, sizeof data), SIM_EBUS);
}

struct notes {
    int n;
    enum os_mm_event ev[8];
    uint64_t va[8];
};

static void note(void *ctx, enum os_mm_event ev, uint32_t pid, uint64_t va, uint64_t old_pa, uint64_t new_pa)
{
    struct notes *ns = ctx;

    (void)pid;
    (void)old_pa;
    (void)new_pa;
    if (ns->n < 8) {
        ns->ev[ns->n] = ev;
        ns->va[ns->n++] = va;
    }
}

static void os_memory_pressure_moves_only_unpinned_pages(void **state)
{
    struct world *w = *state;
    struct hostmem_config hc;
    struct os_config oc;
    hostmem_t *mem;
    os_t *os;
    uint32_t pid;
    uint64_t pinned_pa[4], pa;
    struct notes ns = { 0 };
    int moved = 0;
    char buf[8];

    (void)w;
    hostmem_config_default(&hc);
    hc.max_frames = 256;
    hc.fail_loudly = false;
    mem = hostmem_create(&hc);
    os_config_default(&oc);
    oc.pressure_period = 1000;
    oc.pressure_pages = 2;
    oc.pressure_migrate = 0.8;
    oc.seed = 5;
    os = os_create(&oc, mem, NULL);
    assert_non_null(os);
    os_set_notifier(os, note, &ns);
    assert_int_equal(os_proc_create(os, 32, &pid), SIM_OK);
    for (uint64_t i = 0; i < 16; i++)
        assert_int_equal(os_write(os, pid, 0x10000 + i * 4096, &i, sizeof i), SIM_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(os_pin(os, pid, 0, 0x10000 + (uint64_t)i * 4096, 4096, NULL), SIM_OK);
        os_translate(os, pid, 0x10000 + (uint64_t)i * 4096, &pinned_pa[i]);
    }
    assert_int_equal(os_pressure_next_event(os), 1000);
    assert_int_equal(os_pressure_step(os, 999), 0);
    for (sim_cycle_t t = 1000; t <= 10000; t += 1000)
        moved += os_pressure_step(os, t);
    /* 2 victims per event; 12 unpinned pages, so a victim exists unless all were reclaimed. */
    assert_true(moved >= 12 && moved <= 20);
    assert_int_equal(os_pressure_next_event(os), 11000);
    assert_int_equal(os_counters(os)->pressure_events, 10);
    assert_int_equal(os_counters(os)->migrations + os_counters(os)->reclaims, (uint64_t)moved);
    assert_true(os_counters(os)->migrations > 0 && os_counters(os)->reclaims > 0);
    assert_true(ns.n == 8);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(os_translate(os, pid, 0x10000 + (uint64_t)i * 4096, &pa), SIM_OK);
        assert_int_equal(pa, pinned_pa[i]);
    }
    for (uint64_t i = 0; i < 16; i++) {
        uint64_t v;
        assert_int_equal(os_read(os, pid, 0x10000 + i * 4096, buf, 8), SIM_OK);
        memcpy(&v, buf, 8);
        assert_int_equal(v, i);
    }
    assert_int_equal(os_unpin(os, pid, 0, 0x10000, 4 * 4096, NULL), SIM_OK);
    assert_int_equal(os_proc_destroy(os, pid), SIM_OK);
    assert_int_equal(hostmem_counters(mem)->frames_in_use, 0);
    os_destroy(os);
    hostmem_destroy(mem);
}

static void os_pin_is_all_or_nothing_when_frames_run_out(void **state)
{
    struct hostmem_config hc;
    hostmem_t *mem;
    os_t *os;
    uint32_t pid;

    (void)state;
    hostmem_config_default(&hc);
    hc.max_frames = 4;
    hc.fail_loudly = false;
    mem = hostmem_create(&hc);
    os = os_create(NULL, mem, NULL);
    assert_int_equal(os_proc_create(os, 32, &pid), SIM_OK);
    assert_int_equal(os_pin(os, pid, 0, 0, 5 * 4096, NULL), SIM_ENOMEM);
    assert_int_equal(os_pinned_pages(os, pid), 0);
    assert_int_equal(os_pin(os, pid, 0, 0, 4 * 4096, NULL), SIM_OK);
    assert_int_equal(os_pinned_pages(os, pid), 4);
    os_destroy(os); /* frees pinned frames too (end of run) */
    assert_int_equal(hostmem_counters(mem)->frames_in_use, 0);
    hostmem_destroy(mem);
}


/* MMU release hook (seed 004): asked before a pinned page moves; the page moves only if the hook
 * dropped every pin; pressure_pinned lets the pressure pick pinned pages, only with a hook. */
struct rel {
    os_t *os;
    int asks, drop;
    uint32_t pid;
    uint64_t va;
};
static void rel_hook(void *ctx, enum os_mm_event ev, uint32_t pid, uint64_t va)
{
    struct rel *r = ctx;
    assert_true(ev == OS_MM_MIGRATE || ev == OS_MM_RECLAIM);
    r->asks++;
    r->pid = pid;
    r->va = va;
    if (r->drop) /* the driver: invalidate, then unpin */
        assert_int_equal(os_unpin(r->os, pid, 0, va, 4096, NULL), SIM_OK);
}

static void os_mmu_release_before_moving_a_pinned_page(void **w)
{
    struct hostmem_config hc;
    struct os_config oc;
    hostmem_t *mem;
    os_t *os;
    uint32_t pid;
    uint64_t pa0, pa1, v = 42, r8 = 0;
    struct rel r = { 0 };

    (void)w;
    hostmem_config_default(&hc);
    hc.max_frames = 64;
    hc.fail_loudly = false;
    mem = hostmem_create(&hc);
    os_config_default(&oc);
    os = os_create(&oc, mem, NULL);
    assert_non_null(os);
    r.os = os;
    assert_int_equal(os_proc_create(os, 32, &pid), SIM_OK);
    assert_int_equal(os_write(os, pid, 0x5123, &v, sizeof v), SIM_OK);
    assert_int_equal(os_pin(os, pid, 0, 0x5000, 4096, NULL), SIM_OK);
    os_translate(os, pid, 0x5000, &pa0);
    /* no hook: pinned pages never move */
    assert_int_equal(os_migrate(os, pid, 0x5000), SIM_EPINNED);
    /* a hook that keeps its pin: asked, still refused */
    os_set_mmu_release(os, rel_hook, &r);
    assert_int_equal(os_migrate(os, pid, 0x5123), SIM_EPINNED);
    assert_int_equal(r.asks, 1);
    assert_int_equal(r.pid, pid);
    assert_int_equal(r.va, 0x5000);
    assert_int_equal(os_counters(os)->mmu_asks, 1);
    assert_int_equal(os_counters(os)->mmu_released, 0);
    /* a hook that drops it: the page moves, its contents with it */
    r.drop = 1;
    assert_int_equal(os_migrate(os, pid, 0x5000), SIM_OK);
    assert_int_equal(os_counters(os)->mmu_released, 1);
    os_translate(os, pid, 0x5000, &pa1);
    assert_true(pa1 != pa0);
    assert_int_equal(os_read(os, pid, 0x5123, &r8, sizeof r8), SIM_OK);
    assert_int_equal(r8, 42);
    /* reclaim too; unpinned pages do not ask */
    assert_int_equal(os_pin(os, pid, 0, 0x5000, 4096, NULL), SIM_OK);
    assert_int_equal(os_reclaim(os, pid, 0x5000), SIM_OK);
    assert_int_equal(r.asks, 3);
    assert_int_equal(os_write(os, pid, 0x9000, &v, sizeof v), SIM_OK);
    assert_int_equal(os_migrate(os, pid, 0x9000), SIM_OK);
    assert_int_equal(r.asks, 3);
    assert_int_equal(os_pinned_pages_total(os), 0);
    assert_int_equal(os_proc_destroy(os, pid), SIM_OK);
    os_destroy(os);
    hostmem_destroy(mem);
}

static void os_pressure_pinned_asks_the_hook(void **w)
{
    struct hostmem_config hc;
    struct os_config oc;
    hostmem_t *mem;
    os_t *os;
    uint32_t pid;
    struct rel r = { 0 };

    (void)w;
    hostmem_config_default(&hc);
    hc.max_frames = 64;
    hc.fail_loudly = false;
    mem = hostmem_create(&hc);
    os_config_default(&oc);
    oc.pressure_period = 100;
    oc.pressure_pages = 1;
    oc.pressure_pinned = true;
    os = os_create(&oc, mem, NULL);
    r.os = os;
    r.drop = 1;
    assert_int_equal(os_proc_create(os, 32, &pid), SIM_OK);
    assert_int_equal(os_pin(os, pid, 0, 0x10000, 8 * 4096, NULL), SIM_OK); /* every page pinned */
    for (sim_cycle_t t = 100; t <= 1000; t += 100)
        assert_int_equal(os_pressure_step(os, t), 0); /* no hook: nothing movable */
    os_set_mmu_release(os, rel_hook, &r);
    int moved = 0;
    for (sim_cycle_t t = 1100; t <= 2000; t += 100)
        moved += os_pressure_step(os, t);
    assert_true(moved > 0);
    assert_int_equal(r.asks, (int)os_counters(os)->mmu_asks);
    assert_true(os_counters(os)->mmu_released > 0);
    for (uint64_t i = 0; i < 8; i++) /* unpin what is still pinned (the hook dropped the others) */
        (void)os_unpin(os, pid, 0, 0x10000 + i * 4096, 4096, NULL);
    assert_int_equal(os_proc_destroy(os, pid), SIM_OK);
    os_destroy(os);
    hostmem_destroy(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(os_first_touch_allocates_zeroed_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(os_va_space_is_bounded_by_va_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(os_pin_twice_unpin_once_still_pinned, setup, teardown),
        cmocka_unit_test_setup_teardown(os_unpin_of_unpinned_page_is_an_error_and_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(os_migration_keeps_contents_and_moves_the_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(os_pinned_page_refuses_migration_reclaim_unmap_and_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(os_reclaim_swaps_out_and_the_next_touch_restores, setup, teardown),
        cmocka_unit_test_setup_teardown(os_oracle_names_pid_va_pa_of_an_unpinned_dma, setup, teardown),
        cmocka_unit_test_setup_teardown(os_memory_pressure_moves_only_unpinned_pages, setup, teardown),
        cmocka_unit_test(os_pin_is_all_or_nothing_when_frames_run_out),
        cmocka_unit_test(os_mmu_release_before_moving_a_pinned_page),
        cmocka_unit_test(os_pressure_pinned_asks_the_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
