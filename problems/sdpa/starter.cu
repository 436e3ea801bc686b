// Scaled dot-product attention, for every batch b and head h:
//
//   S[i][j] = scale * sum_d Q[i][d] K[j][d]      (j > i masked out when causal != 0)
//   P = softmax of each row of S,   O[i][d] = sum_j P[i][j] V[j][d]
//
// Q and O are [B][H][Sq][D], K and V [B][H][Skv][D], fp16 and row-major;
// compute in fp32 and round O once to fp16. The plan below is the unfused
// pipeline with the scores in a scratch buffer: one kernel computes S, one
// turns each row into probabilities, one multiplies by V. Fill in the three
// kernels (or replace the plan with a fused kernel).
//
// @let BH = B * H
// @scratch S fp32[BH*Sq*Skv]
// @launch scores grid=(cdiv(Skv, 128), Sq, BH) block=(128) args=(Q, K, S, scale, causal, Sq, Skv, D)
// @launch softmax_rows grid=(Sq, BH) block=(128) args=(S, Sq, Skv)
// @launch pv grid=(cdiv(D, 64), Sq, BH) block=(64) args=(S, V, O, Sq, Skv, D)

#include <cuda_fp16.h>

extern "C" __global__ void scores(const __half* Q, const __half* K, float* S, float scale,
                                  int causal, long long Sq, long long Skv, long long D)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; /* key */
    const long long i = blockIdx.y;                                       /* query */
    const long long bh = blockIdx.z;                                      /* b * H + h */

    // TODO: S[(bh * Sq + i) * Skv + j] = scale * (row i of Q) . (row j of K),
    // or -infinity when causal and j > i.
}

extern "C" __global__ void softmax_rows(float* S, long long Sq, long long Skv)
{
    float* row = S + ((long long)blockIdx.y * Sq + blockIdx.x) * Skv;

    // TODO: replace the Skv entries of `row` by their softmax.
}

extern "C" __global__ void pv(const float* S, const __half* V, __half* O, long long Sq,
                              long long Skv, long long D)
{
    const long long d = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = blockIdx.y, bh = blockIdx.z;

    // TODO: O[(bh * Sq + i) * D + d] = sum over j of P[i][j] * V[j][d].
}
