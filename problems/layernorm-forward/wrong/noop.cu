// Negative control: writes nothing (Y, mean and rstd keep their NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch layernorm_fwd grid=(M) block=(256) args=(X, gamma, beta, Y, mean, rstd, eps, M, N)

#include <cuda_fp16.h>

extern "C" __global__ void layernorm_fwd(const __half* X, const __half* gamma, const __half* beta, __half* Y,
                                         float* mean, float* rstd, float eps, long long M, long long N)
{
}
