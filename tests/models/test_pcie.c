/* Unit tests of the PCIe link model: latency and bandwidth arithmetic, ordering, the oracle's
 * errors carried back to the NIC, MMIO in both directions, back-pressure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hostmem.h"
#include "os.h"
#include "pcie.h"

#define VA 0x40000000ull

struct world {
    hostmem_t *mem;
    os_t *os;
    pcie_t *p;
    uint32_t pid;
    uint64_t pa; /* of VA; the buffer is 4 pinned pages, physically contiguous (no scatter) */
};

static int setup_cfg(void **state, const struct pcie_config *pc)
{
    static struct world w;
    struct hostmem_config hc;

    hostmem_config_default(&hc);
    hc.max_frames = 256;
    hc.scatter = false;
    hc.fail_loudly = false;
    w.mem = hostmem_create(&hc);
    w.os = os_create(NULL, w.mem, NULL);
    w.p = pcie_create(pc, w.mem);
    if (!w.mem || !w.os || !w.p || os_proc_create(w.os, 32, &w.pid) || os_pin(w.os, w.pid, 0, VA, 4 * 4096, NULL) ||
        os_translate(w.os, w.pid, VA, &w.pa))
        return -1;
    *state = &w;
    return 0;
}

static int setup(void **state)
{
    return setup_cfg(state, NULL); /* defaults: 39 B/cycle, 256 B TLPs, no overhead */
}

static int teardown(void **state)
{
    struct world *w = *state;

    pcie_destroy(w->p);
    os_destroy(w->os);
    hostmem_destroy(w->mem);
    return 0;
}

static void pcie_dma_write_lands_at_serialization_plus_latency(void **state)
{
    struct world *w = *state;
    uint8_t data[1000], back[1000];
    struct pcie_wr_done d;

    for (int i = 0; i < 1000; i++)
        data[i] = (uint8_t)(i * 7);
    assert_int_equal(pcie_dma_write(w->p, 10, 5, w->pa, data, sizeof data), SIM_OK);
    /* 10 + ceil(1000 / 39) = 36, + dma_write_latency 60 = 96 */
    assert_int_equal(pcie_next_event(w->p), 96);
    assert_int_equal(pcie_dma_write_done(w->p, 95, &d), SIM_EAGAIN);
    assert_int_equal(os_read(w->os, w->pid, VA, back, 4), SIM_OK);
    assert_int_equal(back[1], 0); /* not yet in host memory */
    assert_int_equal(pcie_dma_write_done(w->p, 96, &d), SIM_OK);
    assert_int_equal(d.tag, 5);
    assert_int_equal(d.status, SIM_OK);
    assert_int_equal(os_read(w->os, w->pid, VA, back, sizeof back), SIM_OK);
    assert_memory_equal(data, back, sizeof data);
    assert_true(pcie_idle(w->p));
}

static void pcie_dma_read_beats_arrive_at_link_rate(void **state)
{
    struct world *w = *state;
    uint8_t data[1000];
    static struct pcie_rd_beat b;
    const sim_cycle_t expect[4] = { 127, 134, 140, 146 }; /* 120 + ceil(256k / 39), last: +ceil(1000/39) */

    for (int i = 0; i < 1000; i++)
        data[i] = (uint8_t)(i ^ 0x5A);
    assert_int_equal(os_write(w->os, w->pid, VA + 3000, data, sizeof data), SIM_OK); /* spans 2 pages */
    assert_int_equal(pcie_dma_read_req(w->p, 0, 9, w->pa + 3000, sizeof data), SIM_OK);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(pcie_dma_read_data(w->p, expect[k] - 1, &b), SIM_EAGAIN);
        assert_int_equal(pcie_next_event(w->p), expect[k]);
        assert_int_equal(pcie_dma_read_data(w->p, expect[k], &b), SIM_OK);
        assert_int_equal(b.tag, 9);
        assert_int_equal(b.status, SIM_OK);
        assert_int_equal(b.offset, 256u * k);
        assert_int_equal(b.len, k < 3 ? 256 : 1000 - 768);
        assert_int_equal(b.last, k == 3);
        assert_memory_equal(b.data, data + 256 * k, b.len);
    }
    assert_int_equal(pcie_next_event(w->p), SIM_CYCLE_NEVER);
    assert_int_equal(pcie_counters(w->p)->dma_read_bytes, 1000);
}

static void pcie_back_to_back_writes_share_the_link_bandwidth(void **state)
{
    struct world *w = *state;
    uint8_t data[390] = { 0 };
    struct pcie_wr_done d;

    for (int k = 0; k < 10; k++)
        assert_int_equal(pcie_dma_write(w->p, 0, (uint32_t)k, w->pa + 390u * (unsigned)k, data, sizeof data), SIM_OK);
    for (int k = 0; k < 10; k++) {
        sim_cycle_t t = 10 * (sim_cycle_t)(k + 1) + 60; /* 390 B = 10 cycles each, in a row */
        assert_int_equal(pcie_dma_write_done(w->p, t - 1, &d), SIM_EAGAIN);
        assert_int_equal(pcie_dma_write_done(w->p, t, &d), SIM_OK);
        assert_int_equal(d.tag, (uint32_t)k);
    }
    assert_int_equal(pcie_counters(w->p)->up_wire_bytes, 3900);
}

static void pcie_tlp_overhead_is_charged_per_payload_chunk(void **state)
{
    struct world *w;
    struct pcie_config pc;
    uint8_t data[1000] = { 0 };
    struct pcie_wr_done d;

    pcie_config_default(&pc);
    pc.tlp_overhead = 24;
    assert_int_equal(setup_cfg(state, &pc), 0);
    w = *state;
    assert_int_equal(pcie_dma_write(w->p, 0, 1, w->pa, data, sizeof data), SIM_OK);
    /* 4 TLPs: 1000 + 4 * 24 = 1096 wire bytes = 29 cycles (ceil), + 60 */
    assert_int_equal(pcie_dma_write_done(w->p, 88, &d), SIM_EAGAIN);
    assert_int_equal(pcie_dma_write_done(w->p, 89, &d), SIM_OK);
    teardown(state);
}

static void pcie_mmio_write_is_posted_and_read_is_a_round_trip(void **state)
{
    struct world *w = *state;
    struct pcie_mmio m;
    unsigned tag;
    uint64_t v;

    assert_int_equal(pcie_mmio_write(w->p, 5, 0x100, 0xDEADBEEF, 4), SIM_OK);
    assert_int_equal(pcie_mmio_write(w->p, 5, 0x100, 1, 3), SIM_EINVAL);
    /* 5 + ceil(4 / 39) + 60 = 66 */
    assert_int_equal(pcie_mmio_pop(w->p, 65, &m), SIM_EAGAIN);
    assert_int_equal(pcie_mmio_pop(w->p, 66, &m), SIM_OK);
    assert_int_equal(m.kind, PCIE_MMIO_WRITE);
    assert_int_equal(m.addr, 0x100);
    assert_int_equal(m.data, 0xDEADBEEF);
    assert_int_equal(m.size, 4);

    assert_int_equal(pcie_mmio_read(w->p, 100, 0x8, 4, &tag), SIM_OK);
    /* request leg: 100 + 0 (header only, no overhead) + 160/2 = 180 */
    assert_int_equal(pcie_mmio_pop(w->p, 179, &m), SIM_EAGAIN);
    assert_int_equal(pcie_mmio_pop(w->p, 180, &m), SIM_OK);
    assert_int_equal(m.kind, PCIE_MMIO_READ);
    assert_int_equal(pcie_mmio_read_result(w->p, 181, tag, &v), SIM_EAGAIN);
    assert_int_equal(pcie_mmio_read_reply(w->p, 185, m.tag, 0x1234), SIM_OK);
    assert_int_equal(pcie_mmio_read_reply(w->p, 185, m.tag, 0x1234), SIM_ENOENT);
    /* completion leg: 185 + ceil(8 / 39) + 80 = 266 */
    assert_int_equal(pcie_mmio_read_result(w->p, 265, tag, &v), SIM_EAGAIN);
    assert_int_equal(pcie_mmio_read_result(w->p, 266, tag, &v), SIM_OK);
    assert_int_equal(v, 0x1234);
    assert_int_equal(pcie_mmio_read_result(w->p, 266, tag, &v), SIM_ENOENT);
}

static void pcie_msi_never_overtakes_earlier_dma_writes(void **state)
{
    struct world *w = *state;
    static uint8_t data[3900];
    uint8_t back[4];
    uint32_t vec;
    sim_cycle_t t;

    memset(data, 0x77, sizeof data);
    assert_int_equal(pcie_dma_write(w->p, 0, 1, w->pa + 4096, data, sizeof data), SIM_OK);
    assert_int_equal(pcie_irq(w->p, 1, 3), SIM_OK);
    for (t = 0; pcie_irq_pop(w->p, t, &vec) != SIM_OK; t++)
        assert_true(t < 1000);
    assert_int_equal(vec, 3);
    assert_true(t >= 160); /* the write lands at 100 + 60 */
    assert_int_equal(os_read(w->os, w->pid, VA + 4096 + 3899, back, 1), SIM_OK);
    assert_int_equal(back[0], 0x77);
}

static void pcie_oracle_errors_reach_the_nic(void **state)
{
    struct world *w = *state;
    uint32_t other;
    uint64_t upa;
    uint8_t data[16] = { 0 };
    static struct pcie_rd_beat b;
    struct pcie_wr_done d;
    sim_cycle_t t;

    assert_int_equal(os_proc_create(w->os, 32, &other), SIM_OK);
    assert_int_equal(os_touch(w->os, other, 0x5000, 1), SIM_OK);
    assert_int_equal(os_translate(w->os, other, 0x5000, &upa), SIM_OK);
    assert_int_equal(pcie_dma_read_req(w->p, 0, 4, upa, 64), SIM_OK);
    for (t = 0; pcie_dma_read_data(w->p, t, &b) != SIM_OK; t++)
        assert_true(t < 1000);
    assert_int_equal(t, 120); /* an error completion arrives when data would */
    assert_int_equal(b.status, SIM_EUNPINNED);
    assert_int_equal(b.len, 0);
    assert_true(b.last);
    assert_int_equal(pcie_dma_write(w->p, t, 6, 0x7FF000000ull, data, sizeof data), SIM_OK);
    for (; pcie_dma_write_done(w->p, t, &d) != SIM_OK; t++)
        assert_true(t < 2000);
    assert_int_equal(d.status, SIM_EBUS);
    assert_int_equal(pcie_counters(w->p)->dma_errors, 2);
    assert_int_equal(hostmem_counters(w->mem)->violations, 2);
}

static void pcie_queues_are_bounded(void **state)
{
    struct world *w;
    struct pcie_config pc;
    uint8_t data[8] = { 0 };
    unsigned tag;

    pcie_config_default(&pc);
    pc.queue_depth = 4;
    assert_int_equal(setup_cfg(state, &pc), 0);
    w = *state;
    for (int i = 0; i < 4; i++)
        assert_int_equal(pcie_dma_write(w->p, 0, 0, w->pa, data, sizeof data), SIM_OK);
    assert_int_equal(pcie_dma_write(w->p, 0, 0, w->pa, data, sizeof data), SIM_EFULL);
    assert_int_equal(pcie_dma_read_req(w->p, 0, 0, w->pa, 0), SIM_EINVAL);
    assert_int_equal(pcie_dma_read_req(w->p, 0, 0, w->pa, PCIE_MAX_XFER + 1), SIM_EINVAL);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pcie_mmio_read(w->p, 0, 0, 4, &tag), SIM_OK);
    assert_int_equal(pcie_mmio_read(w->p, 0, 0, 4, &tag), SIM_EFULL);
    assert_int_equal(pcie_counters(w->p)->full_rejects, 2);
    teardown(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pcie_dma_write_lands_at_serialization_plus_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(pcie_dma_read_beats_arrive_at_link_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(pcie_back_to_back_writes_share_the_link_bandwidth, setup, teardown),
        cmocka_unit_test(pcie_tlp_overhead_is_charged_per_payload_chunk),
        cmocka_unit_test_setup_teardown(pcie_mmio_write_is_posted_and_read_is_a_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(pcie_msi_never_overtakes_earlier_dma_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(pcie_oracle_errors_reach_the_nic, setup, teardown),
        cmocka_unit_test(pcie_queues_are_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
