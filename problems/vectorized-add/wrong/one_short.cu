// Negative control: an off-by-one bound (i < n - 1), so the last element is
// never written. Expected verdict: Wrong Answer.
//
// @launch vadd grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

#include <cuda_fp16.h>

extern "C" __global__ void vadd(const __half *A, const __half *B, __half *C, long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        C[i] = __hadd(A[i], B[i]);
}
