/*
 * fw_nic_unpinned: a DMA write to a host page that is not pinned for this NIC. nicrun runs it with
 * --expect-oracle: the host memory model must refuse the write and name the page, process and
 * address; the NIC must see an error completion (host bus error), not silence.
 */
#include "fwtest_util.h"

static uint8_t buf[64] __attribute__((section(".pktbuf"), aligned(64)));

int main(void)
{
    uint64_t bad = fwt_u64(FWT_ARGS->unpinned_lo, FWT_ARGS->unpinned_hi);
    uint32_t cpl;

    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC, 1, "harness arguments");
    nic_wr(NIC_DMA_BASE, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SRAM, FWT_SRAM_OFF(buf));
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_LO, (uint32_t)bad);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_HI, (uint32_t)(bad >> 32));
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SUBMIT,
           nic_bits(NIC_DMA_REQ_SUBMIT_LEN, sizeof buf) | nic_bits(NIC_DMA_REQ_SUBMIT_TO_HOST, 1));
    for (uint32_t spin = 0; !nic_field(nic_rd(NIC_DMA_BASE, NIC_DMA_STATUS), NIC_DMA_STATUS_CPL_COUNT); spin++)
        FWT_CHECK(spin < 1000000, 2, "no completion");
    cpl = nic_rd(NIC_DMA_BASE, NIC_DMA_CPL_HEAD);
    FWT_CHECK(nic_field(cpl, NIC_DMA_CPL_HEAD_ERR) == 1, 3, "write to an unpinned page did not fail");
    return 0;
}
