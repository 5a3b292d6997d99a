/*
 * main.c: the network control program's entry: bring-up checks and the hand-off to the host.
 *
 * Boot order: verify every register block's ID and major version against the map this image was
 * built from (a mismatched board is a fatal, reported error, not undefined behaviour), publish the
 * firmware version, then declare the firmware ready in hostif.fw_state.
 *
 * NOT YET HERE (issue 5): the event loop, the send/receive state machines, the transport and the
 * lookup caches. Until then the NCP idles in wfi after boot; it is built, sized and flash-imaged
 * so the build, the loader and the size report are exercised on the real image.
 */
#include <stdio.h>

#include "ncp_config.h"
#include "ncp_rt.h"
#include "nic_mmio.h"

struct block_check {
    const char *name;
    uint32_t base, id, major;
};

#define BLOCK(B, n) {n, NIC_##B##_BASE, NIC_##B##_ID_VALUE, NIC_##B##_VERSION_MAJOR}

static const struct block_check ncp_blocks[] = {
    BLOCK(HOSTIF, "hostif"), BLOCK(INTC, "intc"),       BLOCK(TIMER, "timer"),
    BLOCK(DMA, "dma"),       BLOCK(MAC, "mac"),         BLOCK(PERF, "perf"),
    BLOCK(CONSOLE, "console"), BLOCK(DOORBELL, "doorbell"),
};

static void ncp_check_blocks(void)
{
    for (size_t i = 0; i < sizeof ncp_blocks / sizeof ncp_blocks[0]; i++) {
        const struct block_check *b = &ncp_blocks[i];
        uint32_t id = nic_rd(b->base, NIC_BLOCK_ID);
        uint32_t ver = nic_rd(b->base, NIC_BLOCK_VERSION);

        if (id != b->id || ver >> 16 != b->major) {
            printf("ncp: block %s: id 0x%08lx version 0x%08lx, expected id 0x%08lx major %lu\n", b->name,
                   (unsigned long)id, (unsigned long)ver, (unsigned long)b->id, (unsigned long)b->major);
            ncp_fatal("register block mismatch", (uint32_t)i);
        }
    }
}

int main(void)
{
    ncp_check_blocks();
    printf("ncp %d.%d: %s lookup, C=%d L=%d A=%d, MTU %d\n", NCP_VERSION_MAJOR, NCP_VERSION_MINOR,
           NCP_LOOKUP_STATIC ? "static" : "dynamic", NCP_CACHE_ENTRIES, NCP_CACHE_LINE, NCP_CACHE_WAYS,
           NCP_MTU);
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_FW_VERSION, NCP_VERSION);
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_FW_STATE, nic_bits(NIC_HOSTIF_FW_STATE_STATE, 1));
    for (;;)
        __asm__ volatile("wfi");
}
