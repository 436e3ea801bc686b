// P16 tolerance simulation (gcc -O2 -ffp-contract=off matmul_bias_relu.c -lm; args K W_RANGE
// OUTPUTS): |y - r| <= 2^-10 |r| + 1e-4 S + 1e-6, r = relu(dot + b) (unrounded), S = sum|x w| +
// |b|. Variants: fp32 accumulation in k16 chunks (mma-like), fp16 accumulation rounded after every
// k16 chunk (mma .f16 accumulators), fp16 intermediate (fp32 dot rounded to fp16, then bias + relu
// in fp32, rounded again).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t s = 88172645463325252ull;
static double u01(void)
{
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (s >> 11) * 0x1p-53;
}
static double h(double v)
{ /* round to fp16 (normal range) */
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
int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: matmul_bias_relu K W_RANGE OUTPUTS\n");
        return 2;
    }
    int K = atoi(argv[1]);
    double wr = atof(argv[2]);
    int n = atoi(argv[3]);
    double *x = malloc(K * 8), *w = malloc(K * 8);
    double worst[3] = {0};
    long fails[3] = {0};
    for (int it = 0; it < n; it++) {
        double dot = 0, S = 0;
        for (int k = 0; k < K; k++) {
            x[k] = h(2 * u01() - 1);
            w[k] = h(wr * (2 * u01() - 1));
            dot += x[k] * w[k];
            S += fabs(x[k] * w[k]);
        }
        double b = h(u01() - 0.5);
        S += fabs(b);
        double r = fmax(dot + b, 0);
        float acc32 = 0;
        double acc16 = 0;
        for (int k0 = 0; k0 < K; k0 += 16) {
            double part = 0;
            for (int k = k0; k < k0 + 16 && k < K; k++)
                part += x[k] * w[k];
            acc32 = (float)((double)acc32 + part); /* one rounding per mma, fp32 */
            acc16 = h(acc16 + part);               /* one rounding per mma, fp16 */
        }
        double y[3];
        y[0] = h(fmaxf(acc32 + (float)b, 0.0f));
        y[1] = h(fmaxf((float)acc16 + (float)b, 0.0f));
        y[2] = h(fmaxf((float)h(acc32) + (float)b, 0.0f));
        double bound = 0x1p-10 * fabs(r) + 1e-4 * S + 1e-6;
        for (int v = 0; v < 3; v++) {
            double q = fabs(y[v] - r) / bound;
            if (q > worst[v])
                worst[v] = q;
            if (q > 1)
                fails[v]++;
        }
    }
    printf("K=%d W~U(+-%g) %d outputs: fp32-acc worst %.3f (fails %ld) | fp16-acc worst %.2f, "
           "fails %.2f%% | fp16 intermediate worst %.2f, fails %.3f%%\n",
           K, wr, n, worst[0], fails[0], worst[1], 100.0 * fails[1] / n, worst[2],
           100.0 * fails[2] / n);
}
