// Naive but correct: one thread per element of C, fp32 FMA accumulation on
// the CUDA cores straight from global memory (A[i][k] is a broadcast within a
// warp, B[k][j] loads are coalesced). No tensor cores, no tiling, no @tune.
// Control: must be Accepted; it is the baseline the tuned kernels should beat
// by more than an order of magnitude.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(__half2float(A[i * K + k]), __half2float(B[k * N + j]), acc);
    C[i * N + j] = __float2half_rn(acc);
}
