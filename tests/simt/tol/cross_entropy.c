// Cross-entropy (P19) tolerance simulation: loss = mean over valid rows of
// lse(z_i) - z_{i,t_i}, judged |got - ref| <= 1e-5 + 1e-5 |ref|, on bf16
// logits z = OFFSET_ROW + STD * N(0, 1), OFFSET_ROW ~ U(-OFFSET, OFFSET) per row.
// Variants (the row losses are then averaged in fp32):
//   seq:    one thread per row, sequential fp32 sum of expf(z - max),
//           loss = (max + log s) - z_t
//   seq2:   the same with loss = (max - z_t) + log s
//   block:  256 threads per row, each an online (max, sum) over a stride-256
//           slice with exp2f((z - m) * log2e), combined in a tree
//   cross_entropy M V STD OFFSET TRIALS
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
    return ((s >> 11) + 0.5) * 0x1p-53;
}
static double nrm(void)
{
    return sqrt(-2 * log(u01())) * cos(6.283185307179586 * u01());
}
static float bf(double v)
{
    float f = (float)v;
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    u &= 0xffff0000u;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: cross_entropy M V STD OFFSET TRIALS\n");
        return 2;
    }
    int M = atoi(argv[1]), V = atoi(argv[2]), trials = atoi(argv[5]);
    double sd = atof(argv[3]), off = atof(argv[4]);
    float *z = malloc(sizeof(float) * V);
    double worst[3] = {0};
    for (int tr = 0; tr < trials; tr++) {
        double ref = 0;
        float acc[3] = {0};
        for (int i = 0; i < M; i++) {
            double o = off * (2 * u01() - 1);
            for (int j = 0; j < V; j++)
                z[j] = bf(o + sd * nrm());
            int t = (int)(u01() * V);
            double m = -INFINITY, ss = 0;
            for (int j = 0; j < V; j++)
                m = fmax(m, z[j]);
            for (int j = 0; j < V; j++)
                ss += exp((double)z[j] - m);
            ref += m + log(ss) - z[t];
            float mf = -INFINITY, s1 = 0;
            for (int j = 0; j < V; j++)
                mf = fmaxf(mf, z[j]);
            for (int j = 0; j < V; j++)
                s1 += expf(z[j] - mf);
            acc[0] += (mf + logf(s1)) - z[t];
            acc[1] += (mf - z[t]) + logf(s1);
            float tm[256], ts[256];
            for (int th = 0; th < 256; th++) {
                float mm = -INFINITY, sm = 0;
                for (int j = th; j < V; j += 256) {
                    if (z[j] > mm) {
                        sm = sm * exp2f((mm - z[j]) * 1.44269504f);
                        mm = z[j];
                    }
                    sm += exp2f((z[j] - mm) * 1.44269504f);
                }
                tm[th] = mm;
                ts[th] = sm;
            }
            for (int w = 128; w > 0; w >>= 1)
                for (int th = 0; th < w; th++) {
                    float a = tm[th], b = tm[th + w], mx = fmaxf(a, b);
                    ts[th] = (a == mx ? ts[th] : ts[th] * exp2f((a - mx) * 1.44269504f)) +
                             (b == mx ? ts[th + w] : ts[th + w] * exp2f((b - mx) * 1.44269504f));
                    tm[th] = mx;
                }
            acc[2] += (tm[0] - z[t]) + logf(ts[0]);
        }
        ref /= M;
        for (int k = 0; k < 3; k++) {
            double q = fabs(acc[k] / M - ref) / (1e-5 + 1e-5 * fabs(ref));
            if (q > worst[k])
                worst[k] = q;
        }
    }
    printf("M=%d V=%d z=%g*n+-U(%g): seq %.3f | seq2 %.3f | block %.3f (worst error / bound over "
           "%d trials)\n",
           M, V, sd, off, worst[0], worst[1], worst[2], trials);
}
