/*
 * fw_ncp_bench_fast: the NCP's fast-path cost per packet, send and receive, every lookup hitting,
 * at steady state (docs/firmware.md "Fast path"). A benchmark, not a timed test: it prints the
 * figures and fails only if an operation does not complete correctly.
 * Run: build/bin/nicrun --nodes 2 build/fw/fw_ncp_bench_fast.img
 *
 * Like fw_ncp_rdma, the image plays the host (tests/fw/imghost.c: INIT and EP_OPEN, send queue
 * entries + their doorbell, completions through the CQ hook). Before any traffic both nodes
 * install every cache line the run needs (as FILL does), so no lookup misses. Virtual pages alias
 * the one pinned host page. Node 0 streams operations of 64 KiB (16 segments of 4 KiB) to node 1,
 * OPS_IN_FLIGHT at a time, in phases:
 *   warm-up   4 aligned writes (not reported)
 *   A         16 aligned RDMA writes: 256 packets, one DMA piece each (page-aligned both sides)
 *   B         16 unaligned RDMA writes (local +1000, remote +100): two DMA pieces per packet
 *   C         16 aligned RDMA reads: node 1 sends the read responses, node 0 receives them
 * Each node prints, per phase, for the packets it sent (FP_TX) and received (FP_RX): median, max
 * and mean cycles per packet (samples: firmware/src/ncp_test.h, struct ncp_test_fp), plus stand-alone ACK
 * frames, and the core's busy cycles (not in wfi) per packet delivered over the phase (this one
 * includes the loop's polling, duplicates and retransmissions: when the receiver is slower than
 * the link its MAC ring overflows and go-back-N resends). Node 1 follows the phases by counting
 * the packets it delivered/sent. Send samples include retransmissions (same path).
 */
#include "imghost.h"

#define VA_SRC 0x10000000ull /* node 0, pid 1: 64 pages (one VMH line) aliasing the host page */
#define VA_DST 0x20000000ull /* node 1, pid 1: the same (buffer 5 covers them) */
#define BUF 5u
#define OP_BYTES 65536u
#define PKTS_PER_OP (OP_BYTES / NCP_MTU)
#define PHASE_OPS 16u
#define WARM_OPS 4u
#define OPS_IN_FLIGHT 4u
#define QUIET 400000u

static uint32_t busy, idle;

/* One pass of the loop; the time asleep is idle, the rest busy. A pass that completed an
 * operation returns without sleeping: the initiator posts the next one. */
static void step(void)
{
    uint32_t t0 = ncp_rdcycle(), n = ih_ncqe;
    ncp_run_once();
    uint32_t t1 = ncp_rdcycle();
    if (ih_ncqe == n)
        hal_sleep();
    uint32_t t2 = ncp_rdcycle();
    busy += t1 - t0;
    idle += t2 - t1;
}

static void reset_stats(void)
{
    ncp_test_fp_reset();
    busy = idle = 0;
}

static int cmp16(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static void report(const char *phase)
{
    static const char *const name[NCP_TEST_FP__N] = {"send", "receive", "ack"};
    static struct ncp_test_fp fp;
    uint16_t *tmp = fp.s;
    uint32_t pk = ncp_test_fp_count(NCP_TEST_FP_TX) + ncp_test_fp_count(NCP_TEST_FP_RX), pr[3];

    for (unsigned k = 0; k < NCP_TEST_FP__N; k++) {
        const struct ncp_test_fp *f = &fp;
        ncp_test_fp(k, &fp);
        if (!f->n)
            continue;
        uint32_t m = f->n < NCP_TEST_FP_RING ? f->n : NCP_TEST_FP_RING;
        qsort(tmp, m, sizeof tmp[0], cmp16);
        printf("node %lu phase %s: %-7s %4lu %s: median %4u max %4lu mean %4lu cycles/%s\n", (unsigned long)ih_me,
               phase, name[k], (unsigned long)f->n, k == NCP_TEST_FP_ACK ? "frames " : "packets", tmp[m / 2],
               (unsigned long)f->max, (unsigned long)(f->sum / f->n), k == NCP_TEST_FP_ACK ? "ACK" : "packet");
    }
    for (unsigned i = 0; ncp_test_prof(i, pr); i++) /* configured with -DNCP_PROFILE=ON */
        if (pr[2])
            printf("node %lu profile %u: %lu cycles %lu instructions (%lu)\n", (unsigned long)ih_me, i,
                   (unsigned long)(pr[0] / pr[2]), (unsigned long)(pr[1] / pr[2]), (unsigned long)pr[2]);
    if (pk)
        printf("node %lu phase %s: core busy %lu cycles/packet (busy %lu, asleep %lu)\n", (unsigned long)ih_me, phase,
               (unsigned long)(busy / pk), (unsigned long)busy, (unsigned long)idle);
}

static uint32_t issued, checked;

/* Initiator: `ops` operations, OPS_IN_FLIGHT at a time. */
static void stream(uint8_t op, uint32_t ops, uint32_t loff, uint32_t roff)
{
    uint32_t start = ih_ncqe, posted = 0, t = hal_now();
    while (ih_ncqe - start < ops) {
        while (posted < ops && posted - (ih_ncqe - start) < OPS_IN_FLIGHT) {
            ih_post(op, OP_BYTES, VA_SRC + loff + (issued % 2u) * OP_BYTES, 1, BUF, roff + (issued % 2u) * OP_BYTES,
                     issued);
            posted++;
            issued++;
        }
        FWT_CHECK(hal_now() - t < 100000000u, 10, "operations did not complete");
        step();
        for (; checked < ih_ncqe; checked++) { /* at most OPS_IN_FLIGHT since the last look */
            const struct nic_cqe *c = &ih_cqe[checked % IH_NCQE];
            FWT_CHECK(c->status == NIC_ST_OK && c->bytes == OP_BYTES, 21, "completion");
        }
    }
}

static void initiator(void)
{
    stream(NIC_OP_RDMA_WRITE, WARM_OPS, 0, 0);
    reset_stats();
    stream(NIC_OP_RDMA_WRITE, PHASE_OPS, 0, 0);
    report("A (aligned write)");
    reset_stats();
    stream(NIC_OP_RDMA_WRITE, PHASE_OPS, 1000, 100);
    report("B (unaligned write)");
    reset_stats();
    stream(NIC_OP_RDMA_READ, PHASE_OPS, 0, 0);
    report("C (aligned read)");
    struct xport_stats st;
    struct nic_stats s;
    ncp_test_peer_stats(1, &st);
    ncp_test_stats(&s);
    printf("node 0: retransmits %lu timeouts %lu nacks received %lu (a receiver slower than the link drops frames)\n",
           (unsigned long)st.retransmits, (unsigned long)st.timeouts, (unsigned long)s.nacks_received);
}

/* Target: follows the phases by the packets it delivered (A, B) and sent (C). */
static void target(void)
{
    const uint32_t n = PHASE_OPS * PKTS_PER_OP;
    uint32_t t = hal_now();

    while (ncp_test_fp_count(NCP_TEST_FP_RX) < WARM_OPS * PKTS_PER_OP) {
        FWT_CHECK(hal_now() - t < 100000000u, 40, "warm-up");
        step();
    }
    reset_stats();
    while (ncp_test_fp_count(NCP_TEST_FP_RX) < n) {
        FWT_CHECK(hal_now() - t < 100000000u, 41, "phase A");
        step();
    }
    report("A (aligned write)");
    reset_stats();
    while (ncp_test_fp_count(NCP_TEST_FP_RX) < n) {
        FWT_CHECK(hal_now() - t < 100000000u, 42, "phase B");
        step();
    }
    report("B (unaligned write)");
    reset_stats();
    while (ncp_test_fp_count(NCP_TEST_FP_TX) < n) {
        FWT_CHECK(hal_now() - t < 100000000u, 43, "phase C");
        step();
    }
    report("C (aligned read)");
    static struct nic_stats s;
    ncp_test_stats(&s);
    uint32_t last = hal_now(), rx = s.rx_packets;
    while (hal_now() - last < QUIET) { /* the initiator's last ACKs */
        ncp_test_stats(&s);
        if (s.rx_packets != rx) {
            rx = s.rx_packets;
            last = hal_now();
        }
        ncp_run_once();
        hal_timer_at(hal_now() + 5000u);
        hal_sleep();
    }
}

int main(void)
{
    ih_boot();
    uint32_t vmh_per_line = ncp_test_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry);
    uint64_t base = ih_me == 0 ? VA_SRC : VA_DST;
    for (uint32_t p = 0; p < 64u; p += vmh_per_line)
        ih_install_vmh(base + p * 4096u, ~0u);
    ih_install_buffer(BUF, VA_DST, 64u * 4096u); /* node 1's buffer; both: the local buffer, pid 1's endpoint */
    if (ih_me == 0)
        initiator();
    else if (ih_me == 1)
        target();
    return 0;
}
