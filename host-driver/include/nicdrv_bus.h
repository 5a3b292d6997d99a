/*
 * nicdrv_bus.h - how the host driver reaches its NIC: 32-bit MMIO reads and writes by BAR.
 *
 * The driver is written against this interface only, so the same code runs on the simulated
 * node (sim/node/hostbus.c: PCIe model, blocking calls yield to the simulator), against a fake
 * NIC in unit tests, and on a board (a mmap'ed BAR). BAR numbers are the PCI BAR indices.
 *
 * Contract: calls may block (in the simulator they yield); they return 0 or a negative
 * NICDRV_E* code (nicdrv.h); a read that fails leaves *val unchanged.
 */
#ifndef NICDRV_BUS_H
#define NICDRV_BUS_H

#include <stdint.h>

enum nicdrv_bar {
    NICDRV_BAR_REGS = 0,     /* register blocks at their offsets (docs/registers.md) */
    NICDRV_BAR_WINDOW = 2,   /* 64 KiB window into SRAM, or IMEM with hostif.ctrl.win_imem */
    NICDRV_BAR_DOORBELL = 4, /* doorbell pages, 4 KiB each; the page identifies the process */
};

#define NICDRV_WINDOW_SIZE 0x10000u /* BAR2 size (docs/nic.md, nic_host_port.v) */

struct nicdrv_bus {
    void *ctx;
    int (*wr32)(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t val);
    int (*rd32)(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t *val);
};

#endif /* NICDRV_BUS_H */
