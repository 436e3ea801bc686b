// Naive but correct: one thread per element of C, fp32 FMA accumulation over
// the whole of K on the CUDA cores, no split. On these shapes it is slow for
// two reasons at once: no tensor cores, and only M * N threads (65536 at
// 256 x 256) each walking K = 2^19 alone. Control: must be Accepted.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, float *C, long long M,
                                  long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float acc = 0.0f;
    for (long long k = 0; k < K; k++)
        acc = fmaf(__half2float(A[i * K + k]), __half2float(B[k * N + j]), acc);
    C[i * N + j] = acc;
}
