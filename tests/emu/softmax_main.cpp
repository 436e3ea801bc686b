// Emulated judge for problems/softmax (see harness.h).
#include "harness.h"

extern "C" void softmax_rows(const float *x, float *y, long long m, long long n);
extern "C" void softmax_ref(const float *x, double *y, long long m, long long n);

int main(int argc, char **argv)
{
    args ar = parse_args(argc, argv);
    const long long m = ar.sizes.at(0), n = ar.sizes.at(1);
    guarded<float> X(m * n), Y(m * n);
    guarded<double> R(m * n);
    rng g(ar.seed);
    for (long long r = 0; r < m; r++) {
        double off = 0;
        if (ar.profile == "offset1000")
            off = g.uniform(1000, 1010);
        else if (ar.profile == "const_rows")
            off = g.uniform(-50, 50);
        for (long long j = 0; j < n; j++) {
            double v;
            if (ar.profile == "randn2" || ar.profile == "offset1000" || ar.profile == "neginf")
                v = g.normal(0, 2) + off;
            else if (ar.profile == "uniform100")
                v = g.uniform(-100, 100);
            else if (ar.profile == "const_rows")
                v = off;
            else if (ar.profile == "spike")
                v = g.normal(0, 1);
            else {
                std::printf("JE: unknown profile %s\n", ar.profile.c_str());
                return 2;
            }
            if (ar.profile == "neginf" && g.unit() < 0.2)
                v = -INFINITY;
            X.p[r * n + j] = (float)v;
        }
        if (ar.profile == "spike")
            X.p[r * n + (long long)(g.next() % (uint64_t)n)] = 100.0f;
    }
    std::vector<float> x0(X.p, X.p + m * n);

    R.poison();
    emu_launch(ar.ref_grid, ar.ref_block, [&] { softmax_ref(X.p, R.p, m, n); });
    for (long long r = 0; r < m; r++) {
        const float *xr = X.p + r * n;
        double mx = -INFINITY, s = 0;
        for (long long j = 0; j < n; j++)
            mx = std::fmax(mx, (double)xr[j]);
        for (long long j = 0; j < n; j++)
            s += std::exp((double)xr[j] - mx);
        for (long long j = 0; j < n; j++) {
            const double want = std::exp((double)xr[j] - mx) / s, got = R.p[r * n + j];
            if (!(std::fabs(got - want) <= 1e-12 * std::fabs(want) + 1e-300)) {
                std::printf("REF: row %lld col %lld: %.17g vs %.17g\n", r, j, got, want);
                return 1;
            }
        }
    }

    Y.poison();
    emu_launch(ar.grid, ar.block, [&] { softmax_rows(X.p, Y.p, m, n); });
    std::string g1 = Y.guard_report("Y");
    if (!g1.empty()) {
        std::printf("MV: %s\n", g1.c_str());
        return 1;
    }
    if (std::memcmp(x0.data(), X.p, m * n * 4)) {
        std::printf("IM: input changed\n");
        return 1;
    }
    const double atol = 1e-6 / (double)n, rtol = 1e-5;
    long long bad = 0, first = -1;
    double worst = 0;
    for (long long i = 0; i < m * n; i++) {
        if (mismatch(Y.p[i], R.p[i], atol, rtol, 0, 0)) {
            if (first < 0)
                first = i;
            bad++;
        } else {
            worst =
                std::fmax(worst, std::fabs(Y.p[i] - R.p[i]) / (atol + rtol * std::fabs(R.p[i])));
        }
    }
    if (bad) {
        std::printf("WA: %lld of %lld differ, first at (%lld, %lld): got %.9g want %.9g\n", bad,
                    m * n, first / n, first % n, Y.p[first], R.p[first]);
        return 1;
    }
    std::printf("AC (worst %.3g of the bound)\n", worst);
    return 0;
}
