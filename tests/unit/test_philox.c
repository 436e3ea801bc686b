/*
 * Tests of common/philox.h: Random123's known answers, and equivalence with
 * cuRAND's Philox4_32_10 stream.
 *
 * The known-answer vectors are the "philox4x32 7" and "philox4x32 10" lines of
 * Random123's tests/kat_vectors (D. E. Shaw Research), whose columns are
 * name, rounds, counter (4 words), key (2 words), expected output (4 words).
 */
#include "tests/test.h"

#include <stdint.h>

#include "common/philox.h"
#include "common/banned.h"

struct kat {
    uint32_t ctr[4];
    uint32_t key[2];
    uint32_t want[4];
};

static const struct kat kat10[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, /* digits of pi */
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

static const struct kat kat7[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
};

static struct philox4x32 counter_of(const uint32_t w[4])
{
    struct philox4x32 c = {{w[0], w[1], w[2], w[3]}};
    return c;
}

static void check_kat(const struct kat *k, struct philox4x32 got, int rounds)
{
    for (int i = 0; i < 4; i++)
        CHECK_MSG(got.v[i] == k->want[i],
                  "philox4x32 %d ctr %08x...: word %d is %08x, expected %08x", rounds, k->ctr[0], i,
                  got.v[i], k->want[i]);
}

TEST(philox_kat_10_rounds)
{
    for (size_t i = 0; i < sizeof(kat10) / sizeof(kat10[0]); i++)
        check_kat(&kat10[i],
                  philox4x32_10(counter_of(kat10[i].ctr), kat10[i].key[0], kat10[i].key[1]), 10);
}

/* Seven rounds from philox_round with the same key schedule (bump between
 * rounds): pins the round function and the Weyl constants separately from
 * the round count. */
TEST(philox_kat_7_rounds)
{
    for (size_t i = 0; i < sizeof(kat7) / sizeof(kat7[0]); i++) {
        struct philox4x32 c = counter_of(kat7[i].ctr);
        uint32_t k0 = kat7[i].key[0], k1 = kat7[i].key[1];
        for (int r = 0; r < 7; r++) {
            if (r > 0) {
                k0 += PHILOX_W0;
                k1 += PHILOX_W1;
            }
            c = philox_round(c, k0, k1);
        }
        check_kat(&kat7[i], c, 7);
    }
}

TEST(philox_is_a_pure_function)
{
    struct philox4x32 c = {{1, 2, 3, 4}};
    struct philox4x32 a = philox4x32_10(c, 5, 6);
    struct philox4x32 b = philox4x32_10(c, 5, 6);
    struct philox4x32 d = philox4x32_10(c, 5, 7);
    for (int i = 0; i < 4; i++)
        CHECK(a.v[i] == b.v[i]);
    CHECK(a.v[0] != d.v[0] || a.v[1] != d.v[1]);
    CHECK(c.v[0] == 1 && c.v[3] == 4); /* the counter is taken by value */
}

TEST(philox_unit_floats)
{
    CHECK(philox_unit24(0) == 0.0);
    CHECK(philox_unit24(0xFFFFFFFFu) == 1.0 - 0x1p-24);
    CHECK(philox_unit24(0x80000000u) == 0.5);
    CHECK(philox_unit24(0x000000FFu) == 0.0); /* the low 8 bits are dropped */
    CHECK(philox_unit24(0x00000100u) == 0x1p-24);
    CHECK(philox_unit53(0, 0) == 0.0);
    CHECK(philox_unit53(0xFFFFFFFFu, 0xFFFFFFFFu) == 1.0 - 0x1p-53);
    CHECK(philox_unit53(0x80000000u, 0) == 0.5);
    CHECK(philox_unit53(0, 0x00000800u) == 0x1p-53);
    CHECK(philox_unit53(0, 0x000007FFu) == 0.0);
    /* float of the 24-bit value is exact: [0, 1) with no rounding up to 1 */
    CHECK((float)philox_unit24(0xFFFFFFFFu) < 1.0f);
}

/*
 * cuRAND equivalence. From curand_kernel.h / curand_philox4x32_x.h (CUDA 12):
 * curand_init(seed, subsequence, offset, &st) for curandStatePhilox4_32_10_t
 * sets key = (low 32 bits of seed, high 32 bits of seed) and counter = (0, 0,
 * low(subsequence), high(subsequence)) (skipahead_sequence adds into the upper
 * two words), then skipahead(offset) adds offset / 4 into the lower two words
 * and starts at word offset % 4 of that block. Each curand() returns the next
 * word and, after the fourth, increments the 128-bit counter by one. The round
 * function and key schedule are Random123's, so the k-th output of cuRAND is
 *   philox4x32_10(counter + (offset % 4 + k) / 4, key).v[(offset % 4 + k) % 4].
 * The expected words below were produced by cuRAND's own code (curand_init and
 * curand compiled for the host by nvcc with QUALIFIERS made __host__
 * __device__); tests/cpu/cuda_host_equiv.sh recomputes them live when nvcc is
 * present.
 */
struct curand_case {
    uint64_t seed, subsequence, offset;
    uint32_t want[6];
};

static const struct curand_case curand_cases[] = {
    {0x0ull,
     0x0ull,
     0x0ull,
     {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u, 0xf8e4cca4u, 0x5cb200dbu}},
    {0x1ull,
     0x0ull,
     0x0ull,
     {0xe3e80670u, 0xe50a0ebcu, 0x95f222c0u, 0xb615aa27u, 0xac08141bu, 0xdfc5ccbeu}},
    {0x123456789abcdefull,
     0x5ull,
     0x7ull,
     {0xa1bd1919u, 0x644af2c9u, 0x0aab6850u, 0x81064203u, 0x05721106u, 0xc58f49d0u}},
    {0x2aull,
     0x100000000ull,
     0x3ull,
     {0xc8fa5a2du, 0x1f858d22u, 0x5a936ff5u, 0x261ef70du, 0x92dd60bfu, 0x207eb3d4u}},
    {0xffffffffffffffffull,
     0xffffffffffffffffull,
     0xffffffffffffffffull,
     {0x411fcefdu, 0xc6c2f643u, 0x593202a0u, 0x1edab3f5u, 0xfef481e0u, 0xfd61fbd9u}},
    {0x7ull,
     0x3ull,
     0x400000002ull,
     {0x40122b19u, 0x96bc54d0u, 0x42e11c14u, 0xf0b5d328u, 0xc2d65c52u, 0x4cdfb60du}},
    {0x7e8ull,
     0x0ull,
     0x3ffffffffull,
     {0x5b642cf9u, 0x48ef3da5u, 0x13bf1a18u, 0x870cafdau, 0xa6517dfdu, 0x70b0b8bfu}},
};

/* The k-th 32-bit output of cuRAND's Philox4_32_10 after
 * curand_init(seed, subsequence, offset), computed with philox.h alone. */
static uint32_t curand_equivalent(uint64_t seed, uint64_t subsequence, uint64_t offset, uint64_t k)
{
    uint64_t pos = offset % 4 + k;
    /* offset / 4 + pos / 4 fits in 64 bits for offset < 2^64 and small k;
     * a carry into the upper words is handled for completeness */
    uint64_t lo_in = offset / 4;
    uint64_t lo = lo_in + pos / 4;
    uint64_t hi = subsequence + (lo < lo_in ? 1 : 0);
    struct philox4x32 c = {
        {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)}};
    return philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32)).v[pos % 4];
}

TEST(philox_matches_curand_philox4_32_10)
{
    for (size_t i = 0; i < sizeof(curand_cases) / sizeof(curand_cases[0]); i++) {
        const struct curand_case *cc = &curand_cases[i];
        for (int k = 0; k < 6; k++) {
            uint32_t got = curand_equivalent(cc->seed, cc->subsequence, cc->offset, (uint64_t)k);
            CHECK_MSG(got == cc->want[k],
                      "seed %#llx subsequence %#llx offset %#llx output %d: %08x, curand %08x",
                      (unsigned long long)cc->seed, (unsigned long long)cc->subsequence,
                      (unsigned long long)cc->offset, k, got, cc->want[k]);
        }
    }
}
