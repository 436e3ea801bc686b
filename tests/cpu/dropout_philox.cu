/*
 * dropout_philox.cu - the random numbers of problems/dropout, checked on the
 * host (no GPU needed).
 *
 * Built once per problem file (tests/cpu/dropout-philox.sh) with
 * -DDROPOUT_SOURCE='"problems/dropout/FILE.cu"' and the file's @const
 * macros: every shipped file defines dropout_philox/dropout_uniform as
 * __host__ __device__, so the same code the GPU runs is run here. Checks:
 * - common/philox.h against Random123's known answer (counter 0, key 0);
 * - dropout_philox(seed, i) == word 0 of philox4x32_10((i, 0, 0, 0), key =
 *   (seed low, seed high)) for many seeds and indices (tl.rand's stream);
 * - dropout_uniform == Triton's uint_to_uniform_float of that word, bitwise;
 * - cuRAND: curand_init(seed, 0, 4 * i) then curand() gives the same word;
 * - the known answers printed in the problem's statement.
 * Prints one ok/FAIL line per check and "N passed, N failed, 0 skipped".
 */
#define QUALIFIERS static __forceinline__ __host__ __device__
#include <curand_kernel.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

extern "C" {
#include "common/philox.h"
}

#ifndef DROPOUT_SOURCE
#error "build with -DDROPOUT_SOURCE='\"problems/dropout/FILE.cu\"'"
#endif
#include DROPOUT_SOURCE

static int passed, failed;

static void report(const char *name, long bad, long n)
{
    if (bad == 0) {
        printf("ok   %s: %s (%ld values)\n", DROPOUT_SOURCE, name, n);
        passed++;
    } else {
        printf("FAIL %s: %s: %ld of %ld differ\n", DROPOUT_SOURCE, name, bad, n);
        failed++;
    }
}

/* Triton's tl.rand(seed, i), from the judge's own Philox. */
static uint32_t model_word(uint64_t seed, uint32_t i)
{
    struct philox4x32 c = {{i, 0, 0, 0}};
    return philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32)).v[0];
}

static float model_uniform(uint64_t seed, uint32_t i)
{
    int32_t v;
    uint32_t w = model_word(seed, i);
    memcpy(&v, &w, 4);
    if (v < 0)
        v = ~v; /* -v - 1 */
    volatile float f = (float)v;
    volatile float scale = 4.6566127342e-10f;
    return f * scale;
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next64()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const uint64_t seeds[] = {0, 1, 42, 4294967303ull, 244837814094590ull, 9007199254740991ull,
                                 0xFFFFFFFFFFFFFFFFull, 0x0123456789ABCDEFull};
static const int n_seeds = sizeof(seeds) / sizeof(seeds[0]);

int main()
{
    struct philox4x32 c0 = {{0, 0, 0, 0}};
    struct philox4x32 kat = philox4x32_10(c0, 0, 0);
    const uint32_t want[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
    report("common/philox.h Random123 known answer", memcmp(kat.v, want, sizeof(want)) != 0, 1);

    long bad_w = 0, bad_u = 0, n = 0;
    for (int s = 0; s < n_seeds; s++) {
        for (uint32_t i = 0; i < 20000; i++) {
            uint32_t idx = i < 10000 ? i : (uint32_t)next64();
            if (i == 10000)
                idx = 0xFFFFFFFFu;
            bad_w += dropout_philox(seeds[s], idx) != model_word(seeds[s], idx);
            bad_u += bits(dropout_uniform(seeds[s], idx)) != bits(model_uniform(seeds[s], idx));
            n++;
        }
    }
    report("dropout_philox == Philox4x32-10 word 0 of counter (i,0,0,0)", bad_w, n);
    report("dropout_uniform == uint_to_uniform_float of that word", bad_u, n);

    long bad_c = 0, nc = 0;
    for (int s = 0; s < n_seeds; s++)
        for (int k = 0; k < 300; k++) {
            uint32_t idx = k < 100 ? (uint32_t)k : (uint32_t)next64();
            curandStatePhilox4_32_10_t st;
            curand_init(seeds[s], 0, 4ull * idx, &st);
            bad_c += curand(&st) != dropout_philox(seeds[s], idx);
            nc++;
        }
    report("curand_init(seed, 0, 4*i) + curand() == dropout_philox(seed, i)", bad_c, nc);

    /* The known answers of statement.md (u as printed with %.9g). */
    struct {
        uint64_t seed;
        uint32_t i;
        float u;
    } ka[] = {{0, 0, 0.798092902f},           {42, 0, 0.774080157f},          {42, 1, 0.024562696f},
              {42, 2, 0.348266304f},          {42, 3, 0.540801406f},          {42, 4, 0.652836204f},
              {42, 5, 0.629694879f},          {4294967303ull, 0, 0.701255918f},
              {4294967303ull, 1, 0.108485416f}};
    long bad_k = 0;
    const int n_ka = sizeof(ka) / sizeof(ka[0]);
    for (int k = 0; k < n_ka; k++)
        if (bits(dropout_uniform(ka[k].seed, ka[k].i)) != bits(ka[k].u)) {
            printf("  seed %llu i %u: %.9g, statement says %.9g\n", (unsigned long long)ka[k].seed,
                   ka[k].i, dropout_uniform(ka[k].seed, ka[k].i), ka[k].u);
            bad_k++;
        }
    report("the statement's known answers", bad_k, n_ka);

    /* u stays below 1: the largest v (2^31 - 1) rounds to 2^31 as a float, and
     * the fp32 scale is 2^-31 (1 - 2^-24). */
    volatile float vmax = (float)2147483647;
    volatile float scale = 4.6566127342e-10f;
    report("u < 1 for the largest word", !(vmax * scale < 1.0f), 1);

    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
