// Negative control: the running sum kept in fp16 (__hfma), one thread per
// output. Every one of the K additions rounds to an 11-bit significand, so
// the error grows like sqrt(K) times half an ulp of the partial sums: far
// beyond 1e-4 * S for every K >= 40 here (problems/NOTES.md).
// Expected verdict: Wrong Answer.
//
// @launch matmul_bias_relu grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(X, W, b, Y, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_bias_relu(const __half* X, const __half* W, const __half* b, __half* Y,
                                            long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    __half acc = __float2half(0.0f);
    for (long long k = 0; k < K; k++)
        acc = __hfma(X[i * K + k], W[j * K + k], acc); /* BUG: fp16 accumulator */
    Y[i * N + j] = __float2half(fmaxf(__half2float(acc) + __half2float(b[j]), 0.0f));
}
