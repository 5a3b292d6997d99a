/*
 * fw_trap_demo: an NCP that crashes on purpose, for nicrun's and nicsim's failure explanation
 * (fwdiag). Node 0 executes an illegal instruction in trap_demo_illegal(); every other node
 * loads from an unmapped address (0xDEAD0000: the data bus answers an access fault) in
 * trap_demo_bad_load(). No trap hook is installed, so the runtime's fatal path (firmware/rt/trap.c)
 * prints mcause/mepc/mtval and halts; the harness must name the node, the cause and the function.
 * Under nicsim (--fw) the crash comes during the driver's boot handshake: same explanation.
 */
#include <stdint.h>
#include <stdio.h>

#include "fwtest.h"
#include "ncp_rt.h"

void trap_demo_illegal(void);
uint32_t trap_demo_bad_load(void);

__attribute__((noinline)) void trap_demo_illegal(void)
{
    __asm__ volatile(".word 0x00000000"); /* all-zero: defined illegal in RISC-V */
}

__attribute__((noinline)) uint32_t trap_demo_bad_load(void)
{
    return *(volatile uint32_t *)0xDEAD0000u;
}

int main(void)
{
    const volatile struct fwtest_args *a = (const volatile struct fwtest_args *)FWTEST_ARGS_ADDR;
    unsigned node = a->magic == FWTEST_ARGS_MAGIC ? a->node_id : 0;

    printf("fw_trap_demo: node %u about to crash\n", node);
    if (node == 0)
        trap_demo_illegal();
    else
        printf("fw_trap_demo: read %lu\n", (unsigned long)trap_demo_bad_load());
    return 99; /* not reached */
}
