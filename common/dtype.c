/*
 * dtype.c - element types: names, sizes and bit-exact conversions.
 *
 * fp16 and bf16 are encoded by one routine, encode_narrow(), which rounds a
 * double straight to a binary format with `ebits` exponent and `mbits`
 * fraction bits. Going from double in one step matters: double -> float ->
 * fp16 rounds twice and can land one ulp off (a double just above an fp16 tie
 * first rounds onto the tie in float, then to even). Float inputs are widened
 * to double first, which is exact, so they too round once.
 */
#include "dtype.h"

#include <math.h>
#include <string.h>

#include "banned.h"

struct dtype_info {
    const char *name;
    const char *c_name;
    const char *triton_name;
    size_t size;
    bool is_float;
};

static const struct dtype_info infos[] = {
    [DTYPE_INVALID] = {"invalid", "void", "void", 0, false},
    [DTYPE_FP64] = {"fp64", "double", "fp64", 8, true},
    [DTYPE_FP32] = {"fp32", "float", "fp32", 4, true},
    [DTYPE_FP16] = {"fp16", "__half", "fp16", 2, true},
    [DTYPE_BF16] = {"bf16", "__nv_bfloat16", "bf16", 2, true},
    [DTYPE_INT8] = {"int8", "signed char", "i8", 1, false},
    [DTYPE_UINT8] = {"uint8", "unsigned char", "u8", 1, false},
    [DTYPE_INT32] = {"int32", "int", "i32", 4, false},
    [DTYPE_UINT32] = {"uint32", "unsigned int", "u32", 4, false},
    [DTYPE_INT64] = {"int64", "long long", "i64", 8, false},
    [DTYPE_UINT64] = {"uint64", "unsigned long long", "u64", 8, false},
};

#define DTYPE_COUNT ((int)(sizeof(infos) / sizeof(infos[0])))

static const struct dtype_info *info(enum dtype t)
{
    if ((int)t <= DTYPE_INVALID || (int)t >= DTYPE_COUNT)
        return &infos[DTYPE_INVALID];
    return &infos[t];
}

enum dtype dtype_parse(const char *name)
{
    if (!name)
        return DTYPE_INVALID;
    for (int i = DTYPE_INVALID + 1; i < DTYPE_COUNT; i++)
        if (strcmp(infos[i].name, name) == 0)
            return (enum dtype)i;
    return DTYPE_INVALID;
}

const char *dtype_name(enum dtype t)
{
    return info(t)->name;
}

const char *dtype_all_names(void)
{
    return "fp32, fp16, bf16, fp64, int8, uint8, int32, int64, uint32, uint64";
}

size_t dtype_size(enum dtype t)
{
    return info(t)->size;
}

bool dtype_is_float(enum dtype t)
{
    return info(t)->is_float;
}

const char *dtype_triton_name(enum dtype t)
{
    return info(t)->triton_name;
}

const char *dtype_c_name(enum dtype t)
{
    return info(t)->c_name;
}

static uint64_t double_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    return u;
}

static double bits_double(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof(v));
    return v;
}

/*
 * Rounds v to nearest-even in a binary format with ebits exponent bits and
 * mbits fraction bits (IEEE layout: sign, biased exponent, fraction) and
 * returns its bit pattern. Overflow gives inf, underflow gives signed zero
 * through the subnormals. NaN stays NaN: the top fraction bits are kept and
 * the quiet bit is set, so a payload cut to zero cannot turn into inf.
 */
static uint32_t encode_narrow(double v, int ebits, int mbits)
{
    uint64_t d = double_bits(v);
    uint32_t sign = (uint32_t)(d >> 63) << (ebits + mbits);
    int dexp = (int)((d >> 52) & 0x7FF);
    uint64_t dfrac = d & ((1ull << 52) - 1);
    uint32_t exp_all = (1u << ebits) - 1;
    uint32_t inf_bits = exp_all << mbits;
    int bias = (1 << (ebits - 1)) - 1;

    if (dexp == 0x7FF) {
        if (dfrac == 0)
            return sign | inf_bits;
        uint32_t frac = (uint32_t)(dfrac >> (52 - mbits)) | (1u << (mbits - 1));
        return sign | inf_bits | frac;
    }
    /* A double subnormal is below 2^-1022, far under half the smallest
     * subnormal of any narrow format: it rounds to zero. */
    if (dexp == 0)
        return sign;

    int e = dexp - 1023;                 /* |v| = sig * 2^(e - 52) */
    uint64_t sig = dfrac | (1ull << 52); /* 53 significant bits */
    int shift = 52 - mbits;              /* keep mbits fraction bits if normal */
    if (e < 1 - bias)
        shift += (1 - bias) - e; /* subnormal: quantum is 2^(1 - bias - mbits) */
    if (shift > 53)
        return sign; /* below half the smallest subnormal */

    uint64_t q = sig >> shift;
    uint64_t rem = sig & ((1ull << shift) - 1);
    uint64_t half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;

    /* For a normal, q carries the implicit bit at position mbits, so adding it
     * to (biased exponent - 1) << mbits yields the encoding, and a rounding
     * carry out of the fraction bumps the exponent by itself. A subnormal has
     * exponent field 0 and q < 2^mbits (q == 2^mbits is the smallest normal,
     * which the same sum encodes correctly). */
    uint64_t bits;
    if (e < 1 - bias)
        bits = q;
    else
        bits = ((uint64_t)(e + bias - 1) << mbits) + q;
    if (bits >= inf_bits)
        return sign | inf_bits;
    return sign | (uint32_t)bits;
}

/* Decodes a narrow-format bit pattern (as encode_narrow's) to a double, exactly. */
static double decode_narrow(uint32_t h, int ebits, int mbits)
{
    uint32_t exp_all = (1u << ebits) - 1;
    int bias = (1 << (ebits - 1)) - 1;
    uint64_t sign = (uint64_t)(h >> (ebits + mbits)) & 1;
    uint32_t exp = (h >> mbits) & exp_all;
    uint64_t frac = h & ((1u << mbits) - 1);

    if (exp == exp_all) {
        uint64_t bits = sign << 63 | 0x7FFull << 52 | frac << (52 - mbits);
        return bits_double(bits);
    }
    /* Both built from bits, without ldexp (a libm call per element was most
     * of the cost of comparing fp16 outputs): a normal value is the same
     * fraction under a rebiased exponent; a subnormal is frac times a power
     * of two that double holds exactly (at least 2^-133 for bf16). */
    if (exp == 0) {
        double mag = (double)frac * bits_double((uint64_t)(1023 + 1 - bias - mbits) << 52);
        return sign ? -mag : mag;
    }
    return bits_double(sign << 63 | (uint64_t)((int)exp - bias + 1023) << 52 |
                       frac << (52 - mbits));
}

float fp16_to_float(uint16_t h)
{
    return (float)decode_narrow(h, 5, 10);
}

uint16_t float_to_fp16(float f)
{
    return (uint16_t)encode_narrow((double)f, 5, 10);
}

float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

uint16_t float_to_bf16(float f)
{
    return (uint16_t)encode_narrow((double)f, 8, 7);
}

/* Rounds to an integer (ties to even) and clamps into [lo, hi]; NaN gives 0.
 * lo and hi are exact doubles; hi_excl is the first double above the range. */
static double round_int(double v, double lo, double hi_excl)
{
    if (isnan(v))
        return 0;
    v = nearbyint(v);
    if (v < lo)
        return lo;
    if (v >= hi_excl) {
        double top = hi_excl - 1; /* rounds back up to 2^63, 2^64 for the wide types */
        return top < hi_excl ? top : nextafter(hi_excl, 0);
    }
    return v;
}

#define TWO63 9223372036854775808.0
#define TWO64 18446744073709551616.0

double dtype_round(enum dtype t, double v)
{
    switch (t) {
    case DTYPE_FP64:
        return v;
    case DTYPE_FP32:
        return (double)(float)v;
    case DTYPE_FP16:
        return decode_narrow(encode_narrow(v, 5, 10), 5, 10);
    case DTYPE_BF16:
        return decode_narrow(encode_narrow(v, 8, 7), 8, 7);
    case DTYPE_INT8:
        return round_int(v, -128.0, 128.0);
    case DTYPE_UINT8:
        return round_int(v, 0.0, 256.0);
    case DTYPE_INT32:
        return round_int(v, -2147483648.0, 2147483648.0);
    case DTYPE_UINT32:
        return round_int(v, 0.0, 4294967296.0);
    case DTYPE_INT64:
        return round_int(v, -TWO63, TWO63);
    case DTYPE_UINT64:
        return round_int(v, 0.0, TWO64);
    case DTYPE_INVALID:
        break;
    }
    return NAN;
}

double dtype_load(enum dtype t, const void *p)
{
    switch (t) {
    case DTYPE_FP64: {
        double v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case DTYPE_FP32: {
        float v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case DTYPE_FP16:
    case DTYPE_BF16: {
        uint16_t h;
        memcpy(&h, p, sizeof(h));
        return t == DTYPE_FP16 ? decode_narrow(h, 5, 10) : decode_narrow(h, 8, 7);
    }
    case DTYPE_INT8: {
        int8_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case DTYPE_UINT8: {
        uint8_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case DTYPE_INT32: {
        int32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case DTYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    case DTYPE_INT64: {
        int64_t v;
        memcpy(&v, p, sizeof(v));
        return (double)v;
    }
    case DTYPE_UINT64: {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return (double)v;
    }
    case DTYPE_INVALID:
        break;
    }
    return NAN;
}

void dtype_store(enum dtype t, void *p, double v)
{
    double r = dtype_round(t, v);
    switch (t) {
    case DTYPE_FP64:
        memcpy(p, &v, sizeof(v));
        return;
    case DTYPE_FP32: {
        float f = (float)r;
        memcpy(p, &f, sizeof(f));
        return;
    }
    case DTYPE_FP16:
    case DTYPE_BF16: {
        uint16_t h = (uint16_t)(t == DTYPE_FP16 ? encode_narrow(v, 5, 10) : encode_narrow(v, 8, 7));
        memcpy(p, &h, sizeof(h));
        return;
    }
    case DTYPE_INT8: {
        int8_t x = (int8_t)r;
        memcpy(p, &x, sizeof(x));
        return;
    }
    case DTYPE_UINT8: {
        uint8_t x = (uint8_t)r;
        memcpy(p, &x, sizeof(x));
        return;
    }
    case DTYPE_INT32: {
        int32_t x = (int32_t)r;
        memcpy(p, &x, sizeof(x));
        return;
    }
    case DTYPE_UINT32: {
        uint32_t x = (uint32_t)r;
        memcpy(p, &x, sizeof(x));
        return;
    }
    case DTYPE_INT64: {
        int64_t x = (int64_t)r;
        memcpy(p, &x, sizeof(x));
        return;
    }
    case DTYPE_UINT64: {
        uint64_t x = (uint64_t)r;
        memcpy(p, &x, sizeof(x));
        return;
    }
    case DTYPE_INVALID:
        break;
    }
}
