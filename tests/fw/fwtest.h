/*
 * fwtest.h - what the test harness (nicrun) tells a firmware test image before starting its core:
 * a block of arguments at the start of NIC SRAM (the queues region, unused by test images), and
 * the values a test may publish in testmb.value for the harness to check after the run.
 *
 * Shared by the firmware test images (tests/fw/) and build/bin/nicrun (sim/tools/nicrun.c).
 */
#ifndef FWTEST_H
#define FWTEST_H

#include <stdint.h>

#include "nic_memmap.h"

#define FWTEST_ARGS_ADDR NIC_SRAM_QUEUES_BASE
#define FWTEST_ARGS_MAGIC 0x46575441u /* "FWTA" */

struct fwtest_args {
    uint32_t magic;
    uint32_t node_id, nodes;
    uint32_t host_buf_lo, host_buf_hi, host_buf_len; /* pinned for the NIC; byte i = fwtest_pattern(i) */
    uint32_t unpinned_lo, unpinned_hi;               /* a page that exists but is not pinned */
    uint32_t nomem_lo, nomem_hi;                     /* an address with no memory behind it */
    uint32_t frames;                                 /* link tests: frames to send per sender */
    uint32_t seed;
    uint32_t faults; /* nonzero when the switch injects faults (figures that need a clean link
                      * are checked only without) */
};

/* testmb.value on pass: what the harness verifies in host memory afterwards. */
#define FWTEST_VALUE_NONE 0u
#define FWTEST_VALUE_HOSTBUF_INVERTED 0x494E5654u /* "INVT": host buffer now holds ~pattern */

/* fw_nic_link's report: frames its MAC saw [11:0], bad CRC [21:12], other drops [31:22]. */
#define FWTEST_LINK_MAX_FRAMES 1000u
#define FWTEST_LINK_VALUE(seen, bad, other) (((seen)&0xFFFu) | ((bad)&0x3FFu) << 12 | ((other)&0x3FFu) << 22)
#define FWTEST_LINK_SEEN(v) ((v)&0xFFFu)
#define FWTEST_LINK_BAD(v) (((v) >> 12) & 0x3FFu)
#define FWTEST_LINK_OTHER(v) ((v) >> 22)

static inline uint8_t fwtest_pattern(uint32_t i, uint32_t node)
{
    return (uint8_t)(i * 7u + 13u + node * 31u + (i >> 8));
}

#endif /* FWTEST_H */
