// Negative control: writes nothing (C keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch matmul grid=(cdiv(N, 32), cdiv(M, 8)) block=(32, 8) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, float *C, long long M,
                                  long long N, long long K)
{
}
