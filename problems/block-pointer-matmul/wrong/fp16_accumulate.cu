// Negative control: fp16 accumulation. naive.cu with the running sum kept in
// __half and updated with __hfma, rounding to an 11-bit significand at every
// step: several times the 1e-4 * S allowed from K of a few hundred up
// (problems/NOTES.md). Strides are followed correctly.
// Expected verdict: Wrong Answer.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K, offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K, long long offA, long long sAm,
                                  long long sAk, long long offB, long long sBk, long long sBn,
                                  long long offC, long long sCm, long long sCn)
{
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long m = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N)
        return;
    __half acc = __float2half_rn(0.0f);
    for (long long k = 0; k < K; k++)
        acc = __hfma(A[offA + m * sAm + k * sAk], B[offB + k * sBk + n * sBn], acc);
    C[offC + m * sCm + n * sCn] = acc;
}
