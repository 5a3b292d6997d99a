/*
 * fw_ncp_crash: the real NCP (firmware/src, as main.c runs it) that crashes on purpose in the
 * middle of a run, for nicsim's failure explanation (issue 17): node 1, once it has received
 * 24 packets (its endpoint is open and a workload is moving data), loads from an unmapped address
 * in ncp_crash_bad_load(): a load access fault, the runtime's fatal path, a halted NCP. Every
 * other node runs the NCP unchanged. Before issue 17 nicsim reported only what followed (ops
 * that never complete, a failed close, pages still pinned).
 */
#include <stdint.h>
#include <stdio.h>

#include "cmd.h"
#include "dmaq.h"
#include "loop.h"
#include "ncp.h"
#include "requester.h"
#include "xlate.h"

uint32_t ncp_crash_bad_load(void);

__attribute__((noinline)) uint32_t ncp_crash_bad_load(void)
{
    return *(volatile uint32_t *)0xDEAD0000u;
}

int main(void)
{
    ncp_boot();
    printf("fw_ncp_crash: node %u runs the NCP; node 1 crashes after 24 received packets\n", (unsigned)ncp.me);
    for (;;) {
        ncp_run_once();
        if (ncp.me == 1 && ncp.c.s.rx_packets >= 24)
            printf("fw_ncp_crash: read %lu\n", (unsigned long)ncp_crash_bad_load());
        hal_sleep();
    }
}
