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
#include <algorithm>
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

/* ---- P26 online-softmax --------------------------------------------------------- */

struct ml {
    float m, l;
};
static ml merge(ml a, ml b, bool rescale = true)
{
    const float mx = fmaxf(a.m, b.m);
    if (!rescale)
        return {mx, a.l + b.l};
    if (mx == -INFINITY)
        return a;
    return {mx, a.l * cuda_exp(a.m - mx) + b.l * cuda_exp(b.m - mx)};
}

/* The shipped solution's order: chunks of 16384 = 512 threads x 32 values
 * (float4 path: thread t holds elements (k*512 + t)*4 .. +3), each thread
 * (max, sum of exp), butterfly over the warp, warps in order, the row's
 * chunks strided over 32 lanes then a butterfly; y = exp(x - m) * (1 / l). */
static ml solution_stats(const std::vector<float> &x, bool rescale)
{
    const size_t n = x.size(), chunk = 16384;
    std::vector<ml> parts;
    for (size_t c0 = 0; c0 < n; c0 += chunk) {
        std::vector<ml> th(512);
        for (int t = 0; t < 512; t++) {
            float v[32];
            for (int k = 0; k < 8; k++)
                for (int e = 0; e < 4; e++) {
                    size_t i = c0 + ((size_t)k * 512 + t) * 4 + e;
                    v[4 * k + e] = i < n && i < c0 + chunk ? x[i] : -INFINITY;
                }
            float mx = -INFINITY, l = 0;
            if (rescale) {
                for (float a : v)
                    mx = fmaxf(mx, a);
                if (mx != -INFINITY)
                    for (float a : v)
                        l += cuda_exp(a - mx);
            } else { /* the one-pass update without rescaling */
                for (float a : v) {
                    if (a == -INFINITY)
                        continue;
                    mx = fmaxf(mx, a);
                    l += cuda_exp(a - mx);
                }
            }
            th[t] = {mx, l};
        }
        for (int w = 0; w < 16; w++)
            for (int o = 16; o > 0; o >>= 1) {
                std::vector<ml> nx(32);
                for (int L = 0; L < 32; L++)
                    nx[L] = merge(th[w * 32 + L], th[w * 32 + (L ^ o)], rescale);
                for (int L = 0; L < 32; L++)
                    th[w * 32 + L] = nx[L];
            }
        ml b = th[0];
        for (int w = 1; w < 16; w++)
            b = merge(b, th[w * 32], rescale);
        parts.push_back(b);
    }
    std::vector<ml> lanes(32, ml{-INFINITY, 0});
    for (size_t c = 0; c < parts.size(); c++)
        lanes[c % 32] = merge(lanes[c % 32], parts[c], rescale);
    for (int o = 16; o > 0; o >>= 1) {
        std::vector<ml> nx(32);
        for (int L = 0; L < 32; L++)
            nx[L] = merge(lanes[L], lanes[L ^ o], rescale);
        lanes = nx;
    }
    return lanes[0];
}

/* The naive control's order: chunks of 4096 over 256 threads (16 strided
 * values each, summed in order), a shared-memory tree, then the chunks'
 * atomicAdds in a random order. */
static float naive_sum(const std::vector<float> &x, float mx)
{
    const size_t n = x.size();
    std::vector<float> blocks;
    for (size_t c0 = 0; c0 < n; c0 += 4096) {
        std::vector<float> red(256, 0.0f);
        for (int t = 0; t < 256; t++)
            for (size_t i = c0 + t; i < std::min(n, c0 + 4096); i += 256)
                red[t] += cuda_exp(x[i] - mx);
        for (int s = 128; s > 0; s >>= 1)
            for (int t = 0; t < s; t++)
                red[t] += red[t + s];
        blocks.push_back(red[0]);
    }
    std::shuffle(blocks.begin(), blocks.end(), rng);
    float l = 0;
    for (float b : blocks)
        l += b;
    return l;
}

static void online_softmax()
{
    std::printf("\n# P26 online-softmax: |y - r| <= 1e-6/N + 1e-4 |r|\n");
    struct shape {
        const char *data;
        long long rows, n;
    };
    const shape shapes[] = {{"randn2", 2, 16777216}, {"randn2", 4, 1048576}, {"randn2", 16, 65536},
                            {"uniform100", 2, 1048577}, {"huge_spike", 2, 1048576},
                            {"neginf", 2, 1000003}};
    score sol_all, naive_all, seq_all, norescale_all, nomax_all;
    for (const shape &sh : shapes) {
        score sol, naive, seq, norescale, nomax;
        for (long long r = 0; r < sh.rows; r++) {
            std::vector<float> x(sh.n);
            const double off = uniform(-20, 20);
            for (auto &v : x) {
                std::string d = sh.data;
                if (d == "randn2")
                    v = (float)normal(0, 2);
                else if (d == "uniform100")
                    v = (float)uniform(-100, 100);
                else if (d == "huge_spike")
                    v = (float)(normal(0, 1) + off);
                else
                    v = uniform(0, 1) < 0.2 ? -INFINITY : (float)normal(0, 2);
            }
            if (std::string(sh.data) == "huge_spike")
                x[(size_t)(uniform(0.5, 1.0) * (double)sh.n)] = 1000.0f; /* late */
            double m = -INFINITY, sum = 0;
            for (float v : x)
                m = std::fmax(m, v);
            for (float v : x)
                sum += std::exp((double)v - m);
            const ml st = solution_stats(x, true), bad = solution_stats(x, false);
            const float inv = 1.0f / st.l, mxf = (float)m;
            const float ln = naive_sum(x, mxf);
            float lseq = 0; /* one thread per chunk of 16384, in order */
            {
                std::vector<float> part;
                for (size_t c0 = 0; c0 < x.size(); c0 += 16384) {
                    float a = 0;
                    for (size_t i = c0; i < std::min(x.size(), c0 + 16384); i++)
                        a += cuda_exp(x[i] - mxf);
                    part.push_back(a);
                }
                for (float a : part)
                    lseq += a;
            }
            float lraw = 0;
            for (float v : x)
                lraw += cuda_exp(v);
            const double atol = 1e-6 / (double)sh.n;
            for (size_t j = 0; j < x.size(); j++) {
                const double ref = std::exp((double)x[j] - m) / sum;
                const double bound = atol + 1e-4 * std::fabs(ref);
                sol.add(cuda_exp(x[j] - st.m) * inv, ref, bound);
                naive.add(cuda_exp(x[j] - mxf) / ln, ref, bound);
                seq.add(cuda_exp(x[j] - mxf) / lseq, ref, bound);
                norescale.add(cuda_exp(x[j] - bad.m) / bad.l, ref, bound);
                nomax.add(cuda_exp(x[j]) / lraw, ref, bound);
            }
        }
        std::printf("  %-10s %lld x %lld\n", sh.data, sh.rows, sh.n);
        std::printf("    solution order            %s\n", sol.text().c_str());
        std::printf("    naive (atomics)           %s\n", naive.text().c_str());
        std::printf("    sequential 16384-chunks   %s\n", seq.text().c_str());
        std::printf("    no rescale (control)      %s\n", norescale.text().c_str());
        std::printf("    no max (control)          %s\n", nomax.text().c_str());
        for (auto *p : {&sol_all, &naive_all, &seq_all, &norescale_all, &nomax_all}) {
            const score &q = p == &sol_all ? sol : p == &naive_all ? naive : p == &seq_all ? seq
                             : p == &norescale_all ? norescale : nomax;
            p->worst = std::fmax(p->worst, q.worst);
            p->fails += q.fails;
            p->n += q.n;
        }
    }
    expect(sol_all.worst < 0.1, "online-softmax: the solution's order passes with 10x margin");
    expect(naive_all.worst < 0.2 && seq_all.worst < 0.5,
           "online-softmax: naive and sequential-chunk sums pass");
    expect(norescale_all.fails > 0, "online-softmax: no rescaling fails");
    expect(nomax_all.fails > 0, "online-softmax: no max fails");
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
    if (want("online-softmax"))
        online_softmax();
    if (want("rope"))
        rope();
    std::printf("%d passed, %d failed, 0 skipped\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
