/*
 * sim_time.h - simulated time for the host-side models and the switch.
 *
 * Role map: the one place that defines the simulated time unit and converts between it and
 * nanoseconds. Every model counts time in core clock cycles of the NIC (sim_cycle_t); the
 * nominal clock frequency (default 200 MHz, docs/architecture.md) only matters where a figure
 * given in ns or bytes/s (the seeds' costs, PCIe and link rates) is turned into cycles.
 *
 * Contract: pure functions, no state; callable from anywhere.
 */
#ifndef SIM_TIME_H
#define SIM_TIME_H

#include <stdint.h>

/* Simulated time: core clock cycles since the start of the run. */
typedef uint64_t sim_cycle_t;

/* "No event pending": what next_event functions return when a model is idle. */
#define SIM_CYCLE_NEVER UINT64_MAX

/* Nominal core clock (brief section 4: default 200 MHz). */
#define SIM_CLOCK_DEFAULT_HZ 200000000ull

/* ns -> cycles at clock_hz, rounded up (a cost of 1 ns is never free). Saturates at
 * SIM_CYCLE_NEVER - 1. clock_hz == 0 is treated as SIM_CLOCK_DEFAULT_HZ. */
sim_cycle_t sim_ns_to_cycles(uint64_t clock_hz, uint64_t ns);

/* cycles -> ns at clock_hz, rounded down. */
uint64_t sim_cycles_to_ns(uint64_t clock_hz, sim_cycle_t cycles);

/* A rate in bytes per second -> whole bytes per cycle at clock_hz, rounded down, at least 1. */
uint32_t sim_rate_to_bytes_per_cycle(uint64_t clock_hz, uint64_t bytes_per_s);

/* A rate in bits per second -> whole bits per cycle at clock_hz, rounded down, at least 1. */
uint32_t sim_rate_to_bits_per_cycle(uint64_t clock_hz, uint64_t bits_per_s);

/* Saturating add: never wraps past SIM_CYCLE_NEVER. */
static inline sim_cycle_t sim_cycle_add(sim_cycle_t t, sim_cycle_t dt)
{
    return (t > SIM_CYCLE_NEVER - dt) ? SIM_CYCLE_NEVER : t + dt;
}

static inline sim_cycle_t sim_cycle_min(sim_cycle_t a, sim_cycle_t b)
{
    return a < b ? a : b;
}

static inline sim_cycle_t sim_cycle_max(sim_cycle_t a, sim_cycle_t b)
{
    return a > b ? a : b;
}

#endif /* SIM_TIME_H */
