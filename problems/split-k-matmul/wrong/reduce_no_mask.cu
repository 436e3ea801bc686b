// Negative control: the unmasked reduction. The split kernel is right (each
// split writes its partial sums into its own slice of a zeroed scratch
// buffer), but the second launch, which adds the slices 4 floats at a time,
// has no bound check: every thread of its last block writes a float4, up to
// 127 float4s (2032 bytes for M * N = 8) past the end of C.
// Expected verdict: Memory Violation.
//
// @const SPLIT_K=4
// @scratch partial fp32[SPLIT_K * M * N]
// @launch partial_sums grid=(cdiv(N, 32), cdiv(M, 8), SPLIT_K) block=(32, 8) args=(A, B, partial, M, N, K)
// @launch reduce_splits grid=(cdiv(M * N / 4, 128)) block=(128) args=(partial, C, M, N)

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

extern "C" __global__ void partial_sums(const __half *A, const __half *B, float *partial,
                                        long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    partial[(long long)blockIdx.z * M * N + i * N + j] = chunk_sum(A, B, N, K, i, j, blockIdx.z);
}

extern "C" __global__ void reduce_splits(const float *partial, float *C, long long M, long long N)
{
    const long long n4 = M * N / 4;
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; /* no e < n4 check */
    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int z = 0; z < SPLIT_K; z++) {
        const float4 v = reinterpret_cast<const float4 *>(partial)[z * n4 + e];
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
    }
    reinterpret_cast<float4 *>(C)[e] = s;
}
