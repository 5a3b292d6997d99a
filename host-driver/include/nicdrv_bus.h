/*
 * nicdrv_bus.h - how the host driver reaches its NIC: 32-bit MMIO reads and writes by BAR.
 *
 * The driver is written against this interface only, so the same code runs on the simulated
 * node (sim/node/hostbus.c: PCIe model, blocking calls yield to the simulator) and against a fake
 * NIC in unit tests (tests/unit/drv_fake.c). A board would need a backend of its own (an mmap'ed
 * BAR implementing these two calls); none exists in this repository. BAR numbers are the PCI BAR
 * indices.
 *
 * Contract: calls may block (in the simulator they yield); they return 0 or a negative
 * NICDRV_E* code (nicdrv.h); a read that fails leaves *val unchanged.
 */
#ifndef NICDRV_BUS_H
#define NICDRV_BUS_H

#include <stdint.h>

#include "nic_memmap.h"

/* PCI BAR numbers and sizes: linker/memmap.toml [[host_bar]], docs/registers.md "Host BARs". */
enum nicdrv_bar {
    NICDRV_BAR_REGS = NIC_BAR_REGS_INDEX,        /* register blocks at their offsets */
    NICDRV_BAR_WINDOW = NIC_BAR_WINDOW_INDEX,    /* window into SRAM, or IMEM with hostif.ctrl.win_imem */
    NICDRV_BAR_DOORBELL = NIC_BAR_DOORBELL_INDEX /* doorbell pages, 4 KiB each; the page names the process */
};

#define NICDRV_WINDOW_SIZE NIC_BAR_WINDOW_SIZE

struct nicdrv_bus {
    void *ctx;
    int (*wr32)(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t val);
    int (*rd32)(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t *val);
};

#endif /* NICDRV_BUS_H */
