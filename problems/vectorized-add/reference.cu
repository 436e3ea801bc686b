// Reference for the vectorized vector add: one thread per element, fp64.
// The sum of two fp16 values is exact in fp64 (the judge compares the
// unrounded sum with the tolerance |C - ref| <= 2^-24 + 2^-10 |ref|, which
// accepts the correctly rounded fp16 sum and any result within one ulp).
// inf + -inf is NaN, as in the kernels.
//
// @launch vadd_ref grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

#include <cuda_fp16.h>

extern "C" __global__ void vadd_ref(const __half *A, const __half *B, double *C, long long N)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        C[i] = (double)__half2float(A[i]) + (double)__half2float(B[i]);
}
