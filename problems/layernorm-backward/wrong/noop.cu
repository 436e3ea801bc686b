// Negative control: writes nothing (dX, dgamma and dbeta keep their NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch lnb_dx grid=(M) block=(256) args=(dY, X, gamma, mean, rstd, dX, M, N)

#include <cuda_fp16.h>

extern "C" __global__ void lnb_dx(const __half* dY, const __half* X, const __half* gamma, const float* mean,
                                  const float* rstd, __half* dX, long long M, long long N)
{
}
