/*
 * sim_rng.c - splitmix64 and xoshiro256** (see sim_rng.h).
 */
#include "sim_rng.h"

uint64_t sim_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng_t *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);

    for (int i = 0; i < 4; i++)
        r->s[i] = sim_splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1; /* the all-zero state is the one fixed point of xoshiro */
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sim_rng_below(sim_rng_t *r, uint64_t n)
{
    uint64_t limit, x;

    if (n == 0)
        return 0;
    /* Reject the top partial copy of [0, n) so every residue is equally likely. */
    limit = UINT64_MAX - (UINT64_MAX % n);
    for (int tries = 0; tries < 64; tries++) {
        x = sim_rng_next(r);
        if (x < limit)
            return x % n;
    }
    return x % n; /* 2^-64-ish probability per try; bounded anyway */
}

uint64_t sim_rng_range(sim_rng_t *r, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return lo;
    if (lo == 0 && hi == UINT64_MAX)
        return sim_rng_next(r);
    return lo + sim_rng_below(r, hi - lo + 1);
}

double sim_rng_unit(sim_rng_t *r)
{
    return (double)(sim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

bool sim_rng_chance(sim_rng_t *r, double p)
{
    if (!(p > 0.0))
        return false;
    if (p >= 1.0)
        return true;
    return sim_rng_unit(r) < p;
}
