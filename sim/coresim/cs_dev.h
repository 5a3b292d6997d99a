/* cs_dev.h - the NIC register blocks coresim models: timer, interrupt controller, debug console
 * and test mailbox, at their addresses and with their layouts from the generated register map
 * (build/gen/nic_regs.h; source hal/regmap/nic.toml). Other NIC blocks are not modelled: an
 * access to them is an access fault, as an access to any unmapped address.
 *
 * Contract: cs_dev_tick once per simulated cycle, after the bus accesses of that cycle; irq
 * outputs are sampled by the core on the next cycle. A mailbox status write with an odd value
 * sets `exit_pending` (1 = pass, else fail code value >> 1), like an HTIF exit. */
#ifndef CS_DEV_H
#define CS_DEV_H
#include <stdint.h>
#include <stdio.h>

struct cs_dev {
    uint64_t mtime;
    uint64_t mtimecmp;
    uint32_t msip;
    uint32_t intc_pending;
    uint32_t intc_enable;
    uint32_t testmb_value;
    uint32_t testmb_status;
    int exit_pending; /* testmb.status got an odd value */
    FILE *console;    /* where console characters go (stdout) */
};

void cs_dev_reset(struct cs_dev *d, FILE *console);
/* 1 if addr belongs to a modelled block */
int cs_dev_claims(uint32_t addr);
uint32_t cs_dev_read(struct cs_dev *d, uint32_t addr);
void cs_dev_write(struct cs_dev *d, uint32_t addr, uint32_t val, unsigned be);
void cs_dev_tick(struct cs_dev *d);
int cs_dev_irq_external(const struct cs_dev *d);
int cs_dev_irq_timer(const struct cs_dev *d);
int cs_dev_irq_software(const struct cs_dev *d);

#endif
