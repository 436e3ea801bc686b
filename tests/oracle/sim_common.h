/*
 * sim_common.h - what the CPU tolerance oracles (tests/oracle/tolerance*.c)
 * share: the pass/fail tally and a seeded xoshiro256** generator with the
 * distributions they draw from. Each oracle is one translation unit and one
 * program, so the state here is static, and the functions static inline so
 * an oracle that does not draw normals does not warn.
 */
#ifndef BW_SIM_COMMON_H
#define BW_SIM_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static int n_pass, n_fail;
static bool full_mode; /* --full: more samples per shape */

static inline void expect(bool ok, const char *what)
{
    if (ok) {
        n_pass++;
        printf("ok   %s\n", what);
    } else {
        n_fail++;
        printf("FAIL %s\n", what);
    }
}

/* ---- random numbers (xoshiro256**, seeded by splitmix64) ------------------ */

static uint64_t rng_s[4];

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(void)
{
    uint64_t r = rotl(rng_s[1] * 5, 7) * 9;
    uint64_t t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return r;
}

static inline void rng_seed(uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9E3779B97F4A7C15ull;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        rng_s[i] = z ^ (z >> 31);
    }
}

/* Uniform in [0, 1). */
static inline double rng_unit(void)
{
    return (double)(rng_next() >> 11) * 0x1.0p-53;
}

static inline double rng_uniform(double lo, double hi)
{
    return lo + (hi - lo) * rng_unit();
}

static inline double rng_normal(double mean, double std)
{
    double u1 = rng_unit(), u2 = rng_unit();
    if (u1 < 1e-300)
        u1 = 1e-300;
    return mean + std * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
