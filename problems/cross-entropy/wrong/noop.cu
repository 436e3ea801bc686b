// Negative control: writes nothing (loss keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch ce_rows grid=(M) block=(256) args=(Z, t, loss, ignore_index, M, V)

#include <cuda_bf16.h>

extern "C" __global__ void ce_rows(const __nv_bfloat16* Z, const int* t, float* loss, int ignore_index, long long M,
                                   long long V)
{
}
