/*
 * fwtest_util.h - helpers shared by the firmware test images that run on the NIC (nicrun):
 * the harness's argument block, checks that report a distinct code, and bounded waits.
 */
#ifndef FWTEST_UTIL_H
#define FWTEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fwtest.h"
#include "ncp_rt.h"
#include "nic_memmap.h"
#include "nic_mmio.h"

#define FWT_ARGS ((volatile const struct fwtest_args *)FWTEST_ARGS_ADDR)
/* A core address in SRAM as the SRAM byte offset the DMA engine and MAC use. */
#define FWT_SRAM_OFF(p) ((uint32_t)(uintptr_t)(p)-NIC_SRAM_BASE)

/* Fails the test with `code` (and prints `what`) unless ok. */
#define FWT_CHECK(ok, code, what)                                                           \
    do {                                                                                    \
        if (!(ok)) {                                                                        \
            printf("check %d failed: %s (%s:%d)\n", (int)(code), what, __FILE__, __LINE__); \
            exit(code);                                                                     \
        }                                                                                   \
    } while (0)

static inline uint64_t fwt_u64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)hi << 32 | lo;
}

#endif /* FWTEST_UTIL_H */
