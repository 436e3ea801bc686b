/*
 * tolerance_step7.c - CPU oracle for the tolerances of the step-7 problems:
 * autotuned-matmul (P21), grouped-matmul (P22), split-k-matmul (P23),
 * block-pointer-matmul (P24) and vectorized-add (P25).
 *
 * Simulates the arithmetic of correct kernels and of the classic wrong ones
 * against an exact reference and judges each with the problem's rule
 * |got - ref| <= atol + rtol*|ref| + acc*S. It prints, per shape and variant,
 * the worst ratio |got - ref| / bound (pass iff <= 1), then asserts the
 * design: every correct variant passes with margin, every wrong one fails
 * on some test shape by a clear factor.
 *
 *   tolerance_step7 [--full]    --full: more sampled outputs per shape
 *
 * Ends with "N passed, N failed, 0 skipped". Inputs come from a local
 * generator with the problems' distributions, rounded to fp16.
 *
 * The tensor-core model is Hopper's mma datapath as measured by MMA-Sim
 * (Microsoft, 2025): for one m16n8k16 instruction, the 16 products and the
 * accumulator are aligned to the largest exponent and truncated to 25
 * fractional bits, summed exactly, and the sum is truncated to fp32 (f32
 * accumulators) or rounded to nearest even fp16 (f16 accumulators).
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_common.h"

/* ---- rounding ------------------------------------------------------------ */

/* Nearest-even binary16 (subnormals kept, overflow to inf). */
static double round_half(double v)
{
    double a = fabs(v);
    if (isnan(v) || isinf(v))
        return v;
    if (a >= 65520.0)
        return copysign(INFINITY, v);
    if (a < 0x1p-14)
        return copysign(nearbyint(a * 0x1p24) * 0x1p-24, v);
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    double ulp = ldexp(1.0, e - 11);
    return copysign(nearbyint(a / ulp) * ulp, v);
}

/* One ulp of a binary16 value's binade (subnormal spacing below 2^-14). */
static double half_ulp(double v)
{
    double a = fabs(v);
    if (a < 0x1p-14)
        return 0x1p-24;
    int e;
    frexp(a, &e);
    return ldexp(1.0, e - 11);
}

/* Truncation of an exact value to fp32. */
static double trunc_f32(double v)
{
    if (v == 0 || !isfinite(v))
        return v;
    float f = (float)v;
    if (fabs((double)f) > fabs(v))
        f = nextafterf(f, 0.0f);
    return f;
}

/* Hopper's fused dot-add of n <= 16 products and c, returned exactly. */
static double fused_dot_add(const double *a, const double *b, int n, double c)
{
    double terms[17];
    int m = 0, e_max = INT32_MIN;
    terms[m++] = c;
    for (int i = 0; i < n; i++)
        terms[m++] = a[i] * b[i];
    for (int i = 0; i < m; i++) {
        if (terms[i] == 0)
            continue;
        int e;
        frexp(terms[i], &e);
        if (e > e_max)
            e_max = e;
    }
    if (e_max == INT32_MIN)
        return 0;
    double unit = ldexp(1.0, e_max - 1 - 25), s = 0;
    for (int i = 0; i < m; i++)
        s += trunc(terms[i] / unit);
    return s * unit;
}

/* ---- dot-product variants ------------------------------------------------ */

enum variant {
    V_MMA_F32,   /* mma.sync f32 accumulators, k ascending in blocks of 16 */
    V_FFMA,      /* fp32 fmaf, k ascending (one thread per output) */
    V_SPLIT_MMA, /* SPLIT chunks of mma f32, the partials added in order in fp32 */
    V_MMA_F16,   /* mma.sync f16 accumulators (rounded per instruction) */
    V_HFMA,      /* fp16 fma chain, rounded per element */
};

static const char *variant_name[] = {"mma f32 acc", "fp32 fmaf loop", "split-K mma f32",
                                     "mma f16 acc", "hfma chain"};

static int split_k = 1;

/* a, b: K values each (already fp16-representable). */
static double dot(enum variant v, const double *a, const double *b, long k)
{
    double acc = 0;
    switch (v) {
    case V_MMA_F32:
    case V_MMA_F16:
        for (long k0 = 0; k0 < k; k0 += 16) {
            int n = (int)(k - k0 < 16 ? k - k0 : 16);
            double s = fused_dot_add(a + k0, b + k0, n, acc);
            acc = v == V_MMA_F32 ? trunc_f32(s) : round_half(s);
        }
        return acc;
    case V_FFMA: {
        float f = 0;
        for (long i = 0; i < k; i++)
            f = fmaf((float)a[i], (float)b[i], f);
        return f;
    }
    case V_SPLIT_MMA: {
        long chunk = (k + split_k - 1) / split_k;
        chunk = (chunk + 31) / 32 * 32;
        float total = 0;
        for (long s0 = 0; s0 < k; s0 += chunk) {
            long n = k - s0 < chunk ? k - s0 : chunk;
            total += (float)dot(V_MMA_F32, a + s0, b + s0, n);
        }
        return total;
    }
    case V_HFMA:
        for (long i = 0; i < k; i++)
            acc = round_half(a[i] * b[i] + acc);
        return acc;
    }
    return acc;
}

/* ---- the matmul problems ------------------------------------------------- */

struct rule {
    double atol, rtol, acc;
    bool half_out; /* the output is fp16: round the kernel's result */
};

struct shape {
    long m, n, k;
    double lo, hi; /* U(lo, hi) inputs */
};

/* Judges `samples` outputs of one shape, drawing a fresh row of A and column
 * of B for each (outputs are independent). worst[0]: the worst
 * |got - ref| / bound with the unrounded fp64 reference (what judge/worker/compare.c
 * does); worst[1]: with the reference rounded to the output dtype first (what
 * docs/problem-format.md says). *failing: the fraction of outputs over the
 * bound (unrounded reference). */
static void judge_shape(enum variant v, const struct rule *r, const struct shape *s, long samples,
                        double worst[2], double *failing)
{
    double *a = malloc(sizeof(double) * (size_t)s->k), *b = malloc(sizeof(double) * (size_t)s->k);
    long outputs = s->m * s->n < samples ? s->m * s->n : samples, over = 0;
    worst[0] = worst[1] = 0;
    for (long o = 0; o < outputs; o++) {
        long double exact = 0, scale = 0;
        for (long i = 0; i < s->k; i++) {
            a[i] = round_half(s->lo + (s->hi - s->lo) * rng_unit());
            b[i] = round_half(s->lo + (s->hi - s->lo) * rng_unit());
            exact += (long double)(a[i] * b[i]);
            scale += fabsl((long double)(a[i] * b[i]));
        }
        double got = dot(v, a, b, s->k);
        got = r->half_out ? round_half(got) : (double)(float)got;
        for (int rounded = 0; rounded < 2; rounded++) {
            double ref = (double)exact;
            if (rounded)
                ref = r->half_out ? round_half(ref) : (double)(float)ref;
            double bound = r->atol + r->rtol * fabs(ref) + r->acc * (double)scale;
            double ratio = isfinite(got) ? fabs(got - ref) / bound : INFINITY;
            if (ratio > worst[rounded])
                worst[rounded] = ratio;
            if (!rounded && ratio > 1)
                over++;
        }
    }
    *failing = outputs ? (double)over / (double)outputs : 0;
    free(a);
    free(b);
}

static void matmul_problem(const char *id, const struct rule *r, const struct shape *shapes,
                           int n_shapes, const enum variant *good, int n_good,
                           const enum variant *bad, int n_bad)
{
    char what[256];
    printf("\n== %s: |got - ref| <= %g + %g |ref| + %g S%s\n", id, r->atol, r->rtol, r->acc,
           r->half_out ? ", fp16 output" : ", fp32 output");
    printf("correct variants: worst ratio with the unrounded / rounded reference; "
           "wrong ones: worst ratio (fraction of outputs failing)\n");
    printf("%-27s", "shape (M, N, K) data");
    for (int v = 0; v < n_good; v++)
        printf(" %17s", variant_name[good[v]]);
    for (int v = 0; v < n_bad; v++)
        printf(" %17s", variant_name[bad[v]]);
    printf("\n");
    double good_worst[8][2] = {{0}}, bad_best[8] = {0};
    for (int i = 0; i < n_shapes; i++) {
        const struct shape *s = &shapes[i];
        long samples = s->k > 100000 ? 40 : s->k > 5000 ? 400 : 3000;
        if (full_mode)
            samples *= 8;
        char label[64];
        snprintf(label, sizeof(label), "(%ld,%ld,%ld) U(%g,%g)", s->m, s->n, s->k, s->lo, s->hi);
        printf("%-27s", label);
        for (int v = 0; v < n_good; v++) {
            double w[2], f;
            rng_seed((uint64_t)(i * 100 + v));
            judge_shape(good[v], r, s, samples, w, &f);
            for (int k = 0; k < 2; k++)
                if (w[k] > good_worst[v][k])
                    good_worst[v][k] = w[k];
            printf("       %5.3f/%5.3f", w[0], w[1]);
        }
        for (int v = 0; v < n_bad; v++) {
            double w[2], f;
            rng_seed((uint64_t)(i * 100 + 50 + v));
            judge_shape(bad[v], r, s, samples, w, &f);
            if (w[0] > bad_best[v])
                bad_best[v] = w[0];
            printf("     %5.2f (%4.0f%%)", w[0], 100 * f);
        }
        printf("\n");
    }
    for (int v = 0; v < n_good; v++) {
        snprintf(
            what, sizeof(what),
            "%s: %s passes every shape (worst %.3g <= 0.6; %.3g <= 1 with a rounded reference)", id,
            variant_name[good[v]], good_worst[v][0], good_worst[v][1]);
        expect(good_worst[v][0] <= 0.6 && good_worst[v][1] <= 1.0, what);
    }
    for (int v = 0; v < n_bad; v++) {
        snprintf(what, sizeof(what), "%s: %s fails some shape clearly (worst %.3g >= 2)", id,
                 variant_name[bad[v]], bad_best[v]);
        expect(bad_best[v] >= 2, what);
    }
}

/* ---- P25: fp16 add ------------------------------------------------------- */

/* A random binary16 value (finite), from every binade including subnormals. */
static double random_half(void)
{
    for (;;) {
        uint16_t bits = (uint16_t)rng_next();
        int e = (bits >> 10) & 31, m = bits & 0x3ff;
        if (e == 31)
            continue;
        double v = e ? ldexp((double)(m | 0x400), e - 25) : ldexp((double)m, -24);
        return bits & 0x8000 ? -v : v;
    }
}

static void vectorized_add(void)
{
    const double atol = 0x1p-24, rtol = 0x1p-10;
    long n = full_mode ? 200000000L : 20000000L, pairs = 0, rounded_differs = 0, fail_rn = 0;
    long fail_rz = 0, pass_2ulp = 0, pass_3ulp = 0;
    double worst_rn = 0;
    char what[256];
    printf("\n== vectorized-add: |got - ref| <= 2^-24 + 2^-10 |ref|\n");
    rng_seed(7);
    for (long i = 0; i < n; i++) {
        double a = random_half(), b = random_half();
        if ((i & 3) == 0)
            b = -a * (1 + ldexp(rng_unit(), -8)); /* near-cancellation */
        b = round_half(b);
        double exact = a + b; /* exact: both are binary16 */
        if (fabs(exact) > 65504)
            continue;
        pairs++;
        /* fp32 add then one rounding to fp16 (what a half2 -> float2 kernel does) */
        double rn = round_half((double)((float)a + (float)b));
        if (rn != round_half(exact))
            rounded_differs++;
        double bound = atol + rtol * fabs(exact);
        double ratio = fabs(rn - exact) / bound;
        if (ratio > worst_rn)
            worst_rn = ratio;
        if (ratio > 1)
            fail_rn++;
        /* rounded toward zero: within one ulp */
        double rz = round_half(exact);
        if (fabs(rz) > fabs(exact))
            rz = copysign(fabs(rz) - half_ulp(fabs(rz) - half_ulp(rz) * 0.5), rz);
        if (fabs(rz - exact) > bound)
            fail_rz++;
        /* answers 2 and 3 ulps (of the exact sum's binade) away */
        double u = half_ulp(exact);
        if (2 * u <= bound)
            pass_2ulp++;
        if (3 * u <= bound)
            pass_3ulp++;
    }
    printf("pairs %ld: fp32-add-then-round differs from the correctly rounded sum %ld times;\n"
           "worst correctly rounded ratio %.3g; truncated failures %ld;\n"
           "errors of 2 ulps that pass: %.1f%% (|ref| in the upper part of a binade); of 3 ulps: "
           "%ld\n",
           pairs, rounded_differs, worst_rn, fail_rz, 100.0 * (double)pass_2ulp / (double)pairs,
           pass_3ulp);
    expect(rounded_differs == 0,
           "vectorized-add: fp32 add then round is the correctly rounded sum");
    snprintf(what, sizeof(what), "vectorized-add: correctly rounded sums pass (worst %.3g <= 0.5)",
             worst_rn);
    expect(fail_rn == 0 && worst_rn <= 0.5 + 1e-12, what);
    expect(fail_rz == 0, "vectorized-add: a sum rounded toward zero (< 1 ulp) passes");
    expect(pass_3ulp == 0, "vectorized-add: every 3-ulp error fails");
}

int main(int argc, char **argv)
{
    full_mode = argc > 1 && strcmp(argv[1], "--full") == 0;

    /* P21, P22 and P24 share the rule and the fp16 output; their test shapes
     * (and two benchmark shapes each, sampled). */
    const struct rule mm = {1e-6, 0x1p-10, 1e-4, true};
    const struct shape p21[] = {
        {1, 8, 8, -1, 1},          {7, 8, 16, -1, 1},          {17, 24, 40, -1, 1},
        {64, 64, 64, -1, 1},       {127, 136, 72, -1, 1},      {128, 128, 128, -1, 1},
        {255, 264, 520, -1, 1},    {333, 1024, 8, -1, 1},      {17, 24, 40, 0, 1},
        {127, 136, 72, 0, 1},      {255, 264, 520, 0, 1},      {1000, 1000, 1000, -1, 1},
        {1, 4096, 4096, -1, 1},    {4096, 8, 4096, -1, 1},     {129, 392, 8192, -1, 1},
        {8192, 8192, 8192, -1, 1}, {1024, 1024, 16384, -1, 1},
    };
    const enum variant good[] = {V_MMA_F32, V_FFMA};
    const enum variant bad[] = {V_MMA_F16, V_HFMA};
    matmul_problem("autotuned-matmul (P21)", &mm, p21, (int)(sizeof(p21) / sizeof(p21[0])), good, 2,
                   bad, 2);

    const struct shape p22[] = {
        {1, 8, 8, -1, 1},
        {129, 136, 40, -1, 1},
        {300, 520, 72, -1, 1},
        {1000, 1000, 64, -1, 1},
        {1300, 392, 40, 0, 1},
        {2049, 136, 64, -1, 1},
        {1000, 264, 128, -1, 1},
        {640, 1024, 520, -1, 1},
        {257, 4096, 8, -1, 1},
        {255, 264, 72, -1, 1},
        {1000, 1000, 1000, -1, 1},
        {1, 4096, 4096, -1, 1},
        {4096, 8, 4096, -1, 1},
        {1500, 1200, 8192, -1, 1},
        {16384, 16384, 4096, -1, 1},
        {16384, 16384, 8192, -1, 1},
    };
    matmul_problem("grouped-matmul (P22)", &mm, p22, (int)(sizeof(p22) / sizeof(p22[0])), good, 2,
                   bad, 2);

    const struct shape p24[] = {
        {1, 1, 1, -1, 1},          {17, 24, 40, -1, 1},      {33, 7, 129, -1, 1},
        {129, 136, 72, -1, 1},     {127, 129, 131, -1, 1},   {7, 129, 1000, -1, 1},
        {1000, 129, 7, -1, 1},     {257, 263, 64, -1, 1},    {100, 200, 520, -1, 1},
        {1, 7, 129, -1, 1},        {129, 1, 7, -1, 1},       {64, 64, 64, -1, 1},
        {65, 72, 96, -1, 1},       {33, 40, 48, -1, 1},      {129, 1000, 129, 0, 1},
        {1000, 1000, 1000, -1, 1}, {512, 1032, 2048, -1, 1}, {8192, 8192, 8192, -1, 1},
    };
    matmul_problem("block-pointer-matmul (P24)", &mm, p24, (int)(sizeof(p24) / sizeof(p24[0])),
                   good, 2, bad, 2);

    /* P23: fp32 output, a tighter acc term; the solution splits K (chunks
     * rounded up to 32, as its tiles), SPLIT_K from its @tune list. */
    const struct rule sk = {1e-6, 0, 2e-5, false};
    const struct shape p23[] = {
        {1, 8, 8, -1, 1},          {3, 8, 1000, -1, 1},        {3, 8, 512, 0, 1},
        {17, 24, 520, 0, 1},       {16, 16, 100024, -1, 1},    {64, 64, 65536, -1, 1},
        {100, 200, 40000, -1, 1},  {129, 136, 24008, -1, 1},   {1, 4096, 8200, -0.0625, 0.0625},
        {256, 256, 524288, -1, 1}, {128, 128, 1048576, -1, 1}, {512, 512, 131072, -1, 1},
        {64, 4096, 65536, -1, 1},
    };
    const enum variant sk_good[] = {V_SPLIT_MMA, V_MMA_F32, V_FFMA};
    const enum variant sk_bad[] = {V_MMA_F16};
    for (int s = 0; s < 2; s++) {
        split_k = s == 0 ? 7 : 256;
        char id[64];
        snprintf(id, sizeof(id), "split-k-matmul (P23), SPLIT_K = %d", split_k);
        matmul_problem(id, &sk, p23, (int)(sizeof(p23) / sizeof(p23[0])), sk_good, 3, sk_bad, 1);
    }

    vectorized_add();

    printf("%d passed, %d failed, 0 skipped\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
