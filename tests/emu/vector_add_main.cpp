// Emulated judge for problems/vector-add (see harness.h).
#include "harness.h"

extern "C" void vector_add(const float *a, const float *b, float *c, long long n);
extern "C" void vector_add_ref(const float *a, const float *b, double *c, long long n);

int main(int argc, char **argv)
{
    args ar = parse_args(argc, argv);
    const long long n = ar.sizes.at(0);
    guarded<float> A(n), B(n), C(n);
    guarded<double> R(n);
    rng g(ar.seed);
    for (long long i = 0; i < n; i++) {
        double a, b;
        if (ar.profile == "uniform") {
            a = g.uniform(-1000, 1000);
            b = g.uniform(-1000, 1000);
        } else if (ar.profile == "zeros") {
            a = b = 0;
        } else if (ar.profile == "cancel") {
            a = g.uniform(-1000, 1000);
            b = -(double)(float)a;
        } else if (ar.profile == "magnitudes") {
            a = g.loguniform_signed(1e-6, 1e7);
            b = g.loguniform_signed(1e-6, 1e7);
        } else {
            std::printf("JE: unknown profile %s\n", ar.profile.c_str());
            return 2;
        }
        A.p[i] = (float)a;
        B.p[i] = (float)b;
    }
    std::vector<float> a0(A.p, A.p + n), b0(B.p, B.p + n);

    R.poison();
    emu_launch(ar.ref_grid, ar.ref_block, [&] { vector_add_ref(A.p, B.p, R.p, n); });
    for (long long i = 0; i < n; i++)
        if (R.p[i] != (double)A.p[i] + (double)B.p[i]) {
            std::printf("REF: element %lld\n", i);
            return 1;
        }

    C.poison();
    emu_launch(ar.grid, ar.block, [&] { vector_add(A.p, B.p, C.p, n); });
    std::string g1 = C.guard_report("C");
    if (!g1.empty()) {
        std::printf("MV: %s\n", g1.c_str());
        return 1;
    }
    if (std::memcmp(a0.data(), A.p, n * 4) || std::memcmp(b0.data(), B.p, n * 4)) {
        std::printf("IM: input changed\n");
        return 1;
    }
    long long bad = 0, first = -1;
    for (long long i = 0; i < n; i++) {
        const float want = (float)R.p[i];
        if (!(C.p[i] == want)) {
            if (first < 0)
                first = i;
            bad++;
        }
    }
    if (bad) {
        std::printf("WA: %lld of %lld differ, first at %lld: got %.9g want %.9g\n", bad, n, first,
                    C.p[first], (float)R.p[first]);
        return 1;
    }
    std::printf("AC\n");
    return 0;
}
