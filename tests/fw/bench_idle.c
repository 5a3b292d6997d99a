/*
 * fw_bench_idle: an idle NIC, for the simulation-speed benchmark (scripts/bench-sim,
 * docs/simulation-speed.md). The core sleeps in wfi with interrupts globally masked and wakes
 * on the timer every BENCH_IDLE_PERIOD cycles, BENCH_IDLE_WAKEUPS times, then passes: almost
 * every cycle of the run is one the cluster may skip (all cores in wfi, nothing in flight).
 */
#include <stdint.h>

#include "ncp_rt.h"
#include "nic_mmio.h"

#define BENCH_IDLE_PERIOD 100000u
#define BENCH_IDLE_WAKEUPS 100u

static uint32_t mip(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mip" : "=r"(v));
    return v;
}

static void timer_in(uint32_t cycles)
{
    uint32_t hi = nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_HI);
    uint32_t lo = nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_LO);
    uint64_t t = ((uint64_t)hi << 32 | lo) + cycles;

    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, 0xFFFFFFFFu); /* no early match while split */
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_LO, (uint32_t)t);
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, (uint32_t)(t >> 32));
}

int main(void)
{
    __asm__ volatile("csrci mstatus, 8\n\tcsrs mie, %0" ::"r"(1u << 7));
    for (uint32_t i = 0; i < BENCH_IDLE_WAKEUPS; i++) {
        timer_in(BENCH_IDLE_PERIOD);
        while (!(mip() & (1u << 7)))
            __asm__ volatile("wfi");
    }
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, 0xFFFFFFFFu);
    __asm__ volatile("csrw mie, zero" ::: "memory");
    return 0;
}
