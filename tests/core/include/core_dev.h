/* core_dev.h - what the core's assembly tests know about the world around the core.
 * Register blocks come from the generated register map (nic_regs.h, assembler-safe); only
 * test-specific addresses live here. */
#ifndef CORE_DEV_H
#define CORE_DEV_H

#include "nic_regs.h"

/* an address with nothing behind it, in coresim and on the NIC (access-fault tests) */
#define UNMAPPED_ADDR 0x20000000

#endif
