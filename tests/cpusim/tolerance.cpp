/*
 * tolerance.cpp - CPU simulations of the step-8 tolerances (problems 26-30).
 *
 * For each problem it simulates, in the arithmetic a GPU kernel would use
 * (fp32, fp16/bf16 roundings, fp32 exp within its error bound), a correct
 * kernel and the classic mistakes, compares each with an fp64 reference
 * using the problem's rule |got - ref| <= atol + rtol*|ref| + acc*S, and
 * prints the worst |got - ref| / bound (pass iff <= 1) and the fraction of
 * elements that fail. Then it asserts the design: correct variants pass with
 * margin, the mistakes fail. Inputs come from a local generator with the
 * problems' distributions (the distribution matters here, not the bits).
 *
 *   tolerance [PROBLEM...]     (default: all; ends with "N passed, N failed, 0 skipped")
 *
 * Build: g++ -std=c++20 -O2 -ffp-contract=off -I. tests/cpusim/tolerance.cpp
 *        build/libcommon.a -o build/cpusim/tolerance
 * CUDA's expf / exp2f (at most 2 ulp off, FTZ off) are modelled as the C
 * library's plus a uniform perturbation of up to 2 ulp.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "common/dtype.h"
}

static int n_pass, n_fail;

static void expect(bool ok, const std::string &what)
{
    if (ok)
        n_pass++;
    else
        n_fail++;
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
}

static std::mt19937_64 rng(20261129);

static double uniform(double lo, double hi)
{
    return std::uniform_real_distribution<double>(lo, hi)(rng);
}
static double normal(double mean, double std)
{
    return std::normal_distribution<double>(mean, std)(rng);
}
static float bf16(double v)
{
    return (float)dtype_round(DTYPE_BF16, v);
}
static float fp16(double v)
{
    return (float)dtype_round(DTYPE_FP16, v);
}
/* expf / exp2f with a CUDA-like error: the C library's value moved by up to 2 ulp. */
static float cuda_exp(float x)
{
    float e = expf(x);
    int k = (int)std::uniform_int_distribution<int>(-2, 2)(rng);
    for (; k > 0; k--)
        e = nextafterf(e, INFINITY);
    for (; k < 0; k++)
        e = nextafterf(e, 0.0f);
    return e;
}
static float cuda_exp2(float x)
{
    float e = exp2f(x);
    int k = (int)std::uniform_int_distribution<int>(-2, 2)(rng);
    for (; k > 0; k--)
        e = nextafterf(e, INFINITY);
    for (; k < 0; k++)
        e = nextafterf(e, 0.0f);
    return e;
}

/* Worst ratio and failing fraction of one variant. */
struct score {
    double worst = 0;
    long long fails = 0, n = 0;
    void add(double got, double ref, double bound)
    {
        n++;
        if (!std::isfinite(got)) {
            fails++;
            worst = INFINITY;
            return;
        }
        double r = std::fabs(got - ref) / bound;
        worst = std::fmax(worst, r);
        if (r > 1)
            fails++;
    }
    std::string text() const
    {
        char b[96];
        std::snprintf(b, sizeof(b), "worst %.3g of the bound, %.3g%% of %lld elements fail", worst,
                      100.0 * (double)fails / (double)n, n);
        return b;
    }
};

/* ---- P28 rope ------------------------------------------------------------------- */

static void rope()
{
    std::printf("\n# P28 rope: |o - r| <= 1e-5 + 2^-7 |r| + 1e-6 S, S = |x1 c| + |x2 s|\n");
    score fp32, fma32, tables_bf16, math_bf16;
    for (int data = 0; data < 2; data++)
        for (long long i = 0; i < 4000000; i++) {
            const double sd = data ? 100 : 1;
            const float x1 = bf16(data ? uniform(-sd, sd) : normal(0, sd));
            const float x2 = bf16(data ? uniform(-sd, sd) : normal(0, sd));
            const float c = (float)uniform(-1, 1), s = (float)uniform(-1, 1);
            for (int half = 0; half < 2; half++) {
                const float a = half ? x2 : x1, b = half ? x1 : x2, sg = half ? 1.0f : -1.0f;
                const double r = (double)a * c + sg * (double)b * s;
                const double S = std::fabs((double)x1 * c) + std::fabs((double)x2 * s);
                const double bound = 1e-5 + 0x1p-7 * std::fabs(r) + 1e-6 * S;
                fp32.add(bf16(a * c + sg * (b * s)), r, bound);
                fma32.add(bf16(std::fma(a, c, sg * (b * s))), r, bound);
                const float cb = bf16(c), sb = bf16(s);
                tables_bf16.add(bf16(a * cb + sg * (b * sb)), r, bound);
                math_bf16.add(bf16((double)bf16((double)a * cb) + sg * (double)bf16((double)b * sb)),
                              r, bound);
            }
        }
    std::printf("  fp32, one rounding to bf16   %s\n", fp32.text().c_str());
    std::printf("  fp32 with FMA                %s\n", fma32.text().c_str());
    std::printf("  tables rounded to bf16       %s\n", tables_bf16.text().c_str());
    std::printf("  bf16 arithmetic (control)    %s\n", math_bf16.text().c_str());
    expect(fp32.worst <= 0.51 && fma32.worst <= 0.51, "rope: fp32 kernels pass with 2x margin");
    expect(math_bf16.fails > math_bf16.n / 100, "rope: bf16 arithmetic fails on > 1% of elements");
}

int main(int argc, char **argv)
{
    auto want = [&](const char *id) {
        if (argc < 2)
            return true;
        for (int i = 1; i < argc; i++)
            if (std::strcmp(argv[i], id) == 0)
                return true;
        return false;
    };
    if (want("rope"))
        rope();
    std::printf("%d passed, %d failed, 0 skipped\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
