/* hostbus.c - nicdrv_bus over a node's PCIe model (see hostbus.h). */
#include "hostbus.h"

#include "coro.h"
#include "nicdrv.h"

/* PCI BAR index -> the code the NIC's host port decodes (node.h) */
static int bar_code(enum nicdrv_bar bar, unsigned *code)
{
    switch (bar) {
    case NICDRV_BAR_REGS:
        *code = NIC_BAR_REGS_CODE;
        return 0;
    case NICDRV_BAR_WINDOW:
        *code = NIC_BAR_WINDOW_CODE;
        return 0;
    case NICDRV_BAR_DOORBELL:
        *code = NIC_BAR_DOORBELL_CODE;
        return 0;
    }
    return -1;
}

static int hb_wr32(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t val)
{
    pcie_t *p = node_pcie(ctx);
    unsigned code;
    int rc;

    if (bar_code(bar, &code) || off >= 1u << NODE_BAR_SHIFT)
        return NICDRV_EBUS;
    while ((rc = pcie_mmio_write(p, coro_now(), NODE_MMIO_ADDR(code, off), val, 4)) == SIM_EFULL)
        if (coro_yield() != SIM_OK)
            return NICDRV_EBUS;
    return rc == SIM_OK ? NICDRV_OK : NICDRV_EBUS;
}

static int hb_rd32(void *ctx, enum nicdrv_bar bar, uint32_t off, uint32_t *val)
{
    pcie_t *p = node_pcie(ctx);
    unsigned code, tag;
    uint64_t v;
    int rc;

    if (bar_code(bar, &code) || off >= 1u << NODE_BAR_SHIFT)
        return NICDRV_EBUS;
    while ((rc = pcie_mmio_read(p, coro_now(), NODE_MMIO_ADDR(code, off), 4, &tag)) == SIM_EFULL)
        if (coro_yield() != SIM_OK)
            return NICDRV_EBUS;
    if (rc != SIM_OK)
        return NICDRV_EBUS;
    while ((rc = pcie_mmio_read_result(p, coro_now(), tag, &v)) == SIM_EAGAIN)
        if (coro_yield() != SIM_OK)
            return NICDRV_EBUS;
    if (rc != SIM_OK)
        return NICDRV_EBUS;
    *val = (uint32_t)v;
    return NICDRV_OK;
}

void hostbus_init(struct nicdrv_bus *bus, node_t *node)
{
    bus->ctx = node;
    bus->wr32 = hb_wr32;
    bus->rd32 = hb_rd32;
}
