/*
 * drv_test.c - unit tests of the driver stub against the fake NIC (drv_fake.h): probe and its
 * failures, symmetric remove, miss -> table lookup -> pin -> fill, the high-water mark with
 * invalidate-before-unpin order, deregistration, a fill racing an invalidation, the static build.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drv_fake.h"

#define VA 0x10000000ull /* line-aligned for L = 16 pages */

static struct fake *up(bool dynamic, const struct nicdrv_config *cfg)
{
    struct fake *f = fake_create(dynamic);
    size_t len;
    const uint8_t *img = fake_image(&len);
    char err[200] = "";

    assert_non_null(fake_driver(f, cfg));
    assert_int_equal(nicdrv_probe(f->drv, img, len, err, sizeof err), NICDRV_OK);
    return f;
}

static void probe_ok_remove_twice(void **state)
{
    struct fake *f = up(true, NULL);
    struct nicdrv_stats st;
    (void)state;

    assert_true(nicdrv_probed(f->drv));
    assert_int_equal(nicdrv_fw_info(f->drv)->sq_entries, 32);
    assert_int_equal(f->cmds[NIC_CMD_INIT], 1);
    assert_int_equal(f->node_id, 0);
    assert_true(hostmem_counters(f->mem)->frames_in_use > 0); /* event ring + line images */
    assert_int_equal(nicdrv_remove(f->drv), NICDRV_OK);
    assert_int_equal(f->cmds[NIC_CMD_SHUTDOWN], 1);
    assert_true(f->ctrl & 1u); /* core held */
    assert_int_equal(hostmem_counters(f->mem)->frames_in_use, 0);
    assert_int_equal(nicdrv_remove(f->drv), NICDRV_OK);
    assert_int_equal(f->cmds[NIC_CMD_SHUTDOWN], 1);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.pinned_pages, 0);
    fake_destroy(f);
}

static void probe_fails(enum fake_boot boot, int bad_block, bool corrupt, int want)
{
    struct fake *f = fake_create(true);
    size_t len;
    const uint8_t *img = fake_image(&len);
    uint8_t bad[512];
    char err[200] = "";

    f->boot = boot;
    f->bad_block = bad_block;
    memcpy(bad, img, len);
    if (corrupt)
        bad[len - 1] ^= 0x40;
    assert_non_null(fake_driver(f, NULL));
    assert_int_equal(nicdrv_probe(f->drv, bad, len, err, sizeof err), want);
    assert_true(err[0] != 0); /* says why */
    assert_false(nicdrv_probed(f->drv));
    assert_true(f->ctrl & 1u);                                    /* core back in reset */
    assert_int_equal(hostmem_counters(f->mem)->frames_in_use, 0); /* nothing left allocated */
    assert_int_equal(nicdrv_remove(f->drv), NICDRV_OK);
    fake_destroy(f);
}

static void probe_errors(void **state)
{
    (void)state;
    probe_fails(FAKE_BOOT_OK, 3, false, NICDRV_ENODEV);          /* dma block ID wrong */
    probe_fails(FAKE_BOOT_OK, -1, true, NICDRV_EIMAGE);          /* payload CRC */
    probe_fails(FAKE_BOOT_NEVER, -1, false, NICDRV_ETIMEDOUT);   /* never ready */
    probe_fails(FAKE_BOOT_TRAP, -1, false, NICDRV_EFW);          /* fatal trap */
    probe_fails(FAKE_BOOT_NO_INFO, -1, false, NICDRV_EPROTO);    /* no info block */
    probe_fails(FAKE_BOOT_ABI_MAJOR, -1, false, NICDRV_EPROTO);  /* other ABI major */
    probe_fails(FAKE_BOOT_NO_INIT, -1, false, NICDRV_ETIMEDOUT); /* INIT never answered */
}

/* A cluster larger than the firmware's connection table (nic_info.max_peers: 2 in the fake) is
 * refused before INIT, with the reason: INIT itself would be refused unanswered. The largest
 * cluster the firmware takes still probes. */
static void probe_refuses_more_nodes_than_peers(void **state)
{
    static const struct {
        uint16_t nodes, me;
        int want;
    } cases[] = {{3, 0, NICDRV_ENORES}, {200, 1, NICDRV_ENORES}, {2, 1, NICDRV_OK}};
    (void)state;

    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fake *f = fake_create(true);
        struct nicdrv_config c;
        size_t len;
        const uint8_t *img = fake_image(&len);
        char err[300] = "";

        nicdrv_config_default(&c);
        c.nodes = cases[i].nodes;
        c.node_id = cases[i].me;
        c.boot_timeout = 100000;
        c.cmd_timeout = 1000000;
        assert_non_null(fake_driver(f, &c));
        assert_int_equal(nicdrv_probe(f->drv, img, len, err, sizeof err), cases[i].want);
        if (cases[i].want != NICDRV_OK) {
            assert_non_null(strstr(err, "at most 2 nodes"));
            assert_int_equal(f->cmds[NIC_CMD_INIT], 0); /* never sent */
            assert_false(nicdrv_probed(f->drv));
        } else {
            assert_int_equal(f->cmds[NIC_CMD_INIT], 1);
        }
        assert_int_equal(nicdrv_remove(f->drv), NICDRV_OK);
        fake_destroy(f);
    }
}

/* The fake's default driver configuration with the PCH/CBH prefill on or off. */
static const struct nicdrv_config *cfg_prefill(bool on)
{
    static struct nicdrv_config c;
    nicdrv_config_default(&c);
    c.nodes = 2;
    c.boot_timeout = 100000;
    c.cmd_timeout = 1000000;
    c.prefill = on;
    return &c;
}

static void miss_pins_and_fills_whole_line(void **state)
{
    struct fake *f = up(true, cfg_prefill(false)); /* every line on demand: the CBH misses too */
    uint32_t pid = fake_proc(f), id, key;
    const struct nic_vmh_entry *e;
    struct nicdrv_stats st;
    uint64_t pa;
    (void)state;

    /* 3 pages registered in the middle of a 16-page line */
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA + 4 * 4096, 3 * 4096, NIC_RIGHT_REMOTE_WRITE, &id, &key), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 0); /* dynamic: nothing pinned until a miss */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + 5, (const uint8_t **)&e), 1);
    fake_run(f); /* interrupt -> top half -> miss thread -> FILL */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + 5, (const uint8_t **)&e), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 3);
    e -= 5; /* the whole line */
    for (unsigned i = 0; i < FAKE_VMH_L; i++) {
        if (i >= 4 && i < 7) {
            assert_int_equal(os_translate(f->os, pid, VA + i * 4096ull, &pa), 0);
            assert_int_equal(e[i].ppn, pa >> 12);
            assert_int_equal(e[i].flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_WRITE);
            /* as the NCP keeps it: the page, for remote writes only */
            uint32_t w = nic_vmh_word(e[i].ppn, e[i].flags);
            assert_true(nic_vmh_allows(w, NIC_RIGHT_REMOTE_WRITE));
            assert_false(nic_vmh_allows(w, NIC_RIGHT_REMOTE_READ | NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE));
            assert_int_equal(nic_vmh_pa(w, VA + i * 4096ull + 0x123), pa + 0x123);
        } else {
            assert_int_equal(e[i].flags, 0); /* not registered: invalid, not another miss */
            assert_int_equal(nic_vmh_word(e[i].ppn, e[i].flags), 0);
        }
    }
    /* CBH: the buffer's line */
    const struct nic_cbh_entry *c;
    assert_int_equal(fake_lookup(f, NIC_CACHE_CBH, (uint16_t)pid, id, (const uint8_t **)&c), 1);
    fake_run(f);
    assert_int_equal(fake_lookup(f, NIC_CACHE_CBH, (uint16_t)pid, id, (const uint8_t **)&c), 0);
    assert_int_equal(c->flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_WRITE);
    assert_int_equal(c->key, key);
    assert_int_equal(c->len_lo, 3 * 4096);
    assert_int_equal(c->owner_pid, pid);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.fills, 2);
    assert_int_equal(st.pins, 3);
    /* process exit returns everything */
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

/* Prefill (the default): registration installs the buffer's CBH line, with the entry the miss
 * would have brought, so the first lookup hits; the VMH still fills on demand (nothing pinned). */
static void prefill_installs_cbh_line_at_registration(void **state)
{
    struct fake *f = up(true, NULL);
    uint32_t pid = fake_proc(f), id, key;
    const struct nic_cbh_entry *c;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 2 * 4096, NIC_RIGHT_REMOTE_READ, &id, &key), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_CBH, (uint16_t)pid, id, (const uint8_t **)&c), 0);
    assert_int_equal(c->flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ);
    assert_int_equal(c->key, key);
    assert_int_equal(c->len_lo, 2 * 4096);
    assert_int_equal(c->owner_pid, pid);
    assert_int_equal(os_pinned_pages(f->os, pid), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1); /* on demand */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.prefills, 1);
    assert_int_equal(st.misses, 0);
    /* deregistration drops the prefilled line like any other */
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_CBH, (uint16_t)pid, id, (const uint8_t **)&c), 1);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    fake_destroy(f);
}

static void hwm_evicts_lrf_invalidate_before_unpin(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    nicdrv_config_default(&cfg);
    cfg.nodes = 2;
    cfg.pin_hwm_pages = 2 * FAKE_VMH_L;
    f = up(true, &cfg);
    pid = fake_proc(f);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 4 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
    f->trace_len = 0;
    for (unsigned line = 0; line < 4; line++) {
        uint64_t vpn = (VA >> 12) + line * FAKE_VMH_L;
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, vpn, &e), 1);
        fake_run(f);
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, vpn, &e), 0);
        assert_true(os_pinned_pages(f->os, pid) <= cfg.pin_hwm_pages);
    }
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.evictions, 2);
    assert_int_equal(st.pinned_pages, 2 * FAKE_VMH_L);
    assert_int_equal(st.pinned_peak, 2 * FAKE_VMH_L);
    /* victims were the least recently filled lines (0 and 1), gone from the NIC cache too */
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + FAKE_VMH_L * 4096ull));
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + 3 * FAKE_VMH_L * 4096ull));
    /* order: each eviction's INVALIDATE answered before its unpin */
    f->trace[f->trace_len] = 0;
    assert_non_null(strstr(f->trace, "IU"));
    assert_null(strstr(f->trace, "FU")); /* no unpin right after a fill without an invalidate */
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    fake_destroy(f);
}

static void dereg_invalidates_then_unpins(void **state)
{
    struct fake *f = up(true, NULL);
    uint32_t pid = fake_proc(f), id, key;
    const uint8_t *e;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 8192, NIC_RIGHT_REMOTE_READ, &id, &key), 0);
    fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e);
    fake_lookup(f, NIC_CACHE_CBH, (uint16_t)pid, id, &e);
    fake_run(f);
    assert_int_equal(os_pinned_pages(f->os, pid), 2);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 0);
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_int_equal(fake_lookup(f, NIC_CACHE_CBH, (uint16_t)pid, id, &e), 1); /* CBH line gone too */
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), NICDRV_ENOENT); /* twice */
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, 9999), NICDRV_ENOENT);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 0, NIC_RIGHT_REMOTE_READ, &id, &key), NICDRV_EINVAL);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 4096, 0x1, &id, &key), NICDRV_EINVAL);
    fake_destroy(f);
}

/* Issue 18, item 5: a miss whose line was invalidated while it waited in the queue (here a
 * registration in the same line; under a small pin budget, the evictions of other lines of the
 * process) used to carry a stale epoch: the NCP rejected the fill and the packet missed again.
 * The image is built under the lock that orders every INVALIDATE, so it is current: the fill goes
 * with NIC_FILL_CURRENT, is accepted, and shows the newer registration too. */
static void fill_after_invalidation_is_current(void **state)
{
    struct fake *f = up(true, NULL);
    uint32_t pid = fake_proc(f), id, key, id2;
    struct nicdrv_stats st;
    const struct nic_vmh_entry *e;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 4096, NIC_RIGHT_REMOTE_READ, &id, &key), 0);
    f->auto_miss = false;
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, (const uint8_t **)&e), 1);
    fake_run(f); /* miss queued, not resolved */
    /* a registration in the same line invalidates it (epoch + 1) before the miss thread runs */
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA + 4096, 4096, NIC_RIGHT_REMOTE_WRITE, &id2, &key), 0);
    struct nicdrv_miss m;
    assert_int_equal(nicdrv_miss_pop(f->drv, &m), 0);
    assert_int_equal(nicdrv_miss_resolve(f->drv, &m), 0);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.fills_rejected, 0);
    assert_int_equal(f->fills_rejected, 0);
    assert_int_equal(st.fills, 1);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, (const uint8_t **)&e), 0); /* no miss */
    assert_int_equal(e[0].flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ);
    assert_int_equal(e[1].flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_WRITE); /* the later registration */
    f->auto_miss = true;
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    fake_destroy(f);
}

/* A FILL the NCP answers NIC_ST_NO_RESOURCES (no DMA room for the image) is sent again. */
static void fill_refused_for_resources_is_retried(void **state)
{
    struct fake *f = up(true, NULL);
    uint32_t pid = fake_proc(f), id, key;
    struct nicdrv_stats st;
    const uint8_t *e;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 4096, NIC_RIGHT_REMOTE_READ, &id, &key), 0);
    f->fill_nores = 3;
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 0); /* one miss was enough */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(f->fill_nores, 0);
    assert_int_equal(st.fill_retries, 3);
    assert_int_equal(st.fills, 1);
    assert_int_equal(st.fills_rejected, 0);
    assert_int_equal(st.misses, 1);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    fake_destroy(f);
}

/* Issue 18, item 5: at the high-water mark the victim was the least recently filled line even
 * when it had just been filled for a packet that had not used it yet; two lines taking turns
 * could evict each other forever. A line younger than cfg.fill_residency is kept; the miss
 * thread waits for the oldest line to age, then evicts it. */
/* Eviction upcall (seed 001, cfg.upcall_grace): the victim's owner, with an event queue, gets
 * NIC_EQE_UPCALL (token, the line's range) and the grace period before its pages go; unanswered
 * (the fake's process cannot run meanwhile), the eviction waits the whole period and counts it
 * ignored; an answer after it is late (ETIMEDOUT); an owner without a queue is evicted without
 * notice (unposted). */
static void hwm_upcall_grace(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, pid2, id, id2, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    struct nic_eqe q;
    const uint64_t eq_va = 0xFFFF8000ull;
    (void)state;

    nicdrv_config_default(&cfg);
    cfg.nodes = 2;
    cfg.pin_hwm_pages = 2 * FAKE_VMH_L + 1; /* two lines and the event queue's page */
    cfg.fill_residency = 0;
    cfg.upcall_grace = 30000;
    f = up(true, &cfg);
    pid = fake_proc(f);
    pid2 = fake_proc(f);
    assert_int_equal(nicdrv_eq_open(f->drv, pid, eq_va, 3, 0), 0);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 2 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid2, VA, 2 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id2, &key), 0);
    for (unsigned line = 0; line < 2; line++) {
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + line * FAKE_VMH_L, &e), 1);
        fake_run(f);
    }
    uint64_t t0 = f->now;
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid2, VA >> 12, &e), 1);
    fake_run(f); /* pid's line 0 goes, after its grace period */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(st.upcalls, 1);
    assert_int_equal(st.upcalls_ignored, 1);
    assert_int_equal(st.upcalls_answered, 0);
    assert_true(st.upcall_wait >= 30000 && f->now >= t0 + 30000);
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_true(os_pinned_pages(f->os, pid) == FAKE_VMH_L + 1); /* line 1 and the queue page */
    assert_int_equal(os_read(f->os, pid, eq_va, &q, sizeof q), 0);
    assert_int_equal(q.type, NIC_EQE_UPCALL);
    assert_int_equal(q.phase & 1u, 1);
    assert_int_equal((uint64_t)q.c << 32 | q.b, VA);
    assert_int_equal(q.d, FAKE_VMH_L);
    assert_int_equal(nicdrv_upcall_done(f->drv, pid, q.a), NICDRV_ETIMEDOUT); /* too late */
    assert_int_equal(nicdrv_upcall_done(f->drv, pid, q.a + 5), NICDRV_ETIMEDOUT);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.upcalls_late, 2);
    /* pid2 has no queue: its line goes without notice, without a wait */
    t0 = f->now;
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f); /* the least recently filled is pid's line 1 now: another upcall */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + FAKE_VMH_L, &e), 1);
    fake_run(f); /* then pid2's line 0: unposted */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.evictions, 3);
    assert_int_equal(st.upcalls, 2);
    assert_int_equal(st.upcalls_unposted, 1);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(nicdrv_proc_release(f->drv, pid2), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

/* NICDRV_EVICT_LRU: the victim is the line the NIC used least recently (its stamps, NIC_CMD_USAGE
 * before each eviction), not the least recently filled: a line filled first but hit since stays. */
static void hwm_lru_from_nic_usage(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    for (unsigned policy = NICDRV_EVICT_LRF; policy <= NICDRV_EVICT_LRU; policy++) {
        nicdrv_config_default(&cfg);
        cfg.nodes = 2;
        cfg.pin_hwm_pages = 2 * FAKE_VMH_L;
        cfg.fill_residency = 0;
        cfg.evict_policy = policy;
        f = up(true, &cfg);
        pid = fake_proc(f);
        assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 3 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
        for (unsigned line = 0; line < 2; line++) {
            assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + line * FAKE_VMH_L, &e), 1);
            fake_run(f);
        }
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 0); /* line 0: a hit */
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + 2 * FAKE_VMH_L, &e), 1);
        fake_run(f);
        nicdrv_stats(f->drv, &st);
        assert_int_equal(st.evictions, 1);
        /* lrf: line 0 (filled first) goes; lru: line 1 (line 0 was used since) */
        assert_int_equal(fake_vmh_cached(f, (uint16_t)pid, VA), policy == NICDRV_EVICT_LRU);
        assert_int_equal(fake_vmh_cached(f, (uint16_t)pid, VA + FAKE_VMH_L * 4096ull), policy == NICDRV_EVICT_LRF);
        assert_int_equal(st.usage_reads, policy == NICDRV_EVICT_LRU ? 1 : 0);
        assert_int_equal(f->usage_cmds, st.usage_reads);
        assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
        assert_int_equal(os_pinned_pages_total(f->os), 0);
        assert_int_equal(f->order_violations, 0);
        fake_destroy(f);
    }
}

/* The three victim policies on one constructed pattern where each picks another line (issue 15
 * item 4): lines A, B, C filled in that order (a 3-line pin budget); then B hit 5 times, C once, A
 * 3 times; then line D misses. Least recently filled: A. Least recently used: B (its last hit is
 * the oldest). Least frequently used: C (one hit). An NCP without access counts (ABI 2.2): LFU
 * falls back to the least recently filled, without asking for counts. */
static void hwm_three_policies_pick_three_victims(void **state)
{
    static const struct {
        uint32_t policy;
        bool counts;
        unsigned victim;
        uint32_t usage_reads;
    } cases[] = {
        { NICDRV_EVICT_LRF, true, 0, 0 },
        { NICDRV_EVICT_LRU, true, 1, 1 },
        { NICDRV_EVICT_LFU, true, 2, 2 },
        { NICDRV_EVICT_LFU, false, 0, 0 },
    };
    static const unsigned hits[3][2] = { { 1, 5 }, { 2, 1 }, { 0, 3 } }; /* (line, hits) in order */
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    char err[200] = "";
    size_t len;
    (void)state;

    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        nicdrv_config_default(&cfg);
        cfg.nodes = 2;
        cfg.pin_hwm_pages = 3 * FAKE_VMH_L;
        cfg.fill_residency = 0;
        cfg.evict_policy = cases[k].policy;
        f = fake_create(true);
        f->no_usage_counts = !cases[k].counts;
        assert_non_null(fake_driver(f, &cfg));
        const uint8_t *img = fake_image(&len);
        assert_int_equal(nicdrv_probe(f->drv, img, len, err, sizeof err), NICDRV_OK);
        pid = fake_proc(f);
        assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 4 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
        for (unsigned line = 0; line < 3; line++) { /* A, B, C: a miss and a fill each */
            assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + line * FAKE_VMH_L, &e), 1);
            fake_run(f);
        }
        for (unsigned h = 0; h < 3; h++)
            for (unsigned i = 0; i < hits[h][1]; i++)
                assert_int_equal(
                    fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + hits[h][0] * FAKE_VMH_L + i % FAKE_VMH_L, &e),
                    0);
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + 3 * FAKE_VMH_L, &e), 1); /* D */
        fake_run(f);
        nicdrv_stats(f->drv, &st);
        assert_int_equal(st.evictions, 1);
        for (unsigned line = 0; line < 4; line++)
            assert_int_equal(fake_vmh_cached(f, (uint16_t)pid, VA + line * FAKE_VMH_L * 4096ull), line != cases[k].victim);
        assert_int_equal(st.usage_reads, cases[k].usage_reads);
        assert_int_equal(f->usage_cmds, st.usage_reads);
        assert_int_equal(st.pinned_pages, 3 * FAKE_VMH_L);
        assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
        assert_int_equal(os_pinned_pages_total(f->os), 0);
        assert_int_equal(f->order_violations, 0);
        fake_destroy(f);
    }
}

/* LFU's two guards (NICDRV_EVICT_LFU, a 2-line pin budget). Dynamic aging: A hit 10 times, B 11;
 * C misses: A goes (priority 10), so lines filled from now on start at 10; C is hit once (11), D
 * misses: B (11, filled before C) goes, where plain LFU would take C (1 hit). Young lines last: with
 * a fill residency, A (old, 3 hits) goes when C misses, not B (filled just now, 0 hits), and no
 * eviction waits for a line to age. */
static void hwm_lfu_ages_and_keeps_young_fills(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    nicdrv_config_default(&cfg);
    cfg.nodes = 2;
    cfg.pin_hwm_pages = 2 * FAKE_VMH_L;
    cfg.fill_residency = 0;
    cfg.evict_policy = NICDRV_EVICT_LFU;
    f = up(true, &cfg);
    pid = fake_proc(f);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 6 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
#define LN(n) ((VA >> 12) + (n) * FAKE_VMH_L)
#define HIT(n, times)                                                                                      \
    for (unsigned i_ = 0; i_ < (times); i_++)                                                              \
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, LN(n), &e), 0)
#define MISS(n)                                                                                            \
    do {                                                                                                   \
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, LN(n), &e), 1);                      \
        fake_run(f);                                                                                       \
    } while (0)
#define CACHED(n) fake_vmh_cached(f, (uint16_t)pid, VA + (n) * FAKE_VMH_L * 4096ull)
    MISS(0);
    MISS(1);
    HIT(0, 10);
    HIT(1, 11);
    MISS(2); /* C: A (10) goes */
    assert_false(CACHED(0));
    assert_true(CACHED(1) && CACHED(2));
    HIT(2, 1);
    MISS(3); /* D: B (11) and C (10 + 1) tie: B, filled first, goes */
    assert_false(CACHED(1));
    assert_true(CACHED(2) && CACHED(3));
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.evictions, 2);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    fake_destroy(f);

    cfg.fill_residency = 1000000;
    f = up(true, &cfg);
    pid = fake_proc(f);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 6 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
    MISS(0);
    f->now += 2000000; /* A is old */
    HIT(0, 3);
    MISS(1);            /* B: young, 0 hits */
    MISS(2);            /* C: A (3 hits, old) goes, not B (0 hits, young) */
    assert_false(CACHED(0));
    assert_true(CACHED(1) && CACHED(2));
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(st.evict_waits, 0); /* nobody waited for a young line to age */
#undef LN
#undef HIT
#undef MISS
#undef CACHED
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    fake_destroy(f);
}

static void hwm_keeps_a_young_fill(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    nicdrv_config_default(&cfg);
    cfg.nodes = 2;
    cfg.pin_hwm_pages = 2 * FAKE_VMH_L;
    cfg.fill_residency = 50000;
    f = up(true, &cfg);
    pid = fake_proc(f);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 3 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
    uint64_t t0 = f->now;
    for (unsigned line = 0; line < 2; line++) {
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + line * FAKE_VMH_L, &e), 1);
        fake_run(f);
    }
    assert_true(f->now < t0 + 50000); /* both young */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA >> 12) + 2 * FAKE_VMH_L, &e), 1);
    fake_run(f);
    nicdrv_stats(f->drv, &st);
    assert_true(st.evict_waits >= 1);
    assert_int_equal(st.evictions, 1);
    assert_true(f->now >= t0 + 50000); /* line 0 was kept for its residency */
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + FAKE_VMH_L * 4096ull));
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + 2 * FAKE_VMH_L * 4096ull));
    assert_true(os_pinned_pages(f->os, pid) <= cfg.pin_hwm_pages);
    /* line 1 is young again relative to nothing: a refill of line 0 right now evicts line 1
     * only once line 1 has aged too */
    uint64_t t1 = f->now;
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.evictions, 2);
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + FAKE_VMH_L * 4096ull));
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + 2 * FAKE_VMH_L * 4096ull)); /* the youngest stays */
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_true(f->now >= t1);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    fake_destroy(f);
}

/* Issue 18, item 6: memory the OS cannot back. Registration refuses what it can see (outside
 * the process's address space, or beyond the NCP's 44-bit addresses); where the host cannot
 * tell, a miss on such pages fills them as invalid entries (the NCP answers a protection error,
 * not another miss), and the backed pages of the same line are served. */
static void unbacked_memory_rejected_or_filled_invalid(void **state)
{
    struct fake *f = up(true, NULL);
    uint32_t pid = 0, id, key;
    const struct nic_vmh_entry *e;
    struct nicdrv_stats st;
    const uint64_t top = 1ull << 32; /* a 32-bit address space */
    (void)state;

    assert_int_equal(os_proc_create(f->os, 32, &pid), 0);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, top - 4 * 4096, 8 * 4096, NIC_RIGHT_REMOTE_WRITE, &id, &key),
                     NICDRV_EFAULT);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, top, 4096, NIC_RIGHT_REMOTE_WRITE, &id, &key), NICDRV_EFAULT);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, 1ull << 44, 4096, NIC_RIGHT_REMOTE_WRITE, &id, &key), NICDRV_EFAULT);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.bufs, 0);
    /* the host cannot tell: accepted, and each miss is answered */
    f->va_check_off = true;
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, top - 4 * 4096, 8 * 4096, NIC_RIGHT_REMOTE_WRITE, &id, &key), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (top >> 12) - 1, (const uint8_t **)&e), 1);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, top >> 12, (const uint8_t **)&e), 1);
    fake_run(f);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (top >> 12) - 1, (const uint8_t **)&e), 0);
    assert_int_equal(e[0].flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_WRITE); /* backed: served */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, top >> 12, (const uint8_t **)&e), 0);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(e[i].flags, 0); /* unbacked: invalid, no further miss */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.unbacked_pages, 4);
    assert_int_equal(st.fills, 2);
    assert_int_equal(os_pinned_pages(f->os, pid), 4);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

static void static_build_preloads_and_fails_when_full(void **state)
{
    struct fake *f = up(false, NULL);
    uint32_t pid = fake_proc(f), id, key, n;
    struct nicdrv_stats st;
    const struct nic_vmh_entry *e;
    int rc = 0;
    (void)state;

    /* each buffer in its own VMH line: the 33rd VMH line does not fit the fake's 32 */
    for (n = 0; n < 40; n++) {
        rc = nicdrv_mem_reg(f->drv, pid, VA + n * FAKE_VMH_L * 4096ull, 4096, NIC_RIGHT_REMOTE_WRITE, &id, &key);
        if (rc)
            break;
        assert_int_equal(id, n);
    }
    assert_int_equal(rc, NICDRV_ENORES);
    assert_int_equal(n, FAKE_LINES);
    assert_int_equal(os_pinned_pages(f->os, pid), FAKE_LINES); /* the failed one was rolled back */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.bufs, FAKE_LINES);
    assert_true(st.static_loads >= FAKE_LINES + 4);
    assert_int_equal(st.misses, 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, (const uint8_t **)&e), 0);
    assert_int_equal(e->flags, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_WRITE);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(fake_lines_used(f, NIC_CACHE_VMH), 0);
    assert_int_equal(f->order_violations, 0);
    fake_destroy(f);
}

/* ABI 2.2 host endpoints (issue 15 item 2): the table given at probe; resident ids first, then
 * host ids with their context written valid and both pages pinned; every id taken: ENORES; the
 * send queue page checked; close clears the context and unpins; remove frees the table. */
static void host_endpoints_open_close(void **state)
{
    struct fake *f = fake_create(true);
    size_t len;
    const uint8_t *img = fake_image(&len);
    char err[200] = "";
    uint32_t pid, n, opened = 0;
    uint16_t ep, first_host = 0;
    uint64_t cq = 0x7000000ull, sq = 0x8000000ull;
    struct nic_ep_ctx x;
    int rc = 0;
    (void)state;

    f->max_eps = FAKE_EP_IDS;
    assert_non_null(fake_driver(f, NULL));
    assert_int_equal(nicdrv_probe(f->drv, img, len, err, sizeof err), NICDRV_OK);
    assert_int_equal(f->ep_tables, 1); /* 64 ids: one page */
    pid = fake_proc(f);
    /* without a send queue page, only resident endpoints */
    for (uint32_t i = 1; i < 16; i++)
        assert_int_equal(nicdrv_ep_open(f->drv, pid, cq + i * 4096ull, &ep, &n), NICDRV_OK);
    assert_int_equal(nicdrv_ep_open(f->drv, pid, cq + 100 * 4096, &ep, &n), NICDRV_ENORES);
    assert_int_equal(os_pinned_pages(f->os, pid), 15);
    /* the send queue page: aligned, not the CQ's, not another queue's page */
    assert_int_equal(nicdrv_ep_open_sq(f->drv, pid, cq + 100 * 4096, sq + 8, &ep, &n), NICDRV_EINVAL);
    assert_int_equal(nicdrv_ep_open_sq(f->drv, pid, cq + 100 * 4096, cq + 100 * 4096, &ep, &n), NICDRV_EINVAL);
    assert_int_equal(nicdrv_ep_open_sq(f->drv, pid, cq + 100 * 4096, cq + 4096, &ep, &n), NICDRV_EBUSY);
    assert_int_equal(os_pinned_pages(f->os, pid), 15);
    for (uint32_t i = 0; i < FAKE_EP_IDS; i++) {
        rc = nicdrv_ep_open_sq(f->drv, pid, cq + (200 + i) * 4096ull, sq + i * 4096ull, &ep, &n);
        if (rc)
            break;
        if (!first_host)
            first_host = ep;
        assert_true(ep >= 16 && ep < FAKE_EP_IDS);
        assert_true(f->ep[ep].open && f->ep[ep].host);
        opened++;
    }
    assert_int_equal(rc, NICDRV_ENORES);
    assert_int_equal(opened, FAKE_EP_IDS - 16);
    assert_int_equal(first_host, 16);
    assert_int_equal(os_pinned_pages(f->os, pid), 15 + 2 * opened);
    hostmem_cpu_read(f->mem, f->ept_pa[0] + first_host * sizeof x, &x, sizeof x);
    assert_int_equal(x.flags, NIC_EPC_VALID);
    assert_int_equal(x.pid, pid);
    {
        uint64_t pa;
        assert_int_equal(os_translate(f->os, pid, sq, &pa), 0);
        assert_int_equal((uint64_t)x.sq_hi << 32 | x.sq_lo, pa);
        assert_int_equal(os_translate(f->os, pid, cq + 200 * 4096ull, &pa), 0);
        assert_int_equal((uint64_t)x.cq_hi << 32 | x.cq_lo, pa);
    }
    /* another process cannot close it */
    assert_int_equal(nicdrv_ep_close(f->drv, fake_proc(f), first_host), NICDRV_ENOENT);
    assert_int_equal(nicdrv_ep_close(f->drv, pid, first_host), NICDRV_OK);
    hostmem_cpu_read(f->mem, f->ept_pa[0] + first_host * sizeof x, &x, sizeof x);
    assert_int_equal(x.flags, 0);
    assert_false(f->ep[first_host].open);
    assert_int_equal(os_pinned_pages(f->os, pid), 15 + 2 * (opened - 1));
    assert_int_equal(nicdrv_ep_close(f->drv, pid, first_host), NICDRV_ENOENT);
    /* its id is free again */
    assert_int_equal(nicdrv_ep_open_sq(f->drv, pid, cq + 500 * 4096ull, sq + 500 * 4096ull, &ep, &n), NICDRV_OK);
    assert_int_equal(ep, first_host);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), NICDRV_OK); /* closes the host ones too */
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    for (uint32_t i = 16; i < FAKE_EP_IDS; i++)
        assert_false(f->ep[i].open);
    assert_true(hostmem_frame_exists(f->mem, f->ept_pa[0] >> 12));
    assert_int_equal(nicdrv_remove(f->drv), NICDRV_OK);
    assert_false(hostmem_frame_exists(f->mem, f->ept_pa[0] >> 12)); /* the table page is freed */
    assert_int_equal(f->order_violations, 0);
    fake_destroy(f);
}

static void nic_stats_and_calls_before_probe(void **state)
{
    struct fake *f = fake_create(true);
    struct nic_stats ns;
    uint32_t id, key;
    uint16_t ep;
    uint32_t n;
    (void)state;

    assert_non_null(fake_driver(f, NULL));
    assert_int_equal(nicdrv_mem_reg(f->drv, 1, VA, 4096, NIC_RIGHT_REMOTE_READ, &id, &key), NICDRV_ESTATE);
    assert_int_equal(nicdrv_ep_open(f->drv, 1, 0xFFFF0000u, &ep, &n), NICDRV_ESTATE);
    assert_int_equal(nicdrv_nic_stats(f->drv, &ns), NICDRV_ESTATE);
    fake_destroy(f);
    f = up(true, NULL);
    f->misses_posted = 7;
    assert_int_equal(nicdrv_nic_stats(f->drv, &ns), 0);
    assert_int_equal(ns.drops_miss, 7);
    fake_destroy(f);
}

/* drv_tables.c: the remote key generator (not in the public header). */
uint32_t drv_key_make(const uint32_t k[4], uint32_t node, uint32_t n);

/*
 * Item 9: remote keys are never repeated on a node or across nodes, and are not predictable: a
 * different secret gives an unrelated sequence (no key of one sequence appears at its index in
 * the other beyond chance), consecutive keys share no simple relation, and the driver keys its
 * registrations from cfg.key_seed (reproducible) or host entropy (two drivers differ).
 */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void remote_keys_unique_and_unpredictable(void **state)
{
    enum { N = 1u << 15, NODES = 4 };
    static uint32_t keys[N * NODES];
    const uint32_t k1[4] = {1, 2, 3, 4}, k2[4] = {1, 2, 3, 5};
    uint32_t same_index = 0, low_bits_equal = 0;
    (void)state;
    for (uint32_t node = 0; node < NODES; node++)
        for (uint32_t i = 0; i < N; i++) {
            /* each node its own secret, as in a cluster */
            const uint32_t k[4] = {node * 7919u + 1u, 2, 3, 4};
            keys[node * N + i] = drv_key_make(k, node, i);
            assert_int_equal(keys[node * N + i] & 31u, node);
        }
    qsort(keys, N * NODES, sizeof keys[0], cmp_u32);
    for (uint32_t i = 1; i < N * NODES; i++)
        assert_true(keys[i] != keys[i - 1]); /* never repeated, on a node or across nodes */
    for (uint32_t i = 0; i < N; i++) {
        uint32_t a = drv_key_make(k1, 3, i), b = drv_key_make(k2, 3, i);
        assert_int_equal(a, drv_key_make(k1, 3, i)); /* deterministic for a seed */
        same_index += a == b;
        low_bits_equal += ((a ^ drv_key_make(k1, 3, i + 1u)) >> 5 & 0xFFu) == 0;
    }
    assert_true(same_index <= 2);         /* one secret bit changed: an unrelated sequence */
    assert_true(low_bits_equal < N / 64); /* ~N / 256 by chance: no step pattern */

    /* through the driver: the seed decides, the node id alone does not; 0 = host entropy */
    uint32_t key[4], id;
    struct nicdrv_config c = *cfg_prefill(true);
    for (unsigned run = 0; run < 4; run++) {
        c.key_seed = run < 2 ? 0x1234u : run == 2 ? 0x1235u : 0;
        struct fake *f = up(true, &c);
        uint32_t pid = fake_proc(f);
        assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 4096, NIC_RIGHT_REMOTE_READ, &id, &key[run]), 0);
        assert_int_equal(nicdrv_remove(f->drv), NICDRV_OK);
        fake_destroy(f);
    }
    assert_int_equal(key[0], key[1]);
    assert_int_not_equal(key[0], key[2]);
    assert_int_not_equal(key[0], key[3]);
}

/* 8a(a): the DMA engine writes an entry that crosses a 256-byte boundary in two bursts (the fake
 * does too, delivering the second after the interrupt). Event entries are 32 bytes, so none ever
 * crosses: 600 commands, the ring wrapping several times, every answer found, the driver alive.
 * With 24-byte entries this loses answers (stale sequence number) and the driver times out. */
static void event_ring_entries_never_torn(void **state)
{
    struct fake *f = up(true, NULL);
    struct nic_stats ns;
    struct nicdrv_stats st;
    (void)state;

    assert_int_equal(sizeof(struct nic_event) & (sizeof(struct nic_event) - 1), 0); /* power of two */
    assert_int_equal(256 % sizeof(struct nic_event), 0);
    assert_int_equal(256 % sizeof(struct nic_cqe), 0);
    for (int i = 0; i < 600; i++) {
        f->misses_posted = (uint32_t)i;
        assert_int_equal(nicdrv_nic_stats(f->drv, &ns), 0);
        assert_int_equal(ns.drops_miss, (uint32_t)i);
    }
    assert_int_equal(f->events_torn, 0);
    nicdrv_stats(f->drv, &st);
    assert_true(st.events >= 600); /* > 4 laps of the 128-entry ring */
    assert_true(nicdrv_probed(f->drv));
    fake_destroy(f);
}

static const struct nicdrv_config *cfg_pf(uint32_t prefetch, uint32_t pin_mode)
{
    static struct nicdrv_config c;
    c = *cfg_prefill(true);
    c.prefetch_lines = prefetch;
    c.pin_mode = pin_mode;
    return &c;
}

#define LINE_B (FAKE_VMH_L * 4096ull)

/* Prefetch on a miss: INIT tells the NCP N; a miss asking for 4 lines is served by 4 FILLs, the
 * missed line first, every registered page pinned; lines beyond the buffer come back invalid. */
static void prefetch_fills_the_requested_lines(void **state)
{
    struct fake *f = up(true, cfg_pf(4, NICDRV_PIN_ON_MISS));
    uint32_t pid = fake_proc(f), id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    assert_int_equal(f->prefetch, 4); /* INIT's ep */
    /* 3 lines registered: the 4th requested line has no registered page */
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 3 * LINE_B, NIC_RIGHT_REMOTE_WRITE, &id, &key), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f);
    for (unsigned k = 0; k < 3; k++)
        assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + k * LINE_B + 4096));
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + 3 * LINE_B)); /* filled, but invalid */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA + 3 * LINE_B) >> 12, &e), 0); /* no miss */
    assert_int_equal(os_pinned_pages(f->os, pid), 3 * FAKE_VMH_L);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.misses, 1);
    assert_int_equal(f->misses_posted, 1);
    assert_int_equal(st.prefetch_fills, 3);
    assert_int_equal(st.pins, 3 * FAKE_VMH_L);
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

/* Off (the default): one line per miss, INIT says 0; a bad config is refused. */
static void prefetch_off_is_one_line(void **state)
{
    struct fake *f = up(true, cfg_pf(0, NICDRV_PIN_ON_MISS));
    uint32_t pid = fake_proc(f), id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    struct nicdrv_config bad = *cfg_pf(NIC_PREFETCH_MAX + 1, 0);
    (void)state;

    assert_int_equal(f->prefetch, 0);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 3 * LINE_B, NIC_RIGHT_REMOTE_WRITE, &id, &key), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + LINE_B));
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.prefetch_fills, 0);
    assert_int_equal(os_pinned_pages(f->os, pid), FAKE_VMH_L);
    /* a driver asked to prefetch more than the ABI allows is not created */
    assert_null(nicdrv_create(&f->bus, &f->host, &bad));
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    fake_destroy(f);
}

/* Pin at registration: the buffer's lines are pinned and in the NIC before nicdrv_mem_reg
 * returns; no miss follows. */
static void pin_at_registration_fills_every_line(void **state)
{
    struct fake *f = up(true, cfg_pf(0, NICDRV_PIN_AT_REG));
    uint32_t pid = fake_proc(f), id, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA + 4096, 2 * LINE_B, NIC_RIGHT_REMOTE_READ, &id, &key), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 2 * FAKE_VMH_L);
    for (unsigned k = 0; k < 3; k++)
        assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA + 4096 + k * LINE_B) >> 12, &e), 0);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.bg_lines, 3);
    assert_int_equal(f->misses_posted, 0);
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_ENOENT); /* nothing in the background */
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

static const struct nicdrv_config *cfg_overlap(uint32_t sync_lines)
{
    static struct nicdrv_config c;
    c = *cfg_pf(0, NICDRV_PIN_OVERLAP);
    c.pin_sync_lines = sync_lines;
    return &c;
}

/* Overlapped pinning as seed 004 (pin_sync_lines 0): registration pins nothing; the background
 * steps pin and fill a line each, in order; a miss ahead of them is counted early and served, and
 * the background goes on past it; a deregistration stops it, with nothing left pinned. */
static void overlap_pins_in_background_counts_early(void **state)
{
    struct fake *f = up(true, cfg_overlap(0));
    uint32_t pid = fake_proc(f), id, id2, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 6 * LINE_B, NIC_RIGHT_REMOTE_WRITE, &id, &key), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 0); /* returned at once */
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_OK);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_int_equal(os_pinned_pages(f->os, pid), FAKE_VMH_L);
    /* a packet for line 3 arrives before the background got there */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA + 3 * LINE_B) >> 12, &e), 1);
    fake_run(f);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.pin_early, 1);
    /* a miss on a line the background already pinned is not early */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 0);
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_OK); /* goes on at line 4 */
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + 4 * LINE_B));
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + LINE_B)); /* skipped: behind the traffic */
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.bg_lines, 2);
    assert_int_equal(os_pinned_pages(f->os, pid), 3 * FAKE_VMH_L);
    /* a second buffer: deregistered after one background line, the rest never pinned */
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA + 16 * LINE_B, 4 * LINE_B, NIC_RIGHT_REMOTE_WRITE, &id2, &key), 0);
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_OK); /* round robin: the new buffer's line 16 */
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + 16 * LINE_B));
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id2), 0);
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + 16 * LINE_B));
    assert_int_equal(os_pinned_pages(f->os, pid), 3 * FAKE_VMH_L);
    while (nicdrv_pin_step(f->drv) == NICDRV_OK) /* the first buffer's line 5 */
        ;
    assert_int_equal(os_pinned_pages(f->os, pid), 4 * FAKE_VMH_L);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.bg_lines, 4);
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_ENOENT);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

/* Overlapped pinning, the default (pin_sync_lines 1): registration pins and fills the buffer's
 * first line before it returns, the background the rest from the second line on; a packet for the
 * first line hits, nothing is early; a one-line buffer leaves nothing to the background; 2 lines at
 * registration, then the third in the background. */
static void overlap_pins_first_line_at_registration(void **state)
{
    struct fake *f = up(true, cfg_overlap(1));
    uint32_t pid = fake_proc(f), id, id2, id3, key;
    const uint8_t *e;
    struct nicdrv_stats st;
    (void)state;

    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 3 * LINE_B, NIC_RIGHT_REMOTE_WRITE, &id, &key), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), FAKE_VMH_L); /* the first line, before returning */
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA + LINE_B));
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, (VA + 5 * 4096u) >> 12, &e), 0); /* hit */
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_OK); /* line 1 */
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + LINE_B));
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_OK); /* line 2 */
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_ENOENT);
    assert_int_equal(os_pinned_pages(f->os, pid), 3 * FAKE_VMH_L);
    /* a one-line buffer: all of it at registration, nothing left for the background */
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA + 16 * LINE_B, LINE_B, NIC_RIGHT_REMOTE_WRITE, &id2, &key), 0);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA + 16 * LINE_B));
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_ENOENT);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.bg_lines, 4);
    assert_int_equal(st.pin_early, 0);
    assert_int_equal(f->misses_posted, 0);
    /* deregistered with its background lines still to come: nothing of it stays pinned */
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA + 32 * LINE_B, 4 * LINE_B, NIC_RIGHT_REMOTE_WRITE, &id3, &key), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 5 * FAKE_VMH_L);
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id3), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 4 * FAKE_VMH_L);
    assert_int_equal(nicdrv_pin_step(f->drv), NICDRV_ENOENT);
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id), 0);
    assert_int_equal(nicdrv_mem_dereg(f->drv, pid, id2), 0);
    assert_int_equal(os_pinned_pages(f->os, pid), 0);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    fake_destroy(f);
}

/* MMU notifier (issue 15, seed 004): nicdrv_mmu_release invalidates the line holding the page,
 * waits for the answer, then unpins; refuses a queue page and a line younger than fill_residency;
 * a page it holds no pin on costs nothing. */
static void mmu_release_invalidates_before_unpin(void **state)
{
    struct nicdrv_config cfg;
    struct fake *f;
    uint32_t pid, id, key, cqn;
    uint16_t ep;
    const uint8_t *e;
    struct nicdrv_stats st;
    const uint64_t cq_va = 0x7000000ull;
    (void)state;

    nicdrv_config_default(&cfg);
    cfg.nodes = 2;
    cfg.fill_residency = 50000;
    cfg.mmu_notifier = true;
    f = up(true, &cfg);
    pid = fake_proc(f);
    assert_int_equal(nicdrv_mem_reg(f->drv, pid, VA, 2 * FAKE_VMH_L * 4096ull, NIC_RIGHT_LOCAL_READ, &id, &key), 0);
    assert_int_equal(nicdrv_ep_open(f->drv, pid, cq_va, &ep, &cqn), 0);
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    uint64_t pinned = os_pinned_pages(f->os, pid);
    assert_true(pinned >= FAKE_VMH_L);
    /* young: kept (its packet may not have used it yet) */
    f->trace_len = 0;
    assert_int_equal(nicdrv_mmu_release(f->drv, pid, VA + 4096 + 17), NICDRV_EBUSY);
    assert_int_equal(f->trace_len, 0);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    /* aged: invalidated, answered, then every page of the line unpinned */
    f->now += 50000;
    assert_int_equal(nicdrv_mmu_release(f->drv, pid, VA + 4096 + 17), NICDRV_OK);
    f->trace[f->trace_len] = 0;
    assert_non_null(strstr(f->trace, "IU"));
    assert_false(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_int_equal(os_pinned_pages(f->os, pid), pinned - FAKE_VMH_L);
    /* a page of ours no line holds, and the completion queue page (the NCP writes it untranslated) */
    f->trace_len = 0;
    assert_int_equal(nicdrv_mmu_release(f->drv, pid, VA + FAKE_VMH_L * 4096ull), NICDRV_OK);
    assert_int_equal(nicdrv_mmu_release(f->drv, pid, cq_va), NICDRV_EBUSY);
    assert_int_equal(f->trace_len, 0);
    assert_int_equal(os_pinned_pages(f->os, pid), pinned - FAKE_VMH_L);
    nicdrv_stats(f->drv, &st);
    assert_int_equal(st.mmu_releases, 4);
    assert_int_equal(st.mmu_invalidations, 1);
    assert_int_equal(st.mmu_refused, 2);
    assert_int_equal(st.mmu_young, 1);
    /* the next use misses and the line is pinned and filled again */
    assert_int_equal(fake_lookup(f, NIC_CACHE_VMH, (uint16_t)pid, VA >> 12, &e), 1);
    fake_run(f);
    assert_true(fake_vmh_cached(f, (uint16_t)pid, VA));
    assert_int_equal(os_pinned_pages(f->os, pid), pinned);
    assert_int_equal(f->order_violations, 0);
    assert_int_equal(f->oracle_violations, 0);
    assert_int_equal(nicdrv_proc_release(f->drv, pid), 0);
    assert_int_equal(os_pinned_pages_total(f->os), 0);
    fake_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_ok_remove_twice),
        cmocka_unit_test(probe_errors),
        cmocka_unit_test(probe_refuses_more_nodes_than_peers),
        cmocka_unit_test(miss_pins_and_fills_whole_line),
        cmocka_unit_test(prefill_installs_cbh_line_at_registration),
        cmocka_unit_test(hwm_evicts_lrf_invalidate_before_unpin),
        cmocka_unit_test(dereg_invalidates_then_unpins),
        cmocka_unit_test(fill_after_invalidation_is_current),
        cmocka_unit_test(fill_refused_for_resources_is_retried),
        cmocka_unit_test(hwm_keeps_a_young_fill),
        cmocka_unit_test(hwm_upcall_grace),
        cmocka_unit_test(hwm_lru_from_nic_usage),
        cmocka_unit_test(hwm_three_policies_pick_three_victims),
        cmocka_unit_test(hwm_lfu_ages_and_keeps_young_fills),
        cmocka_unit_test(unbacked_memory_rejected_or_filled_invalid),
        cmocka_unit_test(static_build_preloads_and_fails_when_full),
        cmocka_unit_test(nic_stats_and_calls_before_probe),
        cmocka_unit_test(remote_keys_unique_and_unpredictable),
        cmocka_unit_test(event_ring_entries_never_torn),
        cmocka_unit_test(prefetch_fills_the_requested_lines),
        cmocka_unit_test(prefetch_off_is_one_line),
        cmocka_unit_test(pin_at_registration_fills_every_line),
        cmocka_unit_test(overlap_pins_in_background_counts_early),
        cmocka_unit_test(overlap_pins_first_line_at_registration),
        cmocka_unit_test(mmu_release_invalidates_before_unpin),
        cmocka_unit_test(host_endpoints_open_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
