// Reference for the split-K matmul: one thread per element of C, fp64.
// C[i][j] = sum_k A[i][k] * B[k][j] and its accumulation scale
// C_scale[i][j] = sum_k |A[i][k] * B[k][j]|, which the tolerance multiplies
// (|C - ref| <= 1e-6 + 2e-5 C_scale). Products of fp16 values are exact in
// fp64; the fp64 sum of up to 2^20 terms is off by at most ~2^20 * 2^-53
// relative. Threads of a warp share a row (A[i][k] is a broadcast) and take
// adjacent columns (B[k][j] loads are coalesced); the loop is unrolled so
// that several loads are in flight per thread, which matters here: the
// shapes have few outputs and a long K. Any M, N, K >= 1; 64-bit indices.
//
// @launch matmul_ref grid=(cdiv(N, 32), cdiv(M, 4)) block=(32, 4) args=(A, B, C, C_scale, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul_ref(const __half *A, const __half *B, double *C, double *C_scale,
                                      long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    double dot = 0.0, scale = 0.0;
#pragma unroll 8
    for (long long k = 0; k < K; k++) {
        const double p = (double)__half2float(A[i * K + k]) * (double)__half2float(B[k * N + j]);
        dot += p;
        scale += fabs(p);
    }
    C[i * N + j] = dot;
    C_scale[i * N + j] = scale;
}
