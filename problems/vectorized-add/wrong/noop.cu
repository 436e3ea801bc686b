// Negative control: writes nothing (C keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch vadd grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)

#include <cuda_fp16.h>

extern "C" __global__ void vadd(const __half *A, const __half *B, __half *C, long long n)
{
}
