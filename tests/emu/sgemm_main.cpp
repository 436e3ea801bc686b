// Emulated judge for problems/sgemm (see harness.h).
#include "harness.h"

extern "C" void sgemm(const float *a, const float *b, float *c, long long M, long long N,
                      long long K);
extern "C" void sgemm_ref(const float *a, const float *b, double *c, double *c_scale, long long M,
                          long long N, long long K);

int main(int argc, char **argv)
{
    args ar = parse_args(argc, argv);
    const long long M = ar.sizes.at(0), N = ar.sizes.at(1), K = ar.sizes.at(2);
    guarded<float> A(M * K), B(K * N), C(M * N);
    guarded<double> R(M * N), S(M * N);
    rng g(ar.seed);
    double lo;
    if (ar.profile == "uniform") {
        lo = -1;
    } else if (ar.profile == "positive") {
        lo = 0;
    } else {
        std::printf("JE: unknown profile %s\n", ar.profile.c_str());
        return 2;
    }
    for (long long i = 0; i < M * K; i++)
        A.p[i] = (float)g.uniform(lo, 1);
    for (long long i = 0; i < K * N; i++)
        B.p[i] = (float)g.uniform(lo, 1);
    std::vector<float> a0(A.p, A.p + M * K), b0(B.p, B.p + K * N);

    R.poison();
    S.poison();
    emu_launch(ar.ref_grid, ar.ref_block, [&] { sgemm_ref(A.p, B.p, R.p, S.p, M, N, K); });
    for (long long i = 0; i < M; i++)
        for (long long j = 0; j < N; j++) {
            double d = 0, s = 0;
            for (long long k = 0; k < K; k++) {
                d += (double)A.p[i * K + k] * B.p[k * N + j];
                s += std::fabs((double)A.p[i * K + k] * B.p[k * N + j]);
            }
            if (!(std::fabs(R.p[i * N + j] - d) <= 1e-12 * s + 1e-300) ||
                !(std::fabs(S.p[i * N + j] - s) <= 1e-12 * s + 1e-300)) {
                std::printf("REF: (%lld, %lld)\n", i, j);
                return 1;
            }
        }

    C.poison();
    emu_launch(ar.grid, ar.block, [&] { sgemm(A.p, B.p, C.p, M, N, K); });
    std::string g1 = C.guard_report("C");
    if (!g1.empty()) {
        std::printf("MV: %s\n", g1.c_str());
        return 1;
    }
    if (std::memcmp(a0.data(), A.p, M * K * 4) || std::memcmp(b0.data(), B.p, K * N * 4)) {
        std::printf("IM: input changed\n");
        return 1;
    }
    long long bad = 0, first = -1;
    double worst = 0;
    for (long long i = 0; i < M * N; i++) {
        if (mismatch(C.p[i], R.p[i], 1e-7, 0, 2e-6, S.p[i])) {
            if (first < 0)
                first = i;
            bad++;
        } else {
            worst = std::fmax(worst, std::fabs(C.p[i] - R.p[i]) / (1e-7 + 2e-6 * S.p[i]));
        }
    }
    if (bad) {
        std::printf("WA: %lld of %lld differ, first at (%lld, %lld): got %.9g want %.9g\n", bad,
                    M * N, first / N, first % N, C.p[first], R.p[first]);
        return 1;
    }
    std::printf("AC (worst %.3g of the bound)\n", worst);
    return 0;
}
