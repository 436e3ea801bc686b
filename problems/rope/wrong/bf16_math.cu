// Negative control: computes in bf16 instead of fp32. The table values, the
// two products and the sum are each rounded to bf16 (8 significant bits), so
// where the two products nearly cancel the result is off by up to about
// 2^-8 * (|x1*c| + |x2*s|), far more than the 2^-7 * |r| + 1e-6 * S + 1e-5
// allowed (problems/NOTES.md). Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch rope grid=(cdiv(T*(Hq+Hk)*(D/2), BLOCK)) block=(BLOCK) args=(q, k, positions, cos_table, sin_table, q_out, k_out, T, Hq, Hk, D, P)

#include <cuda_bf16.h>

extern "C" __global__ void rope(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                const int* positions, const float* cos_table,
                                const float* sin_table, __nv_bfloat16* q_out,
                                __nv_bfloat16* k_out, long long T, long long Hq, long long Hk,
                                long long D, long long P)
{
    const long long half = D / 2;
    long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const __nv_bfloat16* x = q;
    __nv_bfloat16* out = q_out;
    long long heads = Hq;
    if (w >= T * Hq * half) {
        w -= T * Hq * half;
        x = k;
        out = k_out;
        heads = Hk;
        if (w >= T * Hk * half)
            return;
    }
    const long long i = w % half;
    const long long row = (w / half) * D;
    const long long t = w / (half * heads);
    const long long p = positions[t];
    const __nv_bfloat16 c = __float2bfloat16(cos_table[p * half + i]);
    const __nv_bfloat16 s = __float2bfloat16(sin_table[p * half + i]);
    const __nv_bfloat16 x1 = x[row + i];
    const __nv_bfloat16 x2 = x[row + i + half];
    out[row + i] = __hsub(__hmul(x1, c), __hmul(x2, s));
    out[row + i + half] = __hadd(__hmul(x2, c), __hmul(x1, s));
}
