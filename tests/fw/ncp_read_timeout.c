/*
 * fw_ncp_read_timeout: an initiator's RDMA read whose responses stop coming completes with
 * NIC_ST_UNREACHABLE instead of staying outstanding (docs/firmware.md "Read timeout").
 *
 * Two nodes, every cache line installed first (imghost.c); node 0 reads from node 1's buffer 5.
 * T = ncp_test_read_timeout() (78.6 ms).
 *
 * 1. The responder hangs. R1 reads 256 KiB (64 segments, twice the window); once node 1 has sent
 *    40 segments (so node 0 acknowledged the request and data flows), node 1 stops running its NCP
 *    for 1.3 T (no interrupt source wakes its core). Node 0 must complete R1 with UNREACHABLE between
 *    T and 1.25 T after the last frame it got (the check samples progress every T / 4) and count one
 *    read timeout. Node 1 comes back, sends the rest of R1's response: node 0 discards it (counted in
 *    drops_bad, no second completion), and a new read R2 works.
 * 2. The responder gives up on us. R3 reads 64 KiB; once its request is acknowledged, node 0 turns
 *    its MAC receiver off for 45 ms, longer than node 1 retries before giving up (<= 40 ms here with
 *    a fresh backoff), so node 1's connection gives up with R3's segments in its window. It sends
 *    them again as void packets carrying NIC_ST_UNREACHABLE; the first that gets through once the
 *    receiver is back fails R3 at once, well before T (not by the timer: the read-timeout count
 *    stays at 1). Node 1's response slot is freed when they are acknowledged.
 * Before the fix R1 completed only when node 1 came back, with success (check 11); R3 completed
 * with success (its lost segments counted as sent) or not at all.
 */
#include "imghost.h"

#define VA_SRC 0x10000000ull /* node 0: 64 pages aliasing the host page; buffer 5 */
#define VA_DST 0x20000000ull /* node 1: the same */
#define BUF 5u
#define SEG 4096u
#define RX_OFF 9000000u /* 45 ms */
#define QUIET 400000u

static uint32_t to; /* ncp_test_read_timeout() */
static uint8_t page[4096] __attribute__((aligned(16)));

static void initiator(void)
{
    /* 1: the responder hangs in the middle of R1's response */
    uint32_t start = hal_now(), last = start, rx = ih_stats().rx_packets;
    ih_post(NIC_OP_RDMA_READ, 64u * SEG, VA_SRC, 1, BUF, 0, 1);
    while (ih_ncqe < 1) {
        FWT_CHECK(hal_now() - start < 4u * to, 10, "R1 never completed: the hung responder's read stays outstanding");
        ih_step(5000u);
        if (ih_stats().rx_packets != rx) {
            rx = ih_stats().rx_packets;
            last = hal_now();
        }
    }
    uint32_t waited = ih_cqe_at[0] - last;
    printf("node 0: R1 completed status %ld bytes %lu, %lu cycles after the last frame (T = %lu)\n",
           (long)ih_cqe[0].status, (unsigned long)ih_cqe[0].bytes, (unsigned long)waited, (unsigned long)to);
    FWT_CHECK(ih_cqe[0].status == NIC_ST_UNREACHABLE, 11, "R1 status");
    printf("node 0: %lu frames received\n", (unsigned long)ih_stats().rx_packets);
    FWT_CHECK(ih_stats().rx_packets >= 32u && ih_stats().rx_packets < 64u, 12, "R1 got part of its responses");
    FWT_CHECK(waited + 10000u >= to && waited <= to + to / 4u + 10000u, 13, "R1 failed after T, within T / 4");
    FWT_CHECK(ih_counters().read_timeouts == 1, 14, "one read timeout counted");
    /* node 1 comes back (1.3 T after it stopped): the rest of R1's response is discarded */
    uint32_t bad = ih_stats().stale_resps;
    ih_run_for(to / 2u);
    FWT_CHECK(ih_stats().stale_resps > bad && ih_ncqe == 1, 15, "R1's late responses discarded, no second completion");
    printf("node 0: %lu late responses of R1 discarded\n", (unsigned long)(ih_stats().stale_resps - bad));
    ih_post(NIC_OP_RDMA_READ, SEG, VA_SRC + SEG, 1, BUF, 5u * SEG, 2);
    ih_run_until_cqes(2, to, 16);
    FWT_CHECK(ih_cqe[1].status == NIC_ST_OK && ih_cqe[1].bytes == SEG, 17, "R2 after the responder came back");
    ih_read_host_page(page);
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(page[j] == fwtest_pattern(j, 1), 18, "node 0's page holds what it read from node 1");

    /* 2: the responder gives up on us: its next packet's RESYNC fails R3 at once */
    uint32_t resyncs = ih_peer(1).resyncs;
    start = hal_now();
    ih_post(NIC_OP_RDMA_READ, 16u * SEG, VA_SRC, 1, BUF, 0, 3);
    while (!ncp_test_reads_awaiting()) {
        FWT_CHECK(hal_now() - start < to && ih_ncqe == 2, 20, "R3's request acknowledged");
        ncp_run_once();
    }
    uint32_t off = hal_now();
    ih_mac_rx(0);
    while (hal_now() - off < RX_OFF)
        ih_step(5000u);
    ih_mac_rx(1);
    FWT_CHECK(ih_ncqe == 2, 21, "R3 still outstanding while the receiver was off");
    ih_run_until_cqes(3, to, 22);
    printf("node 0: R3 completed status %ld bytes %lu, %lu cycles after the receiver went off\n",
           (long)ih_cqe[2].status, (unsigned long)ih_cqe[2].bytes, (unsigned long)(ih_cqe_at[2] - off));
    FWT_CHECK(ih_cqe[2].status == NIC_ST_UNREACHABLE, 23, "R3 status");
    FWT_CHECK(ih_cqe_at[2] - off < to && ih_counters().read_timeouts == 1, 24, "R3 failed by the void responses, before T");
    FWT_CHECK(ih_peer(1).resyncs > resyncs, 25, "node 1 resynchronised");
    ih_run_for(QUIET); /* the rest of node 1's void responses are acknowledged */
}

static void target(void)
{
    uint32_t start = hal_now(), last = 0, rx = 0;
    int hung = 0;

    for (;;) {
        FWT_CHECK(hal_now() - start < 8u * to, 40, "target did not finish");
        ih_step(5000u);
        struct ncp_test_resp r = ih_resp();
        if (!hung && r.active && r.sent >= 40u * SEG) {
            printf("node 1: hangs for 1.3 T\n");
            ih_hang(to + to * 3u / 10u);
            hung = 1;
        }
        if (ih_stats().rx_packets != rx) {
            rx = ih_stats().rx_packets;
            last = hal_now();
        }
        if (ih_counters().giveups && !ih_resp().active && hal_now() - last > QUIET)
            break; /* gave up, sent the lost segments of R3 again, and they were acknowledged */
    }
    FWT_CHECK(hung && ih_counters().giveups == 1, 41, "one give-up, after the hang");
    printf("node 1: done; giveups %lu timeouts %lu\n", (unsigned long)ih_counters().giveups, (unsigned long)ih_stats().timeouts);
}

int main(void)
{
    ih_boot();
    to = ncp_test_read_timeout();
    ih_install_vmh(ih_me == 0 ? VA_SRC : VA_DST, ~0u);
    ih_install_buffer(BUF, ih_me == 0 ? VA_SRC : VA_DST, 64u * SEG);
    if (ih_me == 0)
        initiator();
    else if (ih_me == 1)
        target();
    return 0;
}
