/* core_dev.h - TIMER / INTC register layout for the core assembly tests.
 * Assembly copy of sim/coresim/coresim_dev.h (one place per language until the
 * generated register-map header replaces both). */
#ifndef CORE_DEV_H
#define CORE_DEV_H

#define INTC_BASE        0x40001000
#define INTC_ID          0x00
#define INTC_VERSION     0x04
#define INTC_PENDING     0x08
#define INTC_ENABLE      0x0C
#define INTC_ACK         0x10
#define INTC_RAISE       0x14
#define INTC_ID_VALUE    0x494E5431

#define TIMER_BASE       0x40002000
#define TIMER_ID         0x00
#define TIMER_VERSION    0x04
#define TIMER_MTIME_LO   0x08
#define TIMER_MTIME_HI   0x0C
#define TIMER_MTIMECMP_LO 0x10
#define TIMER_MTIMECMP_HI 0x14
#define TIMER_MSIP       0x18
#define TIMER_ID_VALUE   0x544D5231

/* an address with nothing behind it (access-fault tests) */
#define UNMAPPED_ADDR    0x20000000

#endif
