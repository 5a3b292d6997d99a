/*
 * fw_ncp_dma_errors: a host DMA error while the NCP loads a packet's data from host memory must not
 * put that packet's frame buffer on the wire (it holds the previous packet's bytes): the packet goes
 * as VOID and the operation fails NIC_ST_HOST_ERROR (docs/firmware.md "Host DMA errors").
 *
 * Two nodes, every cache line installed first (imghost.c); virtual pages alias the pinned host
 * page, except one page per node that maps to a frame with no memory (nicrun's "nomem" address:
 * the DMA ends with a host bus error, reported to the NIC). p0(j) / p1(j) = the pattern nicrun put
 * in node 0's / node 1's page.
 *
 * Node 0 (initiator), RDMA writes to node 1's buffer 5, then RDMA reads from it:
 *   W2  12 KiB from local pages 9, 10 (no memory), 11 to offset 0: HOST_ERROR; node 1's page now
 *       holds p0 (the two good segments)
 *   W0  1 KiB from local +512 to offset 2048: OK (and leaves p0(512 + i) in the frame buffer)
 *   W1  1 KiB from local page 10 (no memory) to offset 0: HOST_ERROR, node 1's [0, 1024) unchanged
 *   R2  12 KiB from remote pages 19, 20 (no memory at node 1), 21 into local page 3: HOST_ERROR
 *   R0  1 KiB from remote offset 1024 into local +2048: OK (node 1's frame buffer: those bytes)
 *   R1  1 KiB from remote page 20 (no memory) into local +0: HOST_ERROR, local [0, 1024) unchanged
 * and checks its page: [0, 2048) and [3072, 4096) hold node 1's page (R2's good segments), [2048,
 * 3072) what R0 read. Node 1 (target) serves, then checks its page: p0 except [2048, 3072) =
 * p0(512 + i). Before the fix W1 and R1 delivered the stale frame bytes with a success (or, for a
 * read response, NIC_ST_RIGHTS) status.
 */
#include "imghost.h"

#define VA_SRC 0x10000000ull /* node 0: 64 pages, page 10 without memory */
#define VA_DST 0x20000000ull /* node 1: 64 pages, page 20 without memory; buffer 5 */
#define BAD_SRC 10u
#define BAD_DST 20u
#define BUF 5u
#define LIMIT 20000000u
#define QUIET 400000u

static uint8_t page[4096] __attribute__((aligned(16)));

/* Posts one request and waits for its completion; returns it. */
static const struct nic_cqe *xfer(uint8_t op, uint32_t len, uint64_t laddr, uint64_t roff, uint32_t wr)
{
    uint32_t n = ih_ncqe;
    ih_post(op, len, laddr, 1, BUF, roff, wr);
    ih_run_until_cqes(n + 1, LIMIT, 10);
    const struct nic_cqe *c = &ih_cqe[n];
    printf("node 0: %s wr %lu: status %ld bytes %lu\n", op == NIC_OP_RDMA_WRITE ? "write" : "read",
           (unsigned long)c->wr_id_lo, (long)c->status, (unsigned long)c->bytes);
    FWT_CHECK(c->wr_id_lo == wr, 11, "completion order");
    ih_run_for(20000); /* the frames it used are back in the pool: the next packet takes frame 0 */
    return c;
}

static void initiator(void)
{
    uint32_t err0 = ih_counters().dma_errors;

    FWT_CHECK(xfer(NIC_OP_RDMA_WRITE, 3 * 4096, VA_SRC + 9 * 4096, 0, 2)->status == NIC_ST_HOST_ERROR, 12,
              "W2: a write whose middle segment cannot be loaded fails HOST_ERROR");
    FWT_CHECK(xfer(NIC_OP_RDMA_WRITE, 1024, VA_SRC + 512, 2048, 0)->status == NIC_ST_OK, 13, "W0");
    FWT_CHECK(xfer(NIC_OP_RDMA_WRITE, 1024, VA_SRC + BAD_SRC * 4096, 0, 1)->status == NIC_ST_HOST_ERROR, 14,
              "W1: a write that cannot be loaded fails HOST_ERROR");
    FWT_CHECK(ih_counters().dma_errors - err0 >= 2, 15, "the DMA errors were counted");
    FWT_CHECK(xfer(NIC_OP_RDMA_READ, 3 * 4096, VA_SRC + 3 * 4096, 19 * 4096, 12)->status == NIC_ST_HOST_ERROR, 16,
              "R2: a read whose responder cannot load a middle segment fails HOST_ERROR");
    FWT_CHECK(xfer(NIC_OP_RDMA_READ, 1024, VA_SRC + 2048, 1024, 10)->status == NIC_ST_OK, 17, "R0");
    FWT_CHECK(xfer(NIC_OP_RDMA_READ, 1024, VA_SRC, BAD_DST * 4096, 11)->status == NIC_ST_HOST_ERROR, 18,
              "R1: a read whose responder cannot load the data fails HOST_ERROR");
    ih_read_host_page(page);
    for (uint32_t j = 0; j < 4096; j++) {
        uint8_t want = j >= 2048 && j < 3072 ? fwtest_pattern(j - 2048 + 1024, 0) : fwtest_pattern(j, 0);
        if (page[j] != want)
            printf("node 0: byte %lu is 0x%02x, expected 0x%02x\n", (unsigned long)j, page[j], want);
        FWT_CHECK(page[j] == want, 19, "node 0's page: no stale frame bytes written by a failed read");
    }
    printf("node 0: verified; dma_errors %lu\n", (unsigned long)ih_counters().dma_errors);
}

static void target(void)
{
    struct ncp_test_resp r;
    ncp_test_responder(&r);
    uint32_t start = hal_now(), last = hal_now(), rx = 0, served, gen0 = r.started;

    for (;;) {
        FWT_CHECK(hal_now() - start < 10u * LIMIT, 40, "target did not finish");
        ih_step(5000u);
        if (ih_stats().rx_packets != rx) {
            rx = ih_stats().rx_packets;
            last = hal_now();
        }
        ncp_test_responder(&r);
        served = r.started - gen0 + 1000u * r.active; /* responses started, those still served */
        if (served == 3 && hal_now() - last > QUIET)
            break; /* the three read responses were served and acknowledged, and the link is quiet */
    }
    FWT_CHECK(ih_counters().dma_errors >= 2, 41, "the responder's DMA errors were counted");
    ih_read_host_page(page);
    for (uint32_t j = 0; j < 4096; j++) {
        uint8_t want = j >= 2048 && j < 3072 ? fwtest_pattern(j - 2048 + 512, 0) : fwtest_pattern(j, 0);
        if (page[j] != want)
            printf("node 1: byte %lu is 0x%02x, expected 0x%02x\n", (unsigned long)j, page[j], want);
        FWT_CHECK(page[j] == want, 42, "node 1's page: no stale frame bytes written by a failed write");
    }
    printf("node 1: verified; dma_errors %lu\n", (unsigned long)ih_counters().dma_errors);
}

int main(void)
{
    ih_boot();
    if (ih_me == 0) {
        ih_install_vmh(VA_SRC, BAD_SRC);
        ih_install_buffer(BUF, VA_SRC, 64u * 4096u); /* its CBH line: the local buffer (IH_LBUF) too */
        initiator();
    } else if (ih_me == 1) {
        ih_install_vmh(VA_DST, BAD_DST);
        ih_install_buffer(BUF, VA_DST, 64u * 4096u);
        target();
    }
    return 0;
}
