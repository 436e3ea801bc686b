// Split-K matmul: C = A * B, A: M x K and B: K x N in fp16, C: M x N in fp32,
// all row-major (A[i][k] is A[i * K + k], B[k][j] is B[k * N + j], C[i][j] is
// C[i * N + j]). N and K are multiples of 8. Accumulate in fp32.
//
// The plan below has the usual split-K shape: the first launch gives every
// output SPLIT_K threads (grid z), each summing its own chunk of K into the
// scratch buffer `partial` (SPLIT_K slices of M x N floats, zeroed by the
// judge before every run); the second launch adds the slices into C. C itself
// is NOT zeroed (it is filled with NaN): write every element of it.
//
// @const SPLIT_K=8
// @scratch partial fp32[SPLIT_K * M * N]
// @launch partial_sums grid=(cdiv(N, 32), cdiv(M, 8), SPLIT_K) block=(32, 8) args=(A, B, partial, M, N, K)
// @launch reduce_splits grid=(cdiv(M * N, 256)) block=(256) args=(partial, C, M, N)

#include <cuda_fp16.h>

extern "C" __global__ void partial_sums(const __half *A, const __half *B, float *partial,
                                        long long M, long long N, long long K)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    const long long split = blockIdx.z;

    // TODO: if (i, j) is inside C, sum A[i][k] * B[k][j] over this split's
    // chunk of K (SPLIT_K chunks in all; the last may be shorter, or empty)
    // and store it at partial[split * M * N + i * N + j].
}

extern "C" __global__ void reduce_splits(const float *partial, float *C, long long M, long long N)
{
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: if e < M * N, C[e] = the sum over the SPLIT_K slices of
    // partial[s * M * N + e].
}
