// Reference for the autotuned matmul: one thread per element of C, fp64.
// C[i][j] = sum_k A[i][k] * B[k][j] and its accumulation scale
// C_scale[i][j] = sum_k |A[i][k] * B[k][j]|, which the tolerance multiplies
// (|C - ref| <= 1e-6 + 2^-10 |ref| + 1e-4 C_scale). A product of two fp16
// values is exact in fp64, so the only rounding is the fp64 sum (relative
// error ~K * 2^-53). Threads of a warp share a row (A[i][k] is a broadcast)
// and take adjacent columns (B[k][j] loads are coalesced). Any M, N, K >= 1;
// 64-bit indices.
//
// @launch matmul_ref grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, C_scale, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_ref(const __half *A, const __half *B, double *C, double *C_scale,
                                      long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    double dot = 0.0, scale = 0.0;
    for (long long k = 0; k < K; k++) {
        const double p = (double)__half2float(A[i * K + k]) * (double)__half2float(B[k * N + j]);
        dot += p;
        scale += fabs(p);
    }
    C[i * N + j] = dot;
    C_scale[i * N + j] = scale;
}
