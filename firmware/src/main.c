/*
 * main.c - the network control program's entry: boot (ncp_boot: block checks, info block,
 * fw_state = ready), then the event loop forever (loop.c), sleeping in wfi when idle.
 */
#include <stdio.h>

#include "loop.h"
#include "ncp.h"
#include "xlate.h"

int main(void)
{
    ncp_boot();
    printf("ncp %d.%d: node %u, %s lookup, C=%d L=%d A=%d, MTU %d, %s, lookup %lu bytes\n", NCP_VERSION_MAJOR,
           NCP_VERSION_MINOR, (unsigned)ncp.me, NCP_LOOKUP_STATIC ? "static" : "dynamic", NCP_CACHE_ENTRIES,
           NCP_CACHE_LINE, NCP_CACHE_WAYS, NCP_MTU, NCP_NACK ? "miss NACKs" : "seed-faithful timeouts",
           (unsigned long)xlate_lookup_bytes());
    for (;;) {
        ncp_run_once();
        hal_sleep();
    }
}
