// Negative control: the wrong neutral value for the running maximum.
// naive.cu, but the online softmax starts from m = 0 instead of -inf. The
// rescaling makes the result independent of the starting shift as long as
// exp(s - m) does not underflow, so this is right for every query whose
// largest score is above about -87. When every score of a row is below
// -104, m stays 0, every p = exp(s - 0) is 0 in fp32, l = 0: O = 0 / 0 = NaN
// and LSE = 0 + log(0) = -inf. Only the "below" tests (Q ~ N(5, 1) and
// K ~ N(-5, 1): scores around -25 * D * scale, at most about -150) have such
// rows; every other test accepts this kernel.
// Expected verdict: Wrong Answer.
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
    float m = 0.0f, l = 0.0f; /* should be (-inf, 0) */
    const long long end = causal ? min(Skv, i + 1) : Skv;
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
