// Negative control: handles k as if it had Hq heads like q (grouped-query
// attention gives k fewer heads: Hk < Hq). The k threads write k_out rows
// that belong to later tokens and, for the last token, past the end of k_out
// into the judge's guard band. Expected verdict: Memory Violation (first
// seen on the third test, Hq = 3, Hk = 1).
//
// @const BLOCK=256
// @launch rope grid=(cdiv(2*T*Hq*(D/2), BLOCK)) block=(BLOCK) args=(q, k, positions, cos_table, sin_table, q_out, k_out, T, Hq, Hk, D, P)

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
    if (w >= T * Hq * half) {
        w -= T * Hq * half;
        x = k;
        out = k_out;
        if (w >= T * Hq * half)
            return;
    }
    const long long i = w % half;
    const long long row = (w / half) * D;
    const long long t = w / (half * Hq);
    const long long p = positions[t];
    const float c = cos_table[p * half + i];
    const float s = sin_table[p * half + i];
    const float x1 = __bfloat162float(x[row + i]);
    const float x2 = __bfloat162float(x[row + i + half]);
    out[row + i] = __float2bfloat16(x1 * c - x2 * s);
    out[row + i + half] = __float2bfloat16(x2 * c + x1 * s);
}
