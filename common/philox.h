/*
 * philox.h - Philox4x32-10, the counter-based generator of every judge input.
 *
 * Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11), as in
 * Random123 and cuRAND (curand_Philox4x32_10) and Triton's tl.rand. Header-only
 * and free of libraries so that the same code compiles as host C (tests, the
 * CPU side) and as CUDA device code (judge/runner/kernels/harness.cu): a pure function
 * of (counter, key) with no state. The known-answer vectors of Random123's
 * kat_vectors are unit tests (tests/unit/test_philox.c).
 */
#ifndef BW_PHILOX_H
#define BW_PHILOX_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PHILOX_FN static __host__ __device__ __forceinline__
#else
#define PHILOX_FN static inline
#endif

struct philox4x32 {
    uint32_t v[4];
};

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

PHILOX_FN uint32_t philox_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

PHILOX_FN struct philox4x32 philox_round(struct philox4x32 c, uint32_t k0, uint32_t k1)
{
    uint32_t hi0, hi1;
    uint32_t lo0 = philox_mulhilo(PHILOX_M0, c.v[0], &hi0);
    uint32_t lo1 = philox_mulhilo(PHILOX_M1, c.v[2], &hi1);
    struct philox4x32 r;
    r.v[0] = hi1 ^ c.v[1] ^ k0;
    r.v[1] = lo1;
    r.v[2] = hi0 ^ c.v[3] ^ k1;
    r.v[3] = lo0;
    return r;
}

/* Philox4x32 with 10 rounds: four 32-bit outputs for counter c and key (k0, k1). */
PHILOX_FN struct philox4x32 philox4x32_10(struct philox4x32 c, uint32_t k0, uint32_t k1)
{
    c = philox_round(c, k0, k1);
    for (int i = 1; i < 10; i++) {
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
        c = philox_round(c, k0, k1);
    }
    return c;
}

/* A uniform float in [0, 1) from 32 random bits, with 24 bits of precision. */
PHILOX_FN double philox_unit24(uint32_t bits)
{
    return (double)(bits >> 8) * (1.0 / 16777216.0);
}

/* A uniform double in [0, 1) from 64 random bits, with 53 bits of precision. */
PHILOX_FN double philox_unit53(uint32_t hi, uint32_t lo)
{
    uint64_t x = ((uint64_t)hi << 21) ^ (uint64_t)(lo >> 11);
    return (double)(x & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

#endif
