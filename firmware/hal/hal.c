/*
 * hal.c - register-level implementation of hal.h. Role map: boot checks, the event top half
 * (intc acknowledge), sleep, timer, DMA submit/complete, MAC TX/RX ring, doorbell FIFO.
 */
#include "hal.h"

#include <stddef.h>

struct hal_block {
    uint32_t base, id, major;
};

#define HAL_BLOCK(B) {NIC_##B##_BASE, NIC_##B##_ID_VALUE, NIC_##B##_VERSION_MAJOR}

static const struct hal_block hal_blocks[] = {
    HAL_BLOCK(HOSTIF), HAL_BLOCK(INTC), HAL_BLOCK(TIMER), HAL_BLOCK(DMA),
    HAL_BLOCK(MAC),    HAL_BLOCK(PERF), HAL_BLOCK(CONSOLE), HAL_BLOCK(DOORBELL),
};

int hal_check_blocks(void)
{
    for (size_t i = 0; i < sizeof hal_blocks / sizeof hal_blocks[0]; i++) {
        const struct hal_block *b = &hal_blocks[i];
        if (nic_rd(b->base, NIC_BLOCK_ID) != b->id || nic_rd(b->base, NIC_BLOCK_VERSION) >> 16 != b->major)
            return (int)i;
    }
    return -1;
}

static uint32_t hal_enabled; /* intc.enable as hal_init wrote it (only hal_init writes it) */

void hal_init(uint32_t events)
{
    hal_timer_off();
    nic_wr(NIC_DMA_BASE, NIC_DMA_CTRL, NIC_DMA_CTRL_ENABLE_MASK);
    nic_wr(NIC_INTC_BASE, NIC_INTC_ENABLE, events);
    hal_enabled = events;
    /* MIE = 0: interrupts never trap; wfi wakes on MEIP (intc) and MTIP (timer) */
    __asm__ volatile("csrci mstatus, 8\n\tcsrw mie, %0" ::"r"((1u << 11) | (1u << 7)));
}

uint32_t hal_take_events(void)
{
    uint32_t p = nic_rd(NIC_INTC_BASE, NIC_INTC_PENDING);
    if (p)
        nic_wr(NIC_INTC_BASE, NIC_INTC_ACK, p);
    return p;
}

void hal_sleep(void)
{
    if (!(nic_rd(NIC_INTC_BASE, NIC_INTC_PENDING) & hal_enabled))
        __asm__ volatile("wfi");
}

void hal_timer_at(uint32_t deadline)
{
    uint32_t now = hal_now();
    uint32_t hi = nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_HI);

    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, 0xFFFFFFFFu); /* no spurious match while updating */
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_LO, deadline);
    /* a deadline numerically below now (but in the future, wrap-safe) lies in the next epoch */
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, hi + (deadline < now && (int32_t)(deadline - now) > 0));
}

void hal_timer_off(void)
{
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, 0xFFFFFFFFu);
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_LO, 0xFFFFFFFFu);
}

void hal_mac_rx_init(volatile uint32_t *ring, uint32_t log2n, const uint8_t *bufs, uint32_t buf_size)
{
    for (uint32_t i = 0; i < (1u << log2n); i++) {
        ring[i * NIC_RXDESC_WORDS + NIC_RXDESC_BUF_IDX] = HAL_SRAM_OFF(bufs + i * buf_size);
        ring[i * NIC_RXDESC_WORDS + NIC_RXDESC_STATUS_IDX] = 0;
    }
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_RING, HAL_SRAM_OFF((const void *)ring));
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_CFG,
           nic_bits(NIC_MAC_RX_CFG_ENTRIES_LOG2, log2n) | nic_bits(NIC_MAC_RX_CFG_BUF_SIZE, buf_size));
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_TAIL, nic_rd(NIC_MAC_BASE, NIC_MAC_RX_HEAD));
    nic_wr(NIC_MAC_BASE, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK | NIC_MAC_CTRL_RX_ENABLE_MASK);
}

uint16_t hal_node_id(void)
{
    return (uint16_t)nic_rd(NIC_MAC_BASE, NIC_MAC_NODE_ID);
}

uint32_t hal_mac_link_bits(void)
{
    return nic_field(nic_rd(NIC_MAC_BASE, NIC_MAC_LINK_RATE), NIC_MAC_LINK_RATE_BITS);
}

void hal_mac_tx_ct(uint32_t thresh)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_CT, nic_bits(NIC_MAC_TX_CT_THRESH, thresh));
}

int hal_db_pop(uint32_t *page, uint32_t *offset, uint32_t *data)
{
    if (!nic_field(nic_rd(NIC_DOORBELL_BASE, NIC_DOORBELL_STATUS), NIC_DOORBELL_STATUS_COUNT))
        return 0;
    uint32_t src = nic_rd(NIC_DOORBELL_BASE, NIC_DOORBELL_HEAD_SRC);
    *data = nic_rd(NIC_DOORBELL_BASE, NIC_DOORBELL_HEAD_DATA);
    nic_wr(NIC_DOORBELL_BASE, NIC_DOORBELL_POP, 1);
    *page = nic_field(src, NIC_DOORBELL_HEAD_SRC_PAGE);
    *offset = nic_field(src, NIC_DOORBELL_HEAD_SRC_OFFSET);
    return 1;
}
