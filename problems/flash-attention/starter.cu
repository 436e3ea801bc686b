// Attention forward with the log-sum-exp of every row, without storing the
// score matrix (this problem allows no scratch memory):
//
//   s_ij = scale * sum_d Q[i][d] K[j][d]     (j > i is masked out when causal != 0)
//   O[i][d] = sum_j softmax_j(s_ij) V[j][d],   LSE[i] = log sum_j exp(s_ij)
//
// for every (b, h): Q and O are [B][H][Sq][D], K and V [B][H][Skv][D] (fp16,
// row-major), LSE is [B][H][Sq] (fp32). D is 64 or 128. The launch below
// gives every block BM query rows of one (b, h): blockIdx.y = b * H + h.
//
// @const BM=64
// @launch flash_attn grid=(cdiv(Sq, BM), B*H) block=(128) args=(Q, K, V, O, LSE, scale, causal, B, H, Sq, Skv, D)

#include <cuda_fp16.h>

extern "C" __global__ void flash_attn(const __half* Q, const __half* K, const __half* V,
                                      __half* O, float* LSE, float scale, int causal,
                                      long long B, long long H, long long Sq, long long Skv,
                                      long long D)
{
    const long long bh = blockIdx.y;
    const long long m0 = (long long)blockIdx.x * BM; /* first query row of this block */

    // TODO: for rows m0 .. min(m0 + BM, Sq) - 1 of head bh, walk the keys in
    // tiles, keep a running maximum and sum per row (online softmax) and an
    // fp32 accumulator of the output; at the end write O (fp16) and LSE.
}
