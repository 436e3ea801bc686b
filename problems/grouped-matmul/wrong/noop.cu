// Negative control: writes nothing (C keeps its NaN poison, tile_order its -1).
// Expected verdict: Wrong Answer.
//
// @launch matmul grid=(cdiv(M, 128) * cdiv(N, 128)) block=(256) args=(A, B, C, tile_order, M, N, K, GROUP_M)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, int *tile_order,
                                  long long M, long long N, long long K, int group_m)
{
}
