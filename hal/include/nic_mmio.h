/*
 * nic_mmio: typed register access for code running on the NIC's core (firmware and firmware tests).
 *
 * Addresses come only from the generated map (nic_regs.h): nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_LO).
 * The host driver reaches the same registers through its BAR mapping (host-driver/), never this file.
 * Accesses are 32-bit and volatile; the core keeps MMIO accesses in program order.
 */
#ifndef NIC_MMIO_H
#define NIC_MMIO_H

#include <stdint.h>

#include "nic_regs.h"

static inline uint32_t nic_rd(uint32_t block_base, uint32_t reg)
{
    return *(volatile const uint32_t *)(uintptr_t)(block_base + reg);
}

static inline void nic_wr(uint32_t block_base, uint32_t reg, uint32_t value)
{
    *(volatile uint32_t *)(uintptr_t)(block_base + reg) = value;
}

/* Extract a field: nic_field(v, NIC_DMA_STATUS_CPL_COUNT). */
#define nic_field(value, FIELD) (((value) & FIELD##_MASK) >> FIELD##_SHIFT)
/* Place a field value: nic_bits(NIC_DMA_REQ_SUBMIT_LEN, len). */
#define nic_bits(FIELD, v) (((uint32_t)(v) << FIELD##_SHIFT) & FIELD##_MASK)

/* Is the block at `base` the one we were built for (ID and major version)? */
#define nic_block_ok(BLOCK) \
    (nic_rd(NIC_##BLOCK##_BASE, NIC_##BLOCK##_ID) == NIC_##BLOCK##_ID_VALUE && \
     (nic_rd(NIC_##BLOCK##_BASE, NIC_##BLOCK##_VERSION) >> 16) == NIC_##BLOCK##_VERSION_MAJOR)

#endif /* NIC_MMIO_H */
