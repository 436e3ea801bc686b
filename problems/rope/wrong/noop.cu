// Negative control: writes nothing (q_out and k_out keep their NaN poison).
// Expected verdict: Wrong Answer.
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
}
