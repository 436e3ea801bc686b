// Rotary position embedding (rotate-half convention) of q and k.
//
// q is [T][Hq][D], k is [T][Hk][D] (bf16, row-major); token t sits at position
// p = positions[t]; cos_table and sin_table are [P][D/2] (fp32). For every
// head of q and of k, and every channel pair i < D/2:
//
//   c = cos_table[p][i], s = sin_table[p][i]
//   out[i]       = x[i] * c - x[i + D/2] * s
//   out[i + D/2] = x[i + D/2] * c + x[i] * s
//
// computed in fp32 and rounded once to bf16, into q_out and k_out. The launch
// below runs one thread per (token, head, pair) of q, then of k.
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
    const long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: if w < T * (Hq + Hk) * (D / 2), find its token t, its head (a head
    // of q for the first Hq of each token's Hq + Hk, else of k) and its pair i,
    // then read the two inputs x[i] and x[i + D/2], rotate them with the
    // cos/sin of position positions[t], and write both outputs.
}
