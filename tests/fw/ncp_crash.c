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

#include "hal.h"
#include "ncp_test.h"

uint32_t ncp_crash_bad_load(void);

__attribute__((noinline)) uint32_t ncp_crash_bad_load(void)
{
    return *(volatile uint32_t *)0xDEAD0000u;
}

int main(void)
{
    static struct nic_stats s;

    ncp_boot();
    printf("fw_ncp_crash: node %u runs the NCP; node 1 crashes after 24 received packets\n", (unsigned)ncp_test_node());
    for (;;) {
        ncp_run_once();
        ncp_test_stats(&s);
        if (ncp_test_node() == 1 && s.rx_packets >= 24)
            printf("fw_ncp_crash: read %lu\n", (unsigned long)ncp_crash_bad_load());
        hal_sleep();
    }
}
