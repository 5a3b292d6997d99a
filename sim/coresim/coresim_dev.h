/* coresim_dev.h - register layout of the TIMER and INTC blocks modelled by
 * coresim. The NIC has the same blocks at the same addresses; this header is
 * the single C copy until the generated register-map header replaces it
 * (tests/core/include/core_dev.inc is the assembly copy). */
#ifndef CORESIM_DEV_H
#define CORESIM_DEV_H

#define CORESIM_INTC_BASE        0x40001000u
#define CORESIM_INTC_ID          0x00u  /* RO "INT1" */
#define CORESIM_INTC_VERSION     0x04u  /* RO */
#define CORESIM_INTC_PENDING     0x08u  /* RO */
#define CORESIM_INTC_ENABLE      0x0Cu  /* RW */
#define CORESIM_INTC_ACK         0x10u  /* W1C of PENDING */
#define CORESIM_INTC_RAISE       0x14u  /* W1S of PENDING (software/test raise) */
#define CORESIM_INTC_ID_VALUE    0x494E5431u
#define CORESIM_INTC_VERSION_VALUE 0x00010000u

#define CORESIM_TIMER_BASE       0x40002000u
#define CORESIM_TIMER_ID         0x00u  /* RO "TMR1" */
#define CORESIM_TIMER_VERSION    0x04u  /* RO */
#define CORESIM_TIMER_MTIME_LO   0x08u  /* RW, +1 every cycle */
#define CORESIM_TIMER_MTIME_HI   0x0Cu
#define CORESIM_TIMER_MTIMECMP_LO 0x10u /* RW, reset all-ones */
#define CORESIM_TIMER_MTIMECMP_HI 0x14u
#define CORESIM_TIMER_MSIP       0x18u  /* bit 0 drives irq_software */
#define CORESIM_TIMER_ID_VALUE   0x544D5231u
#define CORESIM_TIMER_VERSION_VALUE 0x00010000u

#define CORESIM_DEV_BLOCK_SIZE   0x1000u

#endif
