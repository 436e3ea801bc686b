// LayerNorm forward tolerance simulation (P17). For each data profile and row
// length, simulates fp32 implementations and reports worst |err| / bound for
// Y (atol 1e-3 + 2^-10 |r|), mean (1e-7 + 1e-5 * mean|x|) and rstd (rtol 1e-4).
//   tree:   two-pass, 256 strided partial sums + tree (a block per row)
//   seq:    two-pass, one thread per row, sequential sums
//   welford: one thread per row, Welford's update
//   naive:  E[x^2] - E[x]^2 with tree sums (the classic mistake)
//   epsout: rstd = 1 / (sqrt(var) + eps) (the misplaced eps)
// Build: gcc -O2 -ffp-contract=off layernorm_forward.c -lm
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static uint64_t s = 88172645463325252ull;
static double u01(void)
{
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return ((s >> 11) + 0.5) * 0x1p-53;
}
static double nrm(void)
{
    return sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01());
}
static double h(double v)
{
    if (v == 0)
        return 0;
    int e;
    frexp(fabs(v), &e);
    int ex = e - 1;
    if (ex < -14)
        ex = -14;
    double q = ldexp(1.0, ex - 10);
    return nearbyint(v / q) * q;
}
static float tree_sum(const float *v, int n)
{ /* 256 strided partials, then a tree */
    float p[256] = {0};
    for (int i = 0; i < n; i++)
        p[i % 256] += v[i];
    for (int w = 128; w > 0; w >>= 1)
        for (int i = 0; i < w; i++)
            p[i] += p[i + w];
    return p[0];
}
static float seq_sum(const float *v, int n)
{
    float a = 0;
    for (int i = 0; i < n; i++)
        a += v[i];
    return a;
}
enum { TREE, SEQ, WELFORD, NAIVE, EPSOUT, NV };
static const char *names[NV] = {"tree", "seq", "welford", "naive", "epsout"};
int main(void)
{
    struct {
        const char *name;
        double mu, sd;
        float eps;
    } prof[] = {{"triton -2.3+0.5n", -2.3, 0.5, 1e-5f}, {"lowvar 1e-3 n", 0, 1e-3, 1e-5f},
                {"lowvar eps1e-6", 0, 1e-3, 1e-6f},     {"offset 100+0.1n", 100, 0.1, 1e-5f},
                {"offset 100+1n", 100, 1, 1e-5f},       {"offset 100+0.5n", 100, 0.5, 1e-5f},
                {"offset 300+1n", 300, 1, 1e-5f}};
    int Ns[] = {7, 781, 1500, 4097, 8192, 16384, 65536};
    float *x = malloc(65536 * 4), *t = malloc(65536 * 4), *g = malloc(65536 * 4),
          *bt = malloc(65536 * 4);
    for (size_t p = 0; p < sizeof prof / sizeof prof[0]; p++)
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++) {
            int N = Ns[ni], rows = 2000000 / N + 2;
            double wy[NV] = {0}, wm[NV] = {0}, wr[NV] = {0};
            for (int j = 0; j < N; j++) {
                g[j] = (float)h(u01());
                bt[j] = (float)h(u01());
            }
            for (int r = 0; r < rows; r++) {
                double m = 0, v = 0, ma = 0;
                for (int j = 0; j < N; j++) {
                    x[j] = (float)h(prof[p].mu + prof[p].sd * nrm());
                    m += x[j];
                    ma += fabs(x[j]);
                }
                m /= N;
                ma /= N;
                for (int j = 0; j < N; j++)
                    v += (x[j] - m) * (x[j] - m);
                v /= N;
                double rs = 1 / sqrt(v + (double)prof[p].eps);
                for (int k = 0; k < NV; k++) {
                    float mean, var, rstd;
                    if (k == SEQ || k == WELFORD) {
                        if (k == SEQ) {
                            mean = seq_sum(x, N) / N;
                            for (int j = 0; j < N; j++)
                                t[j] = (x[j] - mean) * (x[j] - mean);
                            var = seq_sum(t, N) / N;
                        } else {
                            float mm = 0, m2 = 0;
                            for (int j = 0; j < N; j++) {
                                float d = x[j] - mm;
                                mm += d / (j + 1);
                                m2 += d * (x[j] - mm);
                            }
                            mean = mm;
                            var = m2 / N;
                        }
                    } else if (k == NAIVE) {
                        mean = tree_sum(x, N) / N;
                        for (int j = 0; j < N; j++)
                            t[j] = x[j] * x[j];
                        var = fmaxf(tree_sum(t, N) / N - mean * mean, 0.0f);
                    } else {
                        mean = tree_sum(x, N) / N;
                        for (int j = 0; j < N; j++)
                            t[j] = (x[j] - mean) * (x[j] - mean);
                        var = tree_sum(t, N) / N;
                    }
                    rstd = k == EPSOUT ? 1.0f / (sqrtf(var) + prof[p].eps)
                                       : 1.0f / sqrtf(var + prof[p].eps);
                    for (int j = 0; j < N; j++) {
                        double ref = (x[j] - m) * rs * g[j] + bt[j];
                        double y = h((x[j] - mean) * rstd * g[j] + bt[j]);
                        double q = fabs(y - ref) / (1e-3 + 0x1p-10 * fabs(ref));
                        if (q > wy[k])
                            wy[k] = q;
                    }
                    double qm = fabs(mean - m) / (1e-7 + 1e-5 * ma),
                           qr = fabs(rstd - rs) / (1e-4 * rs);
                    if (qm > wm[k])
                        wm[k] = qm;
                    if (qr > wr[k])
                        wr[k] = qr;
                }
            }
            printf("%-18s N=%-6d", prof[p].name, N);
            for (int k = 0; k < NV; k++)
                printf(" | %s Y %.2g m %.2g r %.2g", names[k], wy[k], wm[k], wr[k]);
            printf("\n");
        }
}
