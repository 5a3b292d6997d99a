/*
 * sim_time.c - ns <-> cycle conversions (see sim_time.h).
 *
 * The conversions split ns into whole seconds and a remainder so that ns * hz never overflows
 * for any realistic clock (hz < 2^34).
 */
#include "sim_time.h"

#define NS_PER_S 1000000000ull

static uint64_t hz_or_default(uint64_t clock_hz)
{
    return clock_hz ? clock_hz : SIM_CLOCK_DEFAULT_HZ;
}

sim_cycle_t sim_ns_to_cycles(uint64_t clock_hz, uint64_t ns)
{
    uint64_t hz = hz_or_default(clock_hz);
    uint64_t s = ns / NS_PER_S, rem = ns % NS_PER_S;
    uint64_t whole, frac;

    if (s && hz > (SIM_CYCLE_NEVER - 1) / s)
        return SIM_CYCLE_NEVER - 1;
    whole = s * hz;
    frac = (rem * hz + NS_PER_S - 1) / NS_PER_S;
    if (whole > SIM_CYCLE_NEVER - 1 - frac)
        return SIM_CYCLE_NEVER - 1;
    return whole + frac;
}

uint64_t sim_cycles_to_ns(uint64_t clock_hz, sim_cycle_t cycles)
{
    uint64_t hz = hz_or_default(clock_hz);
    uint64_t s = cycles / hz, rem = cycles % hz;

    return s * NS_PER_S + rem * NS_PER_S / hz;
}

uint32_t sim_rate_to_bytes_per_cycle(uint64_t clock_hz, uint64_t bytes_per_s)
{
    uint64_t r = bytes_per_s / hz_or_default(clock_hz);

    if (r == 0)
        return 1;
    return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

uint32_t sim_rate_to_bits_per_cycle(uint64_t clock_hz, uint64_t bits_per_s)
{
    return sim_rate_to_bytes_per_cycle(clock_hz, bits_per_s);
}
