/*
 * sim_rng.h - the deterministic pseudo-random generator of the simulation.
 *
 * Role map: xoshiro256** (Blackman and Vigna's published algorithm, written here from its
 * description) seeded through splitmix64, so that any 64-bit seed gives a well-mixed state.
 * Every random choice of a model (fault injection, host cost draws, frame placement, memory
 * pressure) comes from one of these; nothing reads the wall clock or calls rand(), so a run is a
 * function of its seeds.
 *
 * Contract: a sim_rng_t is plain data owned by its model; no global state.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng_t;

/* splitmix64 step: advances *x and returns the next output (also used to derive sub-seeds). */
uint64_t sim_splitmix64(uint64_t *x);

/* Seed from a 64-bit value and a stream id (e.g. a port number), so that independent streams
 * of one run do not share state. */
void sim_rng_seed(sim_rng_t *r, uint64_t seed, uint64_t stream);

uint64_t sim_rng_next(sim_rng_t *r);

/* Uniform in [0, n); n == 0 returns 0. Unbiased (rejection). */
uint64_t sim_rng_below(sim_rng_t *r, uint64_t n);

/* Uniform in [lo, hi] inclusive; lo > hi returns lo. */
uint64_t sim_rng_range(sim_rng_t *r, uint64_t lo, uint64_t hi);

/* Uniform double in [0, 1) with 53 random bits. */
double sim_rng_unit(sim_rng_t *r);

/* True with probability p. p <= 0 and p >= 1 consume no random number, so that a rate of 0 or 1
 * does not perturb the stream other draws see. */
bool sim_rng_chance(sim_rng_t *r, double p);

#endif /* SIM_RNG_H */
