/* cs_dev.h - TIMER and INTC device models of coresim (layout: coresim_dev.h).
 * Contract: cs_dev_tick once per simulated cycle, after the bus accesses of
 * that cycle; irq outputs are sampled by the core on the next cycle. */
#ifndef CS_DEV_H
#define CS_DEV_H
#include <stdint.h>

struct cs_dev {
  uint64_t mtime;
  uint64_t mtimecmp;
  uint32_t msip;
  uint32_t intc_pending;
  uint32_t intc_enable;
};

void cs_dev_reset(struct cs_dev *d);
/* 1 if addr belongs to a device block */
int cs_dev_claims(uint32_t addr);
uint32_t cs_dev_read(struct cs_dev *d, uint32_t addr);
void cs_dev_write(struct cs_dev *d, uint32_t addr, uint32_t val, unsigned be);
void cs_dev_tick(struct cs_dev *d);
int cs_dev_irq_external(const struct cs_dev *d);
int cs_dev_irq_timer(const struct cs_dev *d);
int cs_dev_irq_software(const struct cs_dev *d);

#endif
