/*
 * checks.cpp - independent fp64 CPU computations of the step-8 problems; each
 * compares reference.cu's outputs (run by the simulator) with its own.
 * Written from the problems' math as their statement.md states it, not from
 * reference.cu.
 */
#include "checks.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace
{

struct ctx {
    const struct problem *p;
    const struct problem_case *c;
    const std::map<std::string, sim_view> &bufs;

    long long size(const char *name) const
    {
        return c->sizes[problem_size_index(p, name)];
    }
    double scalar(const char *name) const
    {
        return c->scalars[problem_scalar_index(p, name)];
    }
    const sim_view &buf(const char *name) const
    {
        return bufs.at(name);
    }
    /* Element i of buffer `name` as a double. */
    double in(const char *name, long long i) const
    {
        const sim_view &v = buf(name);
        return dtype_load(v.dtype, (const unsigned char *)v.p + (size_t)i * dtype_size(v.dtype));
    }
    double *out(const char *name) const
    {
        return (double *)buf(name).p;
    }
};

/* "" when |got - want| <= tol * (|want| + floor), else a message. */
std::string near(const char *what, long long i, double got, double want, double tol,
                 double floor = 1e-300)
{
    if (std::isnan(want) && std::isnan(got))
        return "";
    if (std::isinf(want) && got == want)
        return "";
    if (std::fabs(got - want) <= tol * (std::fabs(want) + floor))
        return "";
    char msg[160];
    std::snprintf(msg, sizeof(msg), "%s[%lld]: reference %.17g, CPU %.17g", what, i, got, want);
    return msg;
}

/* P29: the caches after the append, from their initial values. */
std::string check_kv_cache_append(const ctx &x)
{
    const long long B = x.size("B"), H = x.size("H"), S = x.size("S"), T = x.size("T"),
                    D = x.size("D");
    for (const char *which : {"k", "v"}) {
        std::string cache = std::string(which) + "_cache", fresh = std::string(which) + "_new";
        const double *got = x.out(cache.c_str());
        std::vector<double> want(B * H * S * D);
        for (long long i = 0; i < B * H * S * D; i++)
            want[i] = x.in((cache + "@initial").c_str(), i);
        for (long long b = 0; b < B; b++) {
            const long long L = (long long)x.in("cache_seqlens", b);
            for (long long h = 0; h < H; h++)
                for (long long t = 0; t < T; t++)
                    for (long long d = 0; d < D; d++)
                        want[((b * H + h) * S + L + t) * D + d] =
                            x.in(fresh.c_str(), ((b * H + h) * T + t) * D + d);
        }
        for (long long i = 0; i < B * H * S * D; i++) {
            std::string e = near(cache.c_str(), i, got[i], want[i], 0.0);
            if (!e.empty())
                return e;
        }
    }
    return "";
}

/* P28: rotate-half RoPE of q and k, and the scale |x1 c| + |x2 s|. */
std::string check_rope(const ctx &x)
{
    const long long T = x.size("T"), D = x.size("D"), half = D / 2;
    for (int which = 0; which < 2; which++) {
        const char *in = which ? "k" : "q", *out = which ? "k_out" : "q_out";
        const char *scale = which ? "k_out_scale" : "q_out_scale";
        const long long heads = x.size(which ? "Hk" : "Hq");
        for (long long t = 0; t < T; t++) {
            const long long p = (long long)x.in("positions", t);
            for (long long h = 0; h < heads; h++)
                for (long long i = 0; i < half; i++) {
                    const long long row = (t * heads + h) * D;
                    const double c = x.in("cos_table", p * half + i);
                    const double s = x.in("sin_table", p * half + i);
                    const double a = x.in(in, row + i), b = x.in(in, row + i + half);
                    const double want[2] = {a * c - b * s, b * c + a * s};
                    const double sc = std::fabs(a * c) + std::fabs(b * s);
                    for (int j = 0; j < 2; j++) {
                        const long long e = row + i + j * half;
                        std::string m = near(out, e, x.out(out)[e], want[j], 1e-15, sc);
                        if (m.empty())
                            m = near(scale, e, x.out(scale)[e], sc, 1e-15);
                        if (!m.empty())
                            return m;
                    }
                }
        }
    }
    return "";
}

/* P26: row softmax in fp64 (two passes). */
std::string check_online_softmax(const ctx &x)
{
    const long long M = x.size("M"), N = x.size("N");
    const double *y = x.out("Y");
    for (long long r = 0; r < M; r++) {
        double mx = -INFINITY, sum = 0;
        for (long long j = 0; j < N; j++)
            mx = std::fmax(mx, x.in("X", r * N + j));
        for (long long j = 0; j < N; j++)
            sum += std::exp(x.in("X", r * N + j) - mx);
        for (long long j = 0; j < N; j++) {
            const double want = std::exp(x.in("X", r * N + j) - mx) / sum;
            std::string m = near("Y", r * N + j, y[r * N + j], want, 1e-12, 1e-300);
            if (!m.empty())
                return m;
        }
    }
    return "";
}

/* P27 / P30: attention per row in fp64: O, O_scale = sum_j p_ij |V_jd|, LSE. */
std::string check_attention(const ctx &x, bool lse)
{
    const long long B = x.size("B"), H = x.size("H"), Sq = x.size("Sq"), Skv = x.size("Skv"),
                    D = x.size("D");
    const double scale = (double)(float)x.scalar("scale");
    const bool causal = x.scalar("causal") != 0;
    std::vector<double> s(Skv);
    for (long long bh = 0; bh < B * H; bh++)
        for (long long i = 0; i < Sq; i++) {
            double m = -INFINITY;
            for (long long j = 0; j < Skv; j++) {
                double dot = 0;
                for (long long d = 0; d < D; d++)
                    dot += x.in("Q", (bh * Sq + i) * D + d) * x.in("K", (bh * Skv + j) * D + d);
                s[j] = (causal && j > i) ? -INFINITY : scale * dot;
                m = std::fmax(m, s[j]);
            }
            double l = 0;
            for (long long j = 0; j < Skv; j++)
                l += std::exp(s[j] - m);
            for (long long d = 0; d < D; d++) {
                double o = 0, sc = 0;
                for (long long j = 0; j < Skv; j++) {
                    const double p = std::exp(s[j] - m) / l, v = x.in("V", (bh * Skv + j) * D + d);
                    o += p * v;
                    sc += p * std::fabs(v);
                }
                const long long e = (bh * Sq + i) * D + d;
                std::string msg = near("O", e, x.out("O")[e], o, 1e-10, sc);
                if (msg.empty())
                    msg = near("O_scale", e, x.out("O_scale")[e], sc, 1e-10);
                if (!msg.empty())
                    return msg;
            }
            if (lse) {
                std::string msg =
                    near("LSE", bh * Sq + i, x.out("LSE")[bh * Sq + i], m + std::log(l), 1e-12, 1);
                if (!msg.empty())
                    return msg;
            }
        }
    return "";
}

} // namespace

std::string sim_check_reference(const struct problem *p, const struct problem_case *c,
                                const std::map<std::string, sim_view> &bufs)
{
    ctx x{p, c, bufs};
    const std::string id = p->id;
    if (id == "flash-attention")
        return check_attention(x, true);
    if (id == "sdpa")
        return check_attention(x, false);
    if (id == "online-softmax")
        return check_online_softmax(x);
    if (id == "rope")
        return check_rope(x);
    if (id == "kv-cache-append")
        return check_kv_cache_append(x);
    return "";
}
