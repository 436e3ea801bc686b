// Fused linear layer: Y = ReLU(X W^T + b), all fp16, accumulate in fp32.
// X: M x K, W: N x K (the nn.Linear layout: row j of W is output feature j),
// b: N, Y: M x N, all row-major. K and N are multiples of 8; M is anything.
//
// The launch below runs one thread per element of Y: threadIdx.x walks the
// columns j, threadIdx.y the rows i. Tensor cores are the way to make it fast
// (mma.sync or wmma); any fp32-accumulating kernel is correct.
//
// @launch matmul_bias_relu grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(X, W, b, Y, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_bias_relu(const __half* X, const __half* W, const __half* b, __half* Y,
                                            long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;

    // TODO: if (i, j) is inside Y, sum X[i][k] * W[j][k] over k in fp32
    // (__half2float), add b[j], apply ReLU, and store with __float2half.
}
