// Negative control: one thread per output, launched with cdiv(M, 8) rows of
// blocks but checking only the column (j < N). Threads with i >= M read past
// the end of X (harmless here) and write past the end of Y, into the judge's
// guard band, whenever M is not a multiple of 8. M is arbitrary in this
// problem; only K and N are multiples of 8.
// Expected verdict: Memory Violation.
//
// @launch matmul_bias_relu grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(X, W, b, Y, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_bias_relu(const __half* X, const __half* W, const __half* b, __half* Y,
                                            long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= N)
        return; /* BUG: no i < M check */
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(__half2float(X[i * K + k]), __half2float(W[j * K + k]), acc);
    Y[i * N + j] = __float2half(fmaxf(acc + __half2float(b[j]), 0.0f));
}
