// Negative control: the causal mask off by one. Row i attends to keys
// j < i instead of j <= i (masking j >= i, not j > i), so it never sees its
// own key; row 0 sees no key at all (0 / 0 = NaN), and every other row is off
// by its diagonal term. Expected verdict: Wrong Answer.
//
// @const WARPS=4
// @launch attention grid=(cdiv(Sq, WARPS), B*H) block=(32*WARPS) args=(Q, K, V, O, LSE, scale, causal, B, H, Sq, Skv, D)

#include <cuda_fp16.h>

#define MAXC 4 /* D / 32 for D <= 128 */

extern "C" __global__ void attention(const __half* Q, const __half* K, const __half* V, __half* O,
                                     float* LSE, float scale, int causal, long long B, long long H,
                                     long long Sq, long long Skv, long long D)
{
    const int lane = threadIdx.x % 32;
    const long long i = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
    const long long bh = blockIdx.y;
    if (i >= Sq)
        return;
    const __half* q = Q + (bh * Sq + i) * D;
    const __half* k = K + bh * Skv * D;
    const __half* v = V + bh * Skv * D;

    float qv[MAXC], acc[MAXC];
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
        const long long d = lane + 32 * c;
        qv[c] = d < D ? __half2float(q[d]) : 0.0f;
        acc[c] = 0.0f;
    }
    float m = __int_as_float(0xff800000), l = 0.0f;
    const long long end = causal ? min(Skv, i) : Skv; /* should be i + 1 */
    for (long long j = 0; j < end; j++) {
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < MAXC; c++) {
            const long long d = lane + 32 * c;
            if (d < D)
                s += qv[c] * __half2float(k[j * D + d]);
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        s *= scale;
        const float m_new = fmaxf(m, s);
        const float alpha = expf(m - m_new); /* 0 for the first key */
        const float p = expf(s - m_new);
        l = l * alpha + p;
#pragma unroll
        for (int c = 0; c < MAXC; c++) {
            const long long d = lane + 32 * c;
            if (d < D)
                acc[c] = acc[c] * alpha + p * __half2float(v[j * D + d]);
        }
        m = m_new;
    }
#pragma unroll
    for (int c = 0; c < MAXC; c++) {
        const long long d = lane + 32 * c;
        if (d < D)
            O[(bh * Sq + i) * D + d] = __float2half(acc[c] / l);
    }
    if (lane == 0)
        LSE[bh * Sq + i] = m + logf(l);
}
