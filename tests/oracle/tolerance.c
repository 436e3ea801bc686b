/*
 * tolerance.c - CPU oracle for the tolerances of problems vector-add, softmax and sgemm.
 *
 * Simulates, on the CPU, the fp32 arithmetic of correct kernels (the shipped
 * solution's summation order, a naive order) and of the classic wrong ones
 * (TF32 inputs, fp16 accumulation, softmax without the max subtracted), and
 * judges each against an fp64 reference with the problem's rule
 * |got - ref| <= atol + rtol*|ref| + acc*S. It prints, per case and variant,
 * the worst ratio |got - ref| / bound (pass iff <= 1), then asserts the
 * design: every correct variant passes with margin, every wrong one fails.
 *
 *   tolerance [--full]     --full: every element of every test shape (slow);
 *                          default: a sample of each large shape (seconds)
 *
 * It ends with "N passed, N failed, 0 skipped" (tests/cpu/tolerance-oracle.sh).
 * Inputs come from a local xoshiro256** generator with the problems'
 * distributions, not from the judge's Philox streams: what matters here is the
 * distribution, not the bits. CUDA's expf (at most 2 ulp) and __expf
 * (2 + 1.173|x| ulp) are modelled as glibc's expf plus a uniform perturbation
 * of that many ulps; that is pessimistic for expf.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_common.h"

/* --- fp32 helpers ---------------------------------------------------------- */

static float ulp_of(float x)
{
    float ax = fabsf(x);
    if (ax == 0.0f || !isfinite(ax))
        return FLT_TRUE_MIN;
    return nextafterf(ax, INFINITY) - ax;
}

/* expf with an error of up to `ulps` ulps, uniformly distributed. */
static float exp_model(float x, double ulps)
{
    float e = expf(x);
    if (e == 0.0f || !isfinite(e))
        return e;
    return (float)((double)e + rng_uniform(-ulps, ulps) * (double)ulp_of(e));
}

static float to_tf32_rna(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    b = (b + 0x1000u) & ~0x1FFFu;
    memcpy(&x, &b, 4);
    return x;
}

static float to_tf32_trunc(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    b &= ~0x1FFFu;
    memcpy(&x, &b, 4);
    return x;
}

/* Rounds to the nearest fp16 value (ties to even, overflow to inf), as a
 * double: GCC's _Float16 conversion is a correctly rounded narrowing. */
static double to_half(double x)
{
    return (double)(_Float16)x;
}

/* --- vector-add: fp32 add equals the fp64 sum rounded to fp32 ------------- */

static void check_vector_add(void)
{
    long mism = 0, n = full_mode ? 20000000 : 2000000;
    rng_seed(1);
    for (long i = 0; i < n; i++) {
        float a, b;
        if (i & 1) {
            a = (float)rng_uniform(-1000, 1000);
            b = (float)rng_uniform(-1000, 1000);
        } else {
            a = (float)(exp(rng_uniform(log(1e-6), log(1e7))) * (rng_next() & 1 ? 1 : -1));
            b = (float)(exp(rng_uniform(log(1e-6), log(1e7))) * (rng_next() & 1 ? 1 : -1));
        }
        volatile float s32 = a + b;
        float s64 = (float)((double)a + (double)b);
        if (s32 != s64)
            mism++;
    }
    printf("vector-add: %ld of %ld fp32 sums differ from the rounded fp64 sum\n", mism, n);
    expect(mism == 0, "vector-add: exact compare against rounded fp64 is sound");
}

/* --- softmax ---------------------------------------------------------------- */

enum sm_profile { SM_RANDN2, SM_U100, SM_OFFSET1000, SM_CONST, SM_SPIKE, SM_NEGINF, SM_NPROFILES };
static const char *sm_profile_name[] = {"randn2", "uniform100", "offset1000",
                                        "const",  "spike",      "neginf"};

enum sm_variant { SM_SOLUTION, SM_BLOCK256, SM_SEQUENTIAL, SM_FASTEXP, SM_NOMAX, SM_NVARIANTS };
static const char *sm_variant_name[] = {"solution (32/thread + tree)", "naive block-per-row 256",
                                        "one thread per row (sequential)", "solution with __expf",
                                        "no max subtraction"};

static void sm_gen_row(enum sm_profile p, float *x, long n)
{
    double off = 0;
    if (p == SM_OFFSET1000)
        off = rng_uniform(1000, 1010);
    if (p == SM_CONST)
        off = rng_uniform(-50, 50);
    for (long j = 0; j < n; j++) {
        double v;
        switch (p) {
        case SM_U100:
            v = rng_uniform(-100, 100);
            break;
        case SM_CONST:
            v = off;
            break;
        case SM_SPIKE:
            v = rng_normal(0, 1);
            break;
        default:
            v = rng_normal(0, 2) + off;
            break;
        }
        if (p == SM_NEGINF && rng_unit() < 0.2)
            v = -INFINITY;
        x[j] = (float)v;
    }
    if (p == SM_SPIKE)
        x[rng_next() % (uint64_t)n] = 100.0f;
}

/* The solution's summation order: T threads; thread t holds 32 elements
 * (float4 path: float4 index t + k*T; scalar path: element t + k*T), sums
 * them in order, then a butterfly within each warp and the warps in order. */
static float sm_sum_solution(const float *e, long n)
{
    long vpt = 32;
    long threads = 32 * ((n + 1023) / 1024);
    if (threads > 1024)
        threads = 1024;
    float part[1024];
    for (long t = 0; t < threads; t++) {
        float s = 0;
        if (n % 4 == 0) {
            for (long k = 0; k < vpt / 4; k++) {
                long v = t + k * threads;
                if (4 * v < n)
                    for (int c = 0; c < 4; c++)
                        s += e[4 * v + c];
            }
        } else {
            for (long k = 0; k < vpt; k++) {
                long j = t + k * threads;
                if (j < n)
                    s += e[j];
            }
        }
        part[t] = s;
    }
    for (long w = 0; w < threads; w += 32) {
        for (int off = 16; off > 0; off /= 2) {
            float tmp[32];
            for (int l = 0; l < 32; l++)
                tmp[l] = part[w + l] + part[w + (l ^ off)];
            memcpy(&part[w], tmp, sizeof(tmp));
        }
    }
    float s = 0;
    for (long w = 0; w < threads; w += 32)
        s += part[w];
    return s;
}

/* A 256-thread block: strided per-thread sums, then a shared-memory tree. */
static float sm_sum_block256(const float *e, long n)
{
    float part[256];
    for (int t = 0; t < 256; t++) {
        float s = 0;
        for (long j = t; j < n; j += 256)
            s += e[j];
        part[t] = s;
    }
    for (int st = 128; st > 0; st /= 2)
        for (int t = 0; t < st; t++)
            part[t] += part[t + st];
    return part[0];
}

/* Worst ratio |y - r| / (atol + rtol |r|) of one row; INFINITY on a NaN/Inf mismatch. */
static double sm_row_ratio(const float *x, long n, enum sm_variant v, float *e)
{
    double atol = 1e-6 / (double)n, rtol = 1e-5;
    double m = -INFINITY;
    for (long j = 0; j < n; j++)
        m = fmax(m, (double)x[j]);
    double s64 = 0;
    for (long j = 0; j < n; j++)
        s64 += exp((double)x[j] - m);

    float mf = (float)m;
    for (long j = 0; j < n; j++) {
        switch (v) {
        case SM_FASTEXP: {
            float d = x[j] - mf;
            e[j] = isfinite(d) ? exp_model(d, 2.0 + floor(fabs(1.173 * d))) : expf(d);
            break;
        }
        case SM_NOMAX:
            e[j] = exp_model(x[j], 2.0);
            break;
        default:
            e[j] = exp_model(x[j] - mf, 2.0);
            break;
        }
    }
    float s;
    switch (v) {
    case SM_BLOCK256:
        s = sm_sum_block256(e, n);
        break;
    case SM_SEQUENTIAL:
        s = 0;
        for (long j = 0; j < n; j++)
            s += e[j];
        break;
    default:
        s = sm_sum_solution(e, n);
        break;
    }
    float inv = 1.0f / s;
    double worst = 0;
    for (long j = 0; j < n; j++) {
        double r = exp((double)x[j] - m) / s64;
        float y = (v == SM_SEQUENTIAL || v == SM_BLOCK256) ? e[j] / s : e[j] * inv;
        if (!isfinite(y))
            return INFINITY;
        double ratio = fabs((double)y - r) / (atol + rtol * fabs(r));
        if (ratio > worst)
            worst = ratio;
    }
    return worst;
}

static void check_softmax(void)
{
    static const long shapes[][2] = {
        {1, 1},         {1, 2},        {3, 1},        {1, 781},     {1823, 781}, {7, 33},
        {5, 1025},      {127, 129},    {2, 4097},     {1000, 1000}, {64, 16384}, /* tests */
        {131072, 1024}, {32768, 4096}, {8192, 16384},                            /* benchmarks */
    };
    const long n_shapes = (long)(sizeof(shapes) / sizeof(shapes[0]));
    double worst[SM_NVARIANTS][SM_NPROFILES];
    for (int v = 0; v < SM_NVARIANTS; v++)
        for (int p = 0; p < SM_NPROFILES; p++)
            worst[v][p] = 0;
    float *x = malloc(16384 * sizeof(float)), *e = malloc(16384 * sizeof(float));
    if (!x || !e) {
        expect(false, "softmax: out of memory");
        goto out;
    }
    printf("\nsoftmax: worst |y - r| / (1e-6/N + 1e-5|r|) per shape (rows sampled: %s)\n",
           full_mode ? "all" : "at most 64 per shape");
    printf("%-14s %-11s", "shape", "profile");
    for (int v = 0; v < SM_NVARIANTS; v++)
        printf(" %12.12s", sm_variant_name[v]);
    printf("\n");
    rng_seed(11);
    for (long si = 0; si < n_shapes; si++) {
        long rows = shapes[si][0], n = shapes[si][1];
        long use_rows = full_mode ? rows : (rows < 64 ? rows : 64);
        if (!full_mode && n >= 16384 && rows > 16)
            use_rows = 16;
        for (int p = 0; p < SM_NPROFILES; p++) {
            if (p == SM_NEGINF && n < 33)
                continue;
            double w[SM_NVARIANTS] = {0};
            for (long r = 0; r < use_rows; r++) {
                sm_gen_row((enum sm_profile)p, x, n);
                for (int v = 0; v < SM_NVARIANTS; v++) {
                    double q = sm_row_ratio(x, n, (enum sm_variant)v, e);
                    if (q > w[v])
                        w[v] = q;
                }
            }
            char shape[32];
            snprintf(shape, sizeof(shape), "%ldx%ld", rows, n);
            printf("%-14s %-11s", shape, sm_profile_name[p]);
            for (int v = 0; v < SM_NVARIANTS; v++) {
                printf(" %12.3g", w[v]);
                if (w[v] > worst[v][p])
                    worst[v][p] = w[v];
            }
            printf("\n");
        }
    }
    double sol = 0, blk = 0, fast = 0, seq = 0;
    for (int p = 0; p < SM_NPROFILES; p++) {
        sol = fmax(sol, worst[SM_SOLUTION][p]);
        blk = fmax(blk, worst[SM_BLOCK256][p]);
        fast = fmax(fast, worst[SM_FASTEXP][p]);
        seq = fmax(seq, worst[SM_SEQUENTIAL][p]);
    }
    printf("worst ratio: solution %.3g, block-per-row %.3g, __expf %.3g, sequential %.3g\n", sol,
           blk, fast, seq);
    expect(sol < 0.5, "softmax: the solution's order passes with a 2x margin");
    expect(blk < 0.5, "softmax: a 256-thread block per row passes with a 2x margin");
    expect(fast < 1.0, "softmax: __expf passes");
    expect(isinf(worst[SM_NOMAX][SM_OFFSET1000]),
           "softmax: no max subtraction fails on rows + 1000");
    expect(isinf(worst[SM_NOMAX][SM_U100]), "softmax: no max subtraction fails on U(-100, 100)");
out:
    free(x);
    free(e);
}

/* --- sgemm ---------------------------------------------------------------- */

enum mm_variant { MM_FMA, MM_MULADD, MM_TF32, MM_TF32_TRUNC, MM_FP16ACC, MM_NVARIANTS };
static const char *mm_variant_name[] = {"fp32 fma", "fp32 mul+add", "tf32 (rna)", "tf32 (trunc)",
                                        "fp16 acc"};

/* Worst ratio over the outputs of C = A B (A: MxK, B: KxN) for each variant.
 * Shapes with more than 4096 outputs are sampled (unless --full): each sample
 * draws a fresh row of A and column of B, which has the same distribution as
 * one element of a fixed product and avoids generating 8192^2 matrices. */
static void mm_case(long m, long n, long k, bool positive, double worst[MM_NVARIANTS])
{
    long outputs = m * n;
    bool sampled = !full_mode && outputs > 4096;
    long samples = sampled ? 4096 : outputs;
    size_t a_len = (size_t)(sampled ? k : m * k), b_len = (size_t)(sampled ? k : k * n);
    float *a = malloc(a_len * sizeof(float)), *b = malloc(b_len * sizeof(float));
    double lo = positive ? 0.0 : -1.0;
    for (int v = 0; v < MM_NVARIANTS; v++)
        worst[v] = a && b ? 0 : NAN;
    if (!a || !b)
        goto out;
    if (!sampled) {
        for (size_t i = 0; i < a_len; i++)
            a[i] = (float)rng_uniform(lo, 1.0);
        for (size_t i = 0; i < b_len; i++)
            b[i] = (float)rng_uniform(lo, 1.0);
    }
    for (long s = 0; s < samples; s++) {
        long i = s / n, j = s % n, a_row = k, b_stride = n;
        if (sampled) {
            for (long q = 0; q < k; q++) {
                a[q] = (float)rng_uniform(lo, 1.0);
                b[q] = (float)rng_uniform(lo, 1.0);
            }
            i = 0;
            j = 0;
            b_stride = 1;
        }
        double r = 0, sc = 0;
        float c_fma = 0, c_ma = 0, c_tf = 0, c_tt = 0;
        double c_h = 0;
        for (long q = 0; q < k; q++) {
            float x = a[i * a_row + q], y = b[q * b_stride + j];
            r += (double)x * (double)y;
            sc += fabs((double)x * (double)y);
            c_fma = fmaf(x, y, c_fma);
            volatile float p = x * y;
            c_ma = c_ma + p;
            c_tf = fmaf(to_tf32_rna(x), to_tf32_rna(y), c_tf);
            c_tt = fmaf(to_tf32_trunc(x), to_tf32_trunc(y), c_tt);
            c_h = to_half(to_half(x) * to_half(y) + c_h);
        }
        double bound = 1e-7 + 2e-6 * sc;
        double got[MM_NVARIANTS] = {c_fma, c_ma, c_tf, c_tt, c_h};
        for (int v = 0; v < MM_NVARIANTS; v++) {
            double q = fabs(got[v] - r) / bound;
            if (!isfinite(got[v]))
                q = INFINITY;
            if (q > worst[v])
                worst[v] = q;
        }
    }
out:
    free(a);
    free(b);
}

static void check_sgemm(void)
{
    static const long shapes[][4] = {
        /* M, N, K, positive data */
        {1, 1, 1, 0},          {1, 1, 1000, 0},       {1, 5, 3, 0},          {5, 1, 3, 0},
        {2, 3, 1, 0},          {16, 16, 16, 0},       {17, 31, 13, 0},       {33, 65, 129, 0},
        {64, 64, 64, 0},       {127, 129, 131, 0},    {257, 255, 256, 0},    {129, 383, 1025, 0},
        {512, 512, 512, 0},    {1000, 1000, 1000, 0}, {1, 4096, 4096, 0},    {4096, 1, 4096, 0},
        {16, 16, 16, 1},       {17, 31, 13, 1},       {4096, 4096, 4096, 0}, {8192, 8192, 8192, 0},
        {8205, 5921, 2949, 0},
    };
    const long n_shapes = (long)(sizeof(shapes) / sizeof(shapes[0]));
    double worst_ok = 0, best_bad[MM_NVARIANTS];
    for (int v = 0; v < MM_NVARIANTS; v++)
        best_bad[v] = INFINITY;
    printf("\nsgemm: worst |c - r| / (1e-7 + 2e-6 S) over %s outputs\n",
           full_mode ? "all" : "at most 4096 sampled");
    printf("%-18s %-8s", "M,N,K", "data");
    for (int v = 0; v < MM_NVARIANTS; v++)
        printf(" %12s", mm_variant_name[v]);
    printf("\n");
    rng_seed(15);
    for (long si = 0; si < n_shapes; si++) {
        double w[MM_NVARIANTS];
        bool big = shapes[si][0] * shapes[si][1] * shapes[si][2] > 2000000000L;
        if (full_mode && big)
            continue; /* a full 4096^3 on one core would take hours */
        mm_case(shapes[si][0], shapes[si][1], shapes[si][2], shapes[si][3] != 0, w);
        char shape[48];
        snprintf(shape, sizeof(shape), "%ld,%ld,%ld", shapes[si][0], shapes[si][1], shapes[si][2]);
        printf("%-18s %-8s", shape, shapes[si][3] ? "U(0,1)" : "U(-1,1)");
        for (int v = 0; v < MM_NVARIANTS; v++)
            printf(" %12.3g", w[v]);
        printf("\n");
        worst_ok = fmax(worst_ok, fmax(w[MM_FMA], w[MM_MULADD]));
        for (int v = MM_TF32; v < MM_NVARIANTS; v++)
            best_bad[v] = fmin(best_bad[v], w[v]);
    }
    printf("worst correct fp32 ratio %.3g; smallest worst ratio: tf32 %.3g, tf32 trunc %.3g, "
           "fp16 acc %.3g\n",
           worst_ok, best_bad[MM_TF32], best_bad[MM_TF32_TRUNC], best_bad[MM_FP16ACC]);
    expect(worst_ok < 0.25, "sgemm: exact fp32 (fma or mul+add) passes with a 4x margin");
    expect(best_bad[MM_TF32] > 1, "sgemm: TF32 (round to nearest) fails on every shape");
    expect(best_bad[MM_TF32_TRUNC] > 1, "sgemm: TF32 (truncation) fails on every shape");
    expect(best_bad[MM_FP16ACC] > 1, "sgemm: fp16 accumulation fails on every shape");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--full") == 0) {
            full_mode = true;
        } else {
            fprintf(stderr, "usage: %s [--full]\n", argv[0]);
            return 2;
        }
    }
    check_vector_add();
    check_softmax();
    check_sgemm();
    printf("%d passed, %d failed, 0 skipped\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
