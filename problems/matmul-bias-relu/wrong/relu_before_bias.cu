// Negative control: the epilogue in the wrong order, ReLU(X W^T) + b instead
// of ReLU(X W^T + b). Where the dot product is negative it outputs b[j]
// instead of max(dot + b[j], 0); where the bias is negative it can output a
// negative number. fp32 accumulation, otherwise like naive.cu.
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
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(__half2float(X[i * K + k]), __half2float(W[j * K + k]), acc);
    Y[i * N + j] = __float2half(fmaxf(acc, 0.0f) + __half2float(b[j])); /* BUG: bias after ReLU */
}
