/*
 * fw_ncp_void: a VOID packet never completes an operation SUCCESS (issue 18 item 2).
 *
 * Two nodes, every cache line installed first (imghost.c). Node 1's receiver is off for 1 ms,
 * so every segment of node 0's 128 KiB write W1 is lost. Once all 32 are sent, node 0's source
 * pages are deregistered (the VMH line invalidated and refilled with no valid page, what the
 * driver does at deregistration). Its retransmissions cannot load the data: they go VOID, which
 * node 1 accepts and acknowledges without writing. Checked: W1 completes NIC_ST_BAD_HANDLE (not
 * SUCCESS), counted in void_fails and local_denied; node 1's host page is untouched.
 * Before the fix W1 completed SUCCESS with all bytes counted and none delivered.
 */
#include <string.h>

#include "imghost.h"

#define VA_SRC 0x10000000ull /* node 0: 64 pages aliasing the host page */
#define VA_DST 0x20000000ull /* node 1: buffer 5 */
#define BUF 5u
#define SEG 4096u
#define RX_OFF 200000u /* 1 ms */
#define QUIET 400000u

static uint8_t page[4096] __attribute__((aligned(16)));

static void initiator(void)
{
    uint32_t start = hal_now(), n = ncp_test_line_bytes(NIC_CACHE_VMH) / sizeof(struct nic_vmh_entry);

    ih_run_for(20000u); /* node 1's receiver is off by now */
    ih_post(NIC_OP_RDMA_WRITE, 32u * SEG, VA_SRC, 1, BUF, 0, 1);
    while (!(ih_op(0).live && ih_op(0).sent == 32u * SEG)) {
        FWT_CHECK(hal_now() - start < RX_OFF, 10, "W1 sent while node 1's receiver is off");
        ncp_run_once();
    }
    /* deregistration: the line goes, and comes back without a valid page */
    ncp_test_invalidate(NIC_CACHE_VMH, IH_PID, (uint32_t)(VA_SRC >> 12) / n, 1);
    memset(ih_image, 0, sizeof ih_image);
    ih_install(NIC_CACHE_VMH, (uint32_t)(VA_SRC >> 12) / n);
    ih_run_until_cqes(1, 40000000u, 11);
    printf("node 0: W1 completed status %ld bytes %lu; void_fails %lu local_denied %lu retransmits %lu\n",
           (long)ih_cqe[0].status, (unsigned long)ih_cqe[0].bytes, (unsigned long)ih_stats().void_fails,
           (unsigned long)ih_stats().local_denied, (unsigned long)ih_stats().retransmits);
    FWT_CHECK(ih_cqe[0].status == NIC_ST_BAD_HANDLE, 12, "W1 fails: its resends carried no data");
    FWT_CHECK(ih_cqe[0].bytes == 0, 14, "a failed write claims no bytes");
    FWT_CHECK(ih_stats().void_fails == 1 && ih_stats().local_denied >= 1, 13, "counted");
    ih_run_for(QUIET);
}

static void target(void)
{
    uint32_t start = hal_now(), last = hal_now(), rx = 0;

    ih_mac_rx(0);
    while (hal_now() - start < RX_OFF)
        ih_step(5000u);
    ih_mac_rx(1);
    for (;;) {
        FWT_CHECK(hal_now() - start < 60000000u, 40, "target did not finish");
        ih_step(5000u);
        if (ih_stats().rx_packets != rx) {
            rx = ih_stats().rx_packets;
            last = hal_now();
        }
        if (rx >= 32u && hal_now() - last > QUIET)
            break;
    }
    ih_read_host_page(page);
    for (uint32_t j = 0; j < 4096; j++)
        FWT_CHECK(page[j] == fwtest_pattern(j, 1), 41, "node 1's page untouched: no byte of W1 delivered");
    printf("node 1: %lu packets accepted, page untouched\n", (unsigned long)rx);
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
