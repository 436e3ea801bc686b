/* Tests of common/dtype: names, sizes and bit-exact fp16/bf16 conversions. */
#include "tests/test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/dtype.h"
#include "common/banned.h"

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static bool fp16_is_nan(uint16_t h)
{
    return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
}

static bool bf16_is_nan(uint16_t b)
{
    return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0;
}

static uint16_t store16(enum dtype t, double v)
{
    uint16_t h = 0;
    dtype_store(t, &h, v);
    return h;
}

TEST(dtype_names_sizes_and_c_names)
{
    static const struct {
        const char *name;
        enum dtype t;
        size_t size;
        bool is_float;
        const char *c_name;
    } want[] = {
        {"fp64", DTYPE_FP64, 8, true, "double"},
        {"fp32", DTYPE_FP32, 4, true, "float"},
        {"fp16", DTYPE_FP16, 2, true, "__half"},
        {"bf16", DTYPE_BF16, 2, true, "__nv_bfloat16"},
        {"int8", DTYPE_INT8, 1, false, "signed char"},
        {"uint8", DTYPE_UINT8, 1, false, "unsigned char"},
        {"int32", DTYPE_INT32, 4, false, "int"},
        {"uint32", DTYPE_UINT32, 4, false, "unsigned int"},
        {"int64", DTYPE_INT64, 8, false, "long long"},
        {"uint64", DTYPE_UINT64, 8, false, "unsigned long long"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_INT_EQ(dtype_parse(want[i].name), want[i].t);
        CHECK_STR_EQ(dtype_name(want[i].t), want[i].name);
        CHECK_INT_EQ(dtype_size(want[i].t), want[i].size);
        CHECK(dtype_is_float(want[i].t) == want[i].is_float);
        CHECK_STR_EQ(dtype_c_name(want[i].t), want[i].c_name);
        CHECK_CONTAINS(dtype_all_names(), want[i].name);
    }
    CHECK_INT_EQ(dtype_parse("fp8"), DTYPE_INVALID);
    CHECK_INT_EQ(dtype_parse("FP32"), DTYPE_INVALID);
    CHECK_INT_EQ(dtype_parse(""), DTYPE_INVALID);
    CHECK_INT_EQ(dtype_parse(NULL), DTYPE_INVALID);
    CHECK_STR_EQ(dtype_name(DTYPE_INVALID), "invalid");
    CHECK_INT_EQ(dtype_size(DTYPE_INVALID), 0);
    CHECK_INT_EQ(dtype_size((enum dtype)99), 0);
    CHECK(!dtype_is_float(DTYPE_INVALID));
}

TEST(fp16_known_values)
{
    CHECK(fp16_to_float(0x0000) == 0.0f && !signbit(fp16_to_float(0x0000)));
    CHECK(fp16_to_float(0x8000) == 0.0f && signbit(fp16_to_float(0x8000)));
    CHECK(fp16_to_float(0x3C00) == 1.0f);
    CHECK(fp16_to_float(0xC000) == -2.0f);
    CHECK(fp16_to_float(0x3555) == 0x1.554p-2f);
    CHECK(fp16_to_float(0x7BFF) == 65504.0f);
    CHECK(fp16_to_float(0x0400) == 0x1p-14f);
    CHECK(fp16_to_float(0x03FF) == 0x3FFp-24f);
    CHECK(fp16_to_float(0x0001) == 0x1p-24f);
    CHECK(isinf(fp16_to_float(0x7C00)) && fp16_to_float(0x7C00) > 0);
    CHECK(isinf(fp16_to_float(0xFC00)) && fp16_to_float(0xFC00) < 0);
    CHECK(isnan(fp16_to_float(0x7E00)));
    CHECK(isnan(fp16_to_float(0x7C01)));
    CHECK_INT_EQ(float_to_fp16(1.0f), 0x3C00);
    CHECK_INT_EQ(float_to_fp16(-0.0f), 0x8000);
    CHECK_INT_EQ(float_to_fp16(65504.0f), 0x7BFF);
    CHECK_INT_EQ(float_to_fp16(1e6f), 0x7C00);
    CHECK_INT_EQ(float_to_fp16(-1e6f), 0xFC00);
    CHECK_INT_EQ(float_to_fp16(INFINITY), 0x7C00);
    CHECK_INT_EQ(float_to_fp16(1e-30f), 0x0000);
    CHECK_INT_EQ(float_to_fp16(-1e-30f), 0x8000);
}

TEST(bf16_known_values)
{
    CHECK(bf16_to_float(0x3F80) == 1.0f);
    CHECK(bf16_to_float(0xC040) == -3.0f);
    CHECK(bf16_to_float(0x7F7F) == 0x1.FEp127f);
    CHECK(bf16_to_float(0x0001) == 0x1p-133f);
    CHECK(bf16_to_float(0x0080) == 0x1p-126f);
    CHECK(isinf(bf16_to_float(0x7F80)));
    CHECK(isnan(bf16_to_float(0x7FC0)));
    CHECK_INT_EQ(float_to_bf16(1.0f), 0x3F80);
    CHECK_INT_EQ(float_to_bf16(-0.0f), 0x8000);
    CHECK_INT_EQ(float_to_bf16(0x1.FEp127f), 0x7F7F);
    /* FLT_MAX lies above the tie between bf16's max and 2^128: inf. */
    CHECK_INT_EQ(float_to_bf16(0x1.FFFFFEp127f), 0x7F80);
    CHECK_INT_EQ(float_to_bf16(0x1p-133f), 0x0001);
    CHECK_INT_EQ(float_to_bf16(0x1p-134f), 0x0000);    /* tie to even: 0 */
    CHECK_INT_EQ(float_to_bf16(0x1.02p-134f), 0x0001); /* just above the tie */
    CHECK_INT_EQ(float_to_bf16(0x1p-149f), 0x0000);    /* float's smallest */
}

/* Every one of the 65536 fp16 patterns: decode, re-encode, compare; values
 * strictly increase with the pattern over the positive range; the double
 * route (dtype_load / dtype_store / dtype_round) agrees with the float one. */
TEST(fp16_exhaustive_round_trip)
{
    float prev = -1.0f;
    int bad = 0;
    for (uint32_t i = 0; i < 65536 && bad < 10; i++) {
        uint16_t h = (uint16_t)i;
        float f = fp16_to_float(h);
        double d = dtype_load(DTYPE_FP16, &h);
        if (fp16_is_nan(h)) {
            bad += !isnan(f) || !isnan(d) || !fp16_is_nan(float_to_fp16(f)) ||
                   !fp16_is_nan(store16(DTYPE_FP16, d)) || !isnan(dtype_round(DTYPE_FP16, d));
            /* the sign and the top payload bits survive; the quiet bit is set */
            bad += (float_to_fp16(f) | 0x0200) != (h | 0x0200);
            continue;
        }
        if (d != (double)f || !signbit(d) != !signbit(f)) {
            CHECK_MSG(0, "0x%04x: load %a != float %a", i, d, (double)f);
            bad++;
        }
        if (float_to_fp16(f) != h || store16(DTYPE_FP16, d) != h) {
            CHECK_MSG(0, "0x%04x: round trip gives 0x%04x / 0x%04x", i, float_to_fp16(f),
                      store16(DTYPE_FP16, d));
            bad++;
        }
        if (dtype_round(DTYPE_FP16, d) != d) {
            CHECK_MSG(0, "0x%04x: dtype_round moves a representable value", i);
            bad++;
        }
        if (h <= 0x7C00) {
            if (!(f > prev) && h != 0) {
                CHECK_MSG(0, "0x%04x: %a not above the previous %a", i, (double)f, (double)prev);
                bad++;
            }
            prev = f;
        }
    }
    CHECK_INT_EQ(bad, 0);
}

TEST(bf16_exhaustive_round_trip)
{
    float prev = -1.0f;
    int bad = 0;
    for (uint32_t i = 0; i < 65536 && bad < 10; i++) {
        uint16_t b = (uint16_t)i;
        float f = bf16_to_float(b);
        double d = dtype_load(DTYPE_BF16, &b);
        if (float_bits(f) != i << 16) {
            CHECK_MSG(0, "0x%04x: bf16_to_float gives bits 0x%08x", i, float_bits(f));
            bad++;
        }
        if (bf16_is_nan(b)) {
            bad +=
                !isnan(d) || !bf16_is_nan(float_to_bf16(f)) || !bf16_is_nan(store16(DTYPE_BF16, d));
            bad += (float_to_bf16(f) | 0x0040) != (b | 0x0040);
            continue;
        }
        if (d != (double)f || float_to_bf16(f) != b || store16(DTYPE_BF16, d) != b ||
            dtype_round(DTYPE_BF16, d) != d) {
            CHECK_MSG(0, "0x%04x: round trip fails (0x%04x, 0x%04x)", i, float_to_bf16(f),
                      store16(DTYPE_BF16, d));
            bad++;
        }
        if (b <= 0x7F80) {
            if (!(f > prev) && b != 0) {
                CHECK_MSG(0, "0x%04x: not increasing", i);
                bad++;
            }
            prev = f;
        }
    }
    CHECK_INT_EQ(bad, 0);
}

TEST(fp16_ties_round_to_even)
{
    /* Between 1 (0x3C00, even) and 1+2^-10 (0x3C01): the tie goes down. */
    CHECK_INT_EQ(float_to_fp16(1.0f + 0x1p-11f), 0x3C00);
    CHECK_INT_EQ(float_to_fp16(1.0f + 0x1p-11f + 0x1p-23f), 0x3C01);
    CHECK_INT_EQ(float_to_fp16(1.0f + 0x1p-11f - 0x1p-23f), 0x3C00);
    /* Between 0x3C01 (odd) and 0x3C02: the tie goes up. */
    CHECK_INT_EQ(float_to_fp16(1.0f + 3 * 0x1p-11f), 0x3C02);
    CHECK_INT_EQ(float_to_fp16(-(1.0f + 3 * 0x1p-11f)), 0xBC02);
    /* The overflow threshold: 65520 is the tie between 65504 and 2^16. */
    CHECK_INT_EQ(float_to_fp16(65519.0f), 0x7BFF);
    CHECK_INT_EQ(float_to_fp16(65520.0f), 0x7C00);
    CHECK_INT_EQ(store16(DTYPE_FP16, 65519.99999), 0x7BFF);
    CHECK_INT_EQ(store16(DTYPE_FP16, -65520.0), 0xFC00);
    /* A carry out of the fraction bumps the exponent: 2 - 2^-12 -> 2. */
    CHECK_INT_EQ(float_to_fp16(2.0f - 0x1p-12f), 0x4000);
    /* bf16: 1 + 2^-8 is the tie between 0x3F80 and 0x3F81. */
    CHECK_INT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3F80);
    CHECK_INT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);
    CHECK_INT_EQ(float_to_bf16(1.0f + 0x1p-8f + 0x1p-23f), 0x3F81);
    /* fp32 via dtype_round: 1 + 2^-24 ties to 1. */
    CHECK(dtype_round(DTYPE_FP32, 1.0 + 0x1p-24) == 1.0);
    CHECK(dtype_round(DTYPE_FP32, 1.0 + 0x1p-24 + 0x1p-50) == 1.0 + 0x1p-23);
}

TEST(fp16_subnormal_boundaries)
{
    /* Half the smallest subnormal (2^-25) ties to even: zero. */
    CHECK_INT_EQ(store16(DTYPE_FP16, 0x1p-25), 0x0000);
    CHECK_INT_EQ(store16(DTYPE_FP16, -0x1p-25), 0x8000);
    CHECK_INT_EQ(store16(DTYPE_FP16, 0x1.0000000000001p-25), 0x0001);
    CHECK_INT_EQ(store16(DTYPE_FP16, 0x1.fffffffffffffp-26), 0x0000);
    /* 1.5 quanta ties to 2, 2.5 quanta ties to 2. */
    CHECK_INT_EQ(store16(DTYPE_FP16, 3 * 0x1p-25), 0x0002);
    CHECK_INT_EQ(store16(DTYPE_FP16, 5 * 0x1p-25), 0x0002);
    /* Between the largest subnormal 0x03FF and the smallest normal 0x0400. */
    CHECK_INT_EQ(store16(DTYPE_FP16, 0x1p-14 - 0x1p-25), 0x0400);
    CHECK_INT_EQ(store16(DTYPE_FP16, 0x1p-14 - 0x1p-25 - 0x1p-60), 0x03FF);
    CHECK_INT_EQ(store16(DTYPE_FP16, 0x1p-14), 0x0400);
    CHECK(dtype_round(DTYPE_FP16, 0x1p-24 * 0.75) == 0x1p-24);
    CHECK(dtype_round(DTYPE_FP16, 0x1p-24 * 0.25) == 0.0);
    /* A double subnormal rounds to a signed zero. */
    CHECK_INT_EQ(store16(DTYPE_FP16, -0x1p-1070), 0x8000);
    CHECK_INT_EQ(store16(DTYPE_BF16, 0x1p-1070), 0x0000);
    /* bf16 subnormals come from float subnormals and normals alike. */
    CHECK_INT_EQ(store16(DTYPE_BF16, 0x1p-126 - 0x1p-134), 0x0080);
    CHECK_INT_EQ(store16(DTYPE_BF16, 0x7Fp-133), 0x007F);
    CHECK_INT_EQ(float_to_bf16(0x1.8p-133f), 0x0002); /* 1.5 quanta: tie to even 2 */
}

/* Going through float first would round twice and give the wrong answer here. */
TEST(double_rounds_once)
{
    double d = 1.0 + 0x1p-11 + 0x1p-40;            /* just above the fp16 tie at 1 + 2^-11 */
    CHECK((double)(float)d == 1.0 + 0x1p-11);      /* float lands on the tie */
    CHECK_INT_EQ(float_to_fp16((float)d), 0x3C00); /* and then rounds to even */
    CHECK_INT_EQ(store16(DTYPE_FP16, d), 0x3C01);  /* the correct answer */
    CHECK(dtype_round(DTYPE_FP16, d) == 1.0 + 0x1p-10);
    double b = 1.0 + 0x1p-8 + 0x1p-40; /* the same for bf16 */
    CHECK_INT_EQ(float_to_bf16((float)b), 0x3F80);
    CHECK_INT_EQ(store16(DTYPE_BF16, b), 0x3F81);
    CHECK(dtype_round(DTYPE_BF16, b) == 1.0 + 0x1p-7);
    /* Below the tie, float rounding up onto the tie would round it to even. */
    double c = 1.0 + 3 * 0x1p-11 - 0x1p-40;
    CHECK_INT_EQ(float_to_fp16((float)c), 0x3C02);
    CHECK_INT_EQ(store16(DTYPE_FP16, c), 0x3C01);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* For random doubles, the encoding is the nearest value (ties to even), judged
 * against the two neighbouring patterns. */
static int check_nearest(enum dtype t, uint16_t max_finite, double v)
{
    uint16_t h = store16(t, v);
    uint16_t mag = h & 0x7FFF;
    if (mag > max_finite)
        return 0; /* overflow is covered by the known-value tests */
    double got = dtype_load(t, &h);
    double err = fabs(v - got);
    for (int step = -1; step <= 1; step += 2) {
        int n = (int)mag + step;
        if (n < 0 || n > max_finite)
            continue;
        uint16_t other = (uint16_t)((h & 0x8000) | n);
        double e2 = fabs(v - dtype_load(t, &other));
        if (e2 < err || (e2 == err && (mag & 1)))
            return 1;
    }
    return 0;
}

TEST(random_doubles_round_to_nearest)
{
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = rng_next();
        double m = (double)(r >> 11) * 0x1p-53; /* [0, 1) with 53 bits */
        int e = (int)(rng_next() % 50) - 30;    /* fp16: 2^-30 .. 2^19 */
        double v = ldexp(1.0 + m, e) * ((r & 1) ? -1 : 1);
        bad += check_nearest(DTYPE_FP16, 0x7BFF, v);
        int eb = (int)(rng_next() % 270) - 140; /* bf16: 2^-140 .. 2^129 */
        bad += check_nearest(DTYPE_BF16, 0x7F7F, ldexp(1.0 + m, eb));
    }
    CHECK_INT_EQ(bad, 0);
}

TEST(nan_stays_nan)
{
    /* A float NaN whose payload sits only in the low bits must not become inf. */
    float low = bits_float(0x7F800001u);
    CHECK(isnan(low));
    CHECK(fp16_is_nan(float_to_fp16(low)));
    CHECK(bf16_is_nan(float_to_bf16(low)));
    CHECK(fp16_is_nan(float_to_fp16(bits_float(0xFFC00000u))));
    CHECK((float_to_fp16(bits_float(0xFFC00000u)) & 0x8000) != 0);
    CHECK(fp16_is_nan(store16(DTYPE_FP16, NAN)));
    CHECK(bf16_is_nan(store16(DTYPE_BF16, -NAN)));
    CHECK(isnan(dtype_round(DTYPE_FP32, NAN)));
    CHECK(isnan(dtype_round(DTYPE_FP16, NAN)));
    CHECK(isnan(dtype_round(DTYPE_BF16, NAN)));
    float f = 0;
    dtype_store(DTYPE_FP32, &f, NAN);
    CHECK(isnan(f));
    CHECK(isinf(dtype_round(DTYPE_FP16, 1e300)));
    CHECK(isinf(dtype_round(DTYPE_FP32, -1e300)) && dtype_round(DTYPE_FP32, -1e300) < 0);
}

TEST(integer_load_store_round)
{
    struct {
        enum dtype t;
        double v;
    } exact[] = {
        {DTYPE_INT8, -128},
        {DTYPE_INT8, 127},
        {DTYPE_UINT8, 255},
        {DTYPE_UINT8, 0},
        {DTYPE_INT32, -2147483648.0},
        {DTYPE_INT32, 2147483647.0},
        {DTYPE_UINT32, 4294967295.0},
        {DTYPE_INT64, -9223372036854775808.0},
        {DTYPE_INT64, 9007199254740993.0 - 1},
        {DTYPE_UINT64, 18446744073709549568.0},
        {DTYPE_FP64, 0.1},
        {DTYPE_FP32, 0.5},
    };
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
        unsigned char mem[9] = {0};
        dtype_store(exact[i].t, mem + 1, exact[i].v); /* unaligned on purpose */
        double back = dtype_load(exact[i].t, mem + 1);
        CHECK_MSG(back == exact[i].v, "%s %.17g loads back as %.17g", dtype_name(exact[i].t),
                  exact[i].v, back);
    }
    int64_t big = INT64_MAX;
    CHECK(dtype_load(DTYPE_INT64, &big) == 9223372036854775808.0);
    uint8_t u = 200;
    CHECK(dtype_load(DTYPE_UINT8, &u) == 200.0);
    int8_t s = -5;
    CHECK(dtype_load(DTYPE_INT8, &s) == -5.0);
    CHECK(dtype_round(DTYPE_INT32, 2.5) == 2.0);
    CHECK(dtype_round(DTYPE_INT32, 3.5) == 4.0);
    CHECK(dtype_round(DTYPE_INT32, -2.5) == -2.0);
    CHECK(dtype_round(DTYPE_INT8, 300) == 127.0);
    CHECK(dtype_round(DTYPE_UINT8, -3) == 0.0);
    CHECK(dtype_round(DTYPE_UINT32, NAN) == 0.0);
    CHECK(dtype_round(DTYPE_INT64, 1e30) == 9223372036854774784.0);
    CHECK(dtype_round(DTYPE_UINT64, 1e30) == 18446744073709549568.0);
    CHECK(dtype_round(DTYPE_UINT32, 1e30) == 4294967295.0);
    int64_t x = 0;
    dtype_store(DTYPE_INT64, &x, 1e30); /* clamped, not undefined */
    CHECK(x > 0);
    CHECK(isnan(dtype_load(DTYPE_INVALID, &x)));
}
