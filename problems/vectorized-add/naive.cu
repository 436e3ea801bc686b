// Naive but correct: one thread per element, one 2-byte load per input and
// one 2-byte store (16-bit LDG/STG). Control: must be Accepted; it is the
// baseline that 16-byte accesses should beat.
//
// @const BLOCK=256
// @launch vadd grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, C, N)

#include <cuda_fp16.h>

extern "C" __global__ void vadd(const __half *A, const __half *B, __half *C, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        C[i] = __hadd(A[i], B[i]);
}
