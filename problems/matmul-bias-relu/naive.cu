// Naive but correct: one thread per output, fp32 accumulation on CUDA cores
// straight from global memory, 8 halves (16 bytes) of X and of W per load
// (K is a multiple of 8), then bias, ReLU and one rounding to fp16. No tiling
// and no tensor cores. Control: must be Accepted; it is the baseline.
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
    const uint4* x = reinterpret_cast<const uint4*>(X + i * K);
    const uint4* w = reinterpret_cast<const uint4*>(W + j * K);
    float acc = 0.0f;
    for (long long q = 0; q < K / 8; q++) {
        const uint4 xa = x[q], wa = w[q];
        const __half2* xh = reinterpret_cast<const __half2*>(&xa);
        const __half2* wh = reinterpret_cast<const __half2*>(&wa);
        for (int e = 0; e < 4; e++) {
            acc = fmaf(__low2float(xh[e]), __low2float(wh[e]), acc);
            acc = fmaf(__high2float(xh[e]), __high2float(wh[e]), acc);
        }
    }
    Y[i * N + j] = __float2half(fmaxf(acc + __half2float(b[j]), 0.0f));
}
