// Negative control: writes nothing (O keeps its NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch sdpa grid=(1) block=(32) args=(Q, K, V, O, scale, causal, B, H, Sq, Skv, D)

#include <cuda_fp16.h>

extern "C" __global__ void sdpa(const __half* Q, const __half* K, const __half* V, __half* O,
                                float scale, int causal, long long B, long long H, long long Sq,
                                long long Skv, long long D)
{
}
