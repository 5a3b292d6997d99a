/*
 * fw_nic_dma: the host DMA engine from firmware, against the host memory model (run by nicrun).
 *
 *   1-2   one 4 KiB read of the harness's pinned page, bytes checked against the pattern
 *   3-4   reads of many sizes and offsets (1 B .. 4 KiB), four in flight, completions in order
 *   5-7   4 KiB write of the inverted pattern, read back and checked (nicrun also checks host
 *         memory afterwards: testmb.value = FWTEST_VALUE_HOSTBUF_INVERTED)
 *   8-10  error completions: host bus error (no memory), SRAM range, bad length; err_count == 3
 *   11    a good transfer after the errors
 * Prints the cycles of a 4 KiB read and write (host round trip included): a figure, not a check.
 */
#include <string.h>

#include "fwtest_util.h"

#define PAGE 4096u

static uint8_t buf[PAGE] __attribute__((section(".pktbuf"), aligned(64)));
static uint8_t buf2[PAGE] __attribute__((section(".pktbuf"), aligned(64)));

static void dma_submit(const void *sram, uint64_t host, uint32_t len, int to_host, uint32_t tag)
{
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SRAM, FWT_SRAM_OFF(sram));
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_LO, (uint32_t)host);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_HI, (uint32_t)(host >> 32));
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SUBMIT,
           nic_bits(NIC_DMA_REQ_SUBMIT_LEN, len) | nic_bits(NIC_DMA_REQ_SUBMIT_TO_HOST, to_host) |
               nic_bits(NIC_DMA_REQ_SUBMIT_TAG, tag));
}

/* Waits (bounded) for the next completion; returns its err, checks its tag. */
static uint32_t dma_wait(uint32_t tag)
{
    uint32_t cpl;

    for (uint32_t spin = 0; !nic_field(nic_rd(NIC_DMA_BASE, NIC_DMA_STATUS), NIC_DMA_STATUS_CPL_COUNT); spin++)
        FWT_CHECK(spin < 1000000, 90, "DMA completion timeout");
    cpl = nic_rd(NIC_DMA_BASE, NIC_DMA_CPL_HEAD);
    nic_wr(NIC_DMA_BASE, NIC_DMA_CPL_POP, 1);
    FWT_CHECK(nic_field(cpl, NIC_DMA_CPL_HEAD_TAG) == (tag & 0xFFu), 91, "completion tag out of order");
    return nic_field(cpl, NIC_DMA_CPL_HEAD_ERR);
}

static int matches(const uint8_t *p, uint32_t off, uint32_t len, uint32_t node, uint8_t invert)
{
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != (uint8_t)(fwtest_pattern(off + i, node) ^ invert))
            return 0;
    return 1;
}

int main(void)
{
    static const uint32_t sizes[] = { 1, 3, 8, 13, 64, 255, 256, 257, 1000, 1500, 2048, 4095 };
    uint32_t node = FWT_ARGS->node_id;
    uint64_t host = fwt_u64(FWT_ARGS->host_buf_lo, FWT_ARGS->host_buf_hi);
    uint32_t t0, t_read, t_write, tag = 0;

    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && FWT_ARGS->host_buf_len >= PAGE, 1, "harness arguments");
    FWT_CHECK(nic_block_ok(DMA), 1, "dma block id/version");
    nic_wr(NIC_DMA_BASE, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);

    memset(buf, 0, PAGE);
    t0 = ncp_rdcycle();
    dma_submit(buf, host, PAGE, 0, ++tag);
    FWT_CHECK(dma_wait(tag) == 0, 2, "4 KiB read completed with an error");
    t_read = ncp_rdcycle() - t0;
    FWT_CHECK(matches(buf, 0, PAGE, node, 0), 2, "4 KiB read data");

    /* many sizes and offsets, up to four requests in flight */
    uint32_t off = 0, first = tag + 1, done = 0;
    memset(buf2, 0, PAGE);
    for (uint32_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t len = sizes[k], at = (off + k * 37u) % (PAGE - len + 1);
        dma_submit(buf2 + at, host + at, len, 0, ++tag);
        if (tag - first + 1 - done >= 4) {
            FWT_CHECK(dma_wait(first + done) == 0, 3, "read of one size failed");
            done++;
        }
        off = at + len;
    }
    while (first + done <= tag) {
        FWT_CHECK(dma_wait(first + done) == 0, 3, "read of one size failed");
        done++;
    }
    off = 0;
    for (uint32_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t len = sizes[k], at = (off + k * 37u) % (PAGE - len + 1);
        FWT_CHECK(matches(buf2 + at, at, len, node, 0), 4, "read data of one size");
        off = at + len;
    }

    for (uint32_t i = 0; i < PAGE; i++)
        buf[i] = (uint8_t)(fwtest_pattern(i, node) ^ 0xFFu);
    t0 = ncp_rdcycle();
    dma_submit(buf, host, PAGE, 1, ++tag);
    FWT_CHECK(dma_wait(tag) == 0, 5, "4 KiB write completed with an error");
    t_write = ncp_rdcycle() - t0;
    memset(buf2, 0, PAGE);
    dma_submit(buf2, host, PAGE, 0, ++tag);
    FWT_CHECK(dma_wait(tag) == 0, 6, "read-back completed with an error");
    FWT_CHECK(matches(buf2, 0, PAGE, node, 0xFF), 7, "read-back data");

    /* error paths: each completes with its code, nothing else is disturbed */
    uint32_t errs0 = nic_rd(NIC_DMA_BASE, NIC_DMA_ERR_COUNT);
    dma_submit(buf, fwt_u64(FWT_ARGS->nomem_lo, FWT_ARGS->nomem_hi), 64, 0, ++tag);
    FWT_CHECK(dma_wait(tag) == 1, 8, "read of unbacked host memory: expected host bus error");
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SRAM, NIC_SRAM_SIZE - 8);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_LO, (uint32_t)host);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_HI, (uint32_t)(host >> 32));
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SUBMIT,
           nic_bits(NIC_DMA_REQ_SUBMIT_LEN, 64) | nic_bits(NIC_DMA_REQ_SUBMIT_TAG, ++tag));
    FWT_CHECK(dma_wait(tag) == 2, 9, "SRAM range error expected");
    dma_submit(buf, host, 0x10001u, 0, ++tag);
    FWT_CHECK(dma_wait(tag) == 3, 10, "bad length error expected");
    FWT_CHECK(nic_rd(NIC_DMA_BASE, NIC_DMA_ERR_COUNT) - errs0 == 3, 10, "err_count");

    dma_submit(buf2, host + 100, 200, 0, ++tag);
    FWT_CHECK(dma_wait(tag) == 0 && matches(buf2, 100, 200, node, 0xFF), 11, "transfer after errors");

    printf("fw_nic_dma: node %lu: 4 KiB read %lu cycles, 4 KiB write %lu cycles (host round trip included)\n",
           (unsigned long)node, (unsigned long)t_read, (unsigned long)t_write);
    ncp_test_value(FWTEST_VALUE_HOSTBUF_INVERTED);
    return 0;
}
