// Vectorized vector add: C[i] = A[i] + B[i] for 0 <= i < N, all fp16
// (__half, from <cuda_fp16.h>). N is any value >= 1; the buffers start on
// 256-byte boundaries.
//
// The launch below gives each thread 8 consecutive elements (one 16-byte
// uint4 of each input); the grid covers all N elements, rounded up.
//
// @const BLOCK=256
// @launch vadd grid=(cdiv(N, 8 * BLOCK)) block=(BLOCK) args=(A, B, C, N)

#include <cuda_fp16.h>

extern "C" __global__ void vadd(const __half *A, const __half *B, __half *C, long long n)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: elements 8t .. 8t + 7. When all 8 are inside the vector, load
    // them as one uint4 from each input (reinterpret_cast<const uint4 *>),
    // add them as four __half2 pairs (__hadd2) and store one uint4; otherwise
    // (the last, partial group) add the elements that exist one by one.
}
