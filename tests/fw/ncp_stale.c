/*
 * fw_ncp_stale: late responses of a flushed read never complete a later read (issue 18 item 1).
 *
 * Two nodes, every cache line installed first (imghost.c); node 0 reads from node 1's buffer 5.
 * R1 reads 256 KiB (64 segments). Node 0 flushes it (as an endpoint close does) once it has
 * received 30 of its segments; node 1 hangs for 2 ms after sending 40, so the rest of R1's response
 * (segments 40..63) is still to come. Meanwhile node 0 allocates and frees 127 operations (127 more
 * uses of R1's slot: with the old 7-bit generation the next op in that slot had R1's id again) and
 * posts R2, another 256 KiB read, into the same slot. Node 1 comes back and sends R1's remaining
 * segments, then R2's response, in sequence order. Checked: every late segment of R1 is discarded
 * and counted (stale_resps) before R2 completes, R2 completes SUCCESS with its own 64 segments, and
 * nothing is discarded after it (before the fix R2 took R1's 24 late segments as its own,
 * completed SUCCESS 24 segments early, and its own last 24 were discarded).
 */
#include "imghost.h"

#define VA_SRC 0x10000000ull /* node 0: 64 pages aliasing the host page; buffer 5 */
#define VA_DST 0x20000000ull /* node 1: the same */
#define BUF 5u
#define SEG 4096u
#define HANG 400000u /* 2 ms */
#define QUIET 400000u

static uint8_t page[4096] __attribute__((aligned(16)));

static void initiator(void)
{
    uint32_t start = hal_now(), rx0 = ih_stats().rx_packets;

    ih_post(NIC_OP_RDMA_READ, 64u * SEG, VA_SRC, 1, BUF, 0, 1);
    while (ih_stats().rx_packets - rx0 < 30u) {
        FWT_CHECK(hal_now() - start < 20000000u, 10, "R1's responses flow");
        ncp_run_once();
    }
    struct ncp_test_op op0 = ih_op(0);
    uint32_t r1 = op0.id;
    FWT_CHECK(op0.live && op0.kind == NIC_OP_RDMA_READ, 11, "R1 in slot 0");
    ncp_test_ep_flush(IH_EP); /* what EP_CLOSE does */
    FWT_CHECK(ih_ncqe == 1 && ih_cqe[0].status == NIC_ST_FLUSHED, 12, "R1 flushed");
    /* 127 more uses of the slot (operations that completed meanwhile) */
    for (uint32_t i = 0; i < 127u; i++) {
        uint32_t slot = ~0u, id = r1;
        FWT_CHECK(ncp_test_op_cycle(&slot, &id) && slot == 0 && id != r1, 13, "a new id for every use of the slot");
    }
    uint32_t stale0 = ih_stats().stale_resps;
    ih_post(NIC_OP_RDMA_READ, 64u * SEG, VA_SRC, 1, BUF, 0, 2);
    ih_run_until_cqes(2, 40000000u, 14);
    uint32_t stale_at_r2 = ih_stats().stale_resps - stale0;
    printf("node 0: R2 completed status %ld bytes %lu; late R1 segments discarded before it: %lu\n",
           (long)ih_cqe[1].status, (unsigned long)ih_cqe[1].bytes, (unsigned long)stale_at_r2);
    FWT_CHECK(ih_cqe[1].status == NIC_ST_OK && ih_cqe[1].bytes == 64u * SEG, 15, "R2 SUCCESS");
    FWT_CHECK(stale_at_r2 >= 24u, 16, "R1's late segments discarded, not taken by R2");
    ih_read_host_page(page);
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(page[j] == fwtest_pattern(j, 1), 18, "node 0's page holds what it read from node 1");
    ih_run_for(QUIET);
    FWT_CHECK(ih_stats().stale_resps - stale0 == stale_at_r2 && ih_ncqe == 2, 17,
              "nothing of R2 came after its completion");
}

static void target(void)
{
    uint32_t start = hal_now(), last = 0, rx = 0, gen0 = ih_resp().started;
    int hung = 0;

    for (;;) {
        FWT_CHECK(hal_now() - start < 100000000u, 40, "target did not finish");
        ih_step(5000u);
        struct ncp_test_resp r = ih_resp();
        if (!hung && r.active && r.sent >= 40u * SEG) {
            ih_hang(HANG);
            hung = 1;
        }
        if (ih_stats().rx_packets != rx) {
            rx = ih_stats().rx_packets;
            last = hal_now();
        }
        r = ih_resp();
        if (r.started - gen0 == 2u && !r.active && hal_now() - last > QUIET)
            break; /* both responses served and acknowledged, the link quiet */
    }
    FWT_CHECK(hung, 41, "node 1 hung in R1's response");
}

int main(void)
{
    ih_boot();
    ih_install_vmh(ih_me == 0 ? VA_SRC : VA_DST, ~0u);
    ih_install_buffer(BUF, ih_me == 0 ? VA_SRC : VA_DST, 64u * SEG);
    if (ih_me == 0)
        initiator();
    else if (ih_me == 1)
        target();
    return 0;
}
