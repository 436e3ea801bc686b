// Negative control: atomics into the output. The SPLIT_K partial sums of an
// output are combined with atomicAdd straight into C, as if C started at
// zero; but the judge fills outputs with NaN before every run (only @scratch
// buffers are zeroed), and NaN + x stays NaN. Expected verdict: Wrong Answer.
//
// @const SPLIT_K=4
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8), SPLIT_K) block=(32, 8) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

// The partial sum of output (i, j) over chunk z of K (SPLIT_K chunks of
// cdiv(K, SPLIT_K); the last ones may be short or empty), in fp32.
__device__ float chunk_sum(const __half *A, const __half *B, long long N, long long K, long long i,
                           long long j, long long z)
{
    const long long chunk = (K + SPLIT_K - 1) / SPLIT_K;
    const long long k_end = min(K, (z + 1) * chunk);
    float acc = 0.0f;
    for (long long k = z * chunk; k < k_end; k++)
        acc = fmaf(__half2float(A[i * K + k]), __half2float(B[k * N + j]), acc);
    return acc;
}

extern "C" __global__ void matmul(const __half *A, const __half *B, float *C, long long M,
                                  long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    atomicAdd(&C[i * N + j], chunk_sum(A, B, N, K, i, j, blockIdx.z));
}
