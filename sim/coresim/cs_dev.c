/* cs_dev.c - timer, interrupt controller, console and test mailbox models (see cs_dev.h).
 * Unlisted offsets read 0 and ignore writes; read-only registers ignore writes. */
#include "cs_dev.h"

#include "nic_regs.h"

#define BLOCK_OF(addr) ((addr) & ~(NIC_BLOCK_SIZE - 1u))

void cs_dev_reset(struct cs_dev *d, FILE *console)
{
    d->mtime = 0;
    d->mtimecmp = ((uint64_t)NIC_TIMER_MTIMECMP_HI_RESET << 32) | NIC_TIMER_MTIMECMP_LO_RESET;
    d->msip = 0;
    d->intc_pending = 0;
    d->intc_enable = 0;
    d->testmb_status = 0;
    d->testmb_value = 0;
    d->exit_pending = 0;
    d->console = console;
}

int cs_dev_claims(uint32_t addr)
{
    uint32_t b = BLOCK_OF(addr);
    return b == NIC_INTC_BASE || b == NIC_TIMER_BASE || b == NIC_CONSOLE_BASE || b == NIC_TESTMB_BASE;
}

static uint32_t merge(uint32_t old, uint32_t val, unsigned be)
{
    uint32_t mask = 0;
    for (int i = 0; i < 4; i++)
        if (be & (1u << i))
            mask |= 0xFFu << (8 * i);
    return (old & ~mask) | (val & mask);
}

uint32_t cs_dev_read(struct cs_dev *d, uint32_t addr)
{
    uint32_t off = addr & (NIC_BLOCK_SIZE - 1u) & ~3u;
    switch (BLOCK_OF(addr)) {
    case NIC_INTC_BASE:
        switch (off) {
        case NIC_INTC_ID:
            return NIC_INTC_ID_VALUE;
        case NIC_INTC_VERSION:
            return NIC_INTC_VERSION_VALUE;
        case NIC_INTC_PENDING:
            return d->intc_pending;
        case NIC_INTC_ENABLE:
            return d->intc_enable;
        default:
            return 0;
        }
    case NIC_TIMER_BASE:
        switch (off) {
        case NIC_TIMER_ID:
            return NIC_TIMER_ID_VALUE;
        case NIC_TIMER_VERSION:
            return NIC_TIMER_VERSION_VALUE;
        case NIC_TIMER_MTIME_LO:
            return (uint32_t)d->mtime;
        case NIC_TIMER_MTIME_HI:
            return (uint32_t)(d->mtime >> 32);
        case NIC_TIMER_MTIMECMP_LO:
            return (uint32_t)d->mtimecmp;
        case NIC_TIMER_MTIMECMP_HI:
            return (uint32_t)(d->mtimecmp >> 32);
        case NIC_TIMER_MSIP:
            return d->msip;
        default:
            return 0;
        }
    case NIC_CONSOLE_BASE:
        switch (off) {
        case NIC_CONSOLE_ID:
            return NIC_CONSOLE_ID_VALUE;
        case NIC_CONSOLE_VERSION:
            return NIC_CONSOLE_VERSION_VALUE;
        default:
            return 0;
        }
    default: /* NIC_TESTMB_BASE */
        switch (off) {
        case NIC_TESTMB_ID:
            return NIC_TESTMB_ID_VALUE;
        case NIC_TESTMB_VERSION:
            return NIC_TESTMB_VERSION_VALUE;
        case NIC_TESTMB_STATUS:
            return d->testmb_status;
        case NIC_TESTMB_VALUE:
            return d->testmb_value;
        default:
            return 0;
        }
    }
}

static void write_timer(struct cs_dev *d, uint32_t off, uint32_t val, unsigned be)
{
    switch (off) {
    case NIC_TIMER_MTIME_LO:
        d->mtime = (d->mtime & ~0xFFFFFFFFull) | merge((uint32_t)d->mtime, val, be);
        break;
    case NIC_TIMER_MTIME_HI:
        d->mtime = (d->mtime & 0xFFFFFFFFull) | (uint64_t)merge((uint32_t)(d->mtime >> 32), val, be) << 32;
        break;
    case NIC_TIMER_MTIMECMP_LO:
        d->mtimecmp = (d->mtimecmp & ~0xFFFFFFFFull) | merge((uint32_t)d->mtimecmp, val, be);
        break;
    case NIC_TIMER_MTIMECMP_HI:
        d->mtimecmp = (d->mtimecmp & 0xFFFFFFFFull) | (uint64_t)merge((uint32_t)(d->mtimecmp >> 32), val, be) << 32;
        break;
    case NIC_TIMER_MSIP:
        d->msip = merge(d->msip, val, be) & NIC_TIMER_MSIP_PENDING_MASK;
        break;
    default:
        break;
    }
}

void cs_dev_write(struct cs_dev *d, uint32_t addr, uint32_t val, unsigned be)
{
    uint32_t off = addr & (NIC_BLOCK_SIZE - 1u) & ~3u;
    uint32_t v = merge(0, val, be);
    switch (BLOCK_OF(addr)) {
    case NIC_INTC_BASE:
        switch (off) {
        case NIC_INTC_ENABLE:
            d->intc_enable = merge(d->intc_enable, val, be);
            break;
        case NIC_INTC_ACK:
            d->intc_pending &= ~v;
            break;
        case NIC_INTC_RAISE:
            d->intc_pending |= v;
            break;
        default:
            break;
        }
        break;
    case NIC_TIMER_BASE:
        write_timer(d, off, val, be);
        break;
    case NIC_CONSOLE_BASE:
        if (off == NIC_CONSOLE_TXDATA && (be & 1u) && d->console)
            fputc((int)(v & NIC_CONSOLE_TXDATA_CHAR_MASK), d->console);
        break;
    default: /* NIC_TESTMB_BASE */
        if (off == NIC_TESTMB_STATUS) {
            d->testmb_status = merge(d->testmb_status, val, be);
            if (d->testmb_status & 1u)
                d->exit_pending = 1;
        } else if (off == NIC_TESTMB_VALUE) {
            d->testmb_value = merge(d->testmb_value, val, be);
        }
        break;
    }
}

void cs_dev_tick(struct cs_dev *d)
{
    d->mtime++;
}

int cs_dev_irq_external(const struct cs_dev *d)
{
    return (d->intc_pending & d->intc_enable) != 0;
}
int cs_dev_irq_timer(const struct cs_dev *d)
{
    return d->mtime >= d->mtimecmp;
}
int cs_dev_irq_software(const struct cs_dev *d)
{
    return (d->msip & 1u) != 0;
}
