/* cs_dev.c - TIMER and INTC device models (see cs_dev.h, coresim_dev.h).
 * Unlisted offsets read 0 and ignore writes; read-only registers ignore writes. */
#include "cs_dev.h"

#include "coresim_dev.h"

void cs_dev_reset(struct cs_dev *d)
{
  d->mtime = 0;
  d->mtimecmp = ~(uint64_t)0;
  d->msip = 0;
  d->intc_pending = 0;
  d->intc_enable = 0;
}

int cs_dev_claims(uint32_t addr)
{
  return (addr & ~(CORESIM_DEV_BLOCK_SIZE - 1)) == CORESIM_INTC_BASE ||
         (addr & ~(CORESIM_DEV_BLOCK_SIZE - 1)) == CORESIM_TIMER_BASE;
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
  uint32_t off = addr & (CORESIM_DEV_BLOCK_SIZE - 1) & ~3u;
  if ((addr & ~(CORESIM_DEV_BLOCK_SIZE - 1)) == CORESIM_INTC_BASE) {
    switch (off) {
    case CORESIM_INTC_ID: return CORESIM_INTC_ID_VALUE;
    case CORESIM_INTC_VERSION: return CORESIM_INTC_VERSION_VALUE;
    case CORESIM_INTC_PENDING: return d->intc_pending;
    case CORESIM_INTC_ENABLE: return d->intc_enable;
    default: return 0;
    }
  }
  switch (off) {
  case CORESIM_TIMER_ID: return CORESIM_TIMER_ID_VALUE;
  case CORESIM_TIMER_VERSION: return CORESIM_TIMER_VERSION_VALUE;
  case CORESIM_TIMER_MTIME_LO: return (uint32_t)d->mtime;
  case CORESIM_TIMER_MTIME_HI: return (uint32_t)(d->mtime >> 32);
  case CORESIM_TIMER_MTIMECMP_LO: return (uint32_t)d->mtimecmp;
  case CORESIM_TIMER_MTIMECMP_HI: return (uint32_t)(d->mtimecmp >> 32);
  case CORESIM_TIMER_MSIP: return d->msip;
  default: return 0;
  }
}

void cs_dev_write(struct cs_dev *d, uint32_t addr, uint32_t val, unsigned be)
{
  uint32_t off = addr & (CORESIM_DEV_BLOCK_SIZE - 1) & ~3u;
  uint32_t v = merge(0, val, be);
  if ((addr & ~(CORESIM_DEV_BLOCK_SIZE - 1)) == CORESIM_INTC_BASE) {
    switch (off) {
    case CORESIM_INTC_ENABLE: d->intc_enable = merge(d->intc_enable, val, be); break;
    case CORESIM_INTC_ACK: d->intc_pending &= ~v; break;
    case CORESIM_INTC_RAISE: d->intc_pending |= v; break;
    default: break;
    }
    return;
  }
  switch (off) {
  case CORESIM_TIMER_MTIME_LO:
    d->mtime = (d->mtime & ~0xFFFFFFFFull) | merge((uint32_t)d->mtime, val, be);
    break;
  case CORESIM_TIMER_MTIME_HI:
    d->mtime = (d->mtime & 0xFFFFFFFFull) | (uint64_t)merge((uint32_t)(d->mtime >> 32), val, be) << 32;
    break;
  case CORESIM_TIMER_MTIMECMP_LO:
    d->mtimecmp = (d->mtimecmp & ~0xFFFFFFFFull) | merge((uint32_t)d->mtimecmp, val, be);
    break;
  case CORESIM_TIMER_MTIMECMP_HI:
    d->mtimecmp = (d->mtimecmp & 0xFFFFFFFFull) |
                  (uint64_t)merge((uint32_t)(d->mtimecmp >> 32), val, be) << 32;
    break;
  case CORESIM_TIMER_MSIP: d->msip = merge(d->msip, val, be) & 1u; break;
  default: break;
  }
}

void cs_dev_tick(struct cs_dev *d)
{
  d->mtime++;
}

int cs_dev_irq_external(const struct cs_dev *d) { return (d->intc_pending & d->intc_enable) != 0; }
int cs_dev_irq_timer(const struct cs_dev *d) { return d->mtime >= d->mtimecmp; }
int cs_dev_irq_software(const struct cs_dev *d) { return (d->msip & 1u) != 0; }
