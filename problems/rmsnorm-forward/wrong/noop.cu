// Negative control: writes nothing (Y and rstd keep their NaN poison).
// Expected verdict: Wrong Answer.
//
// @launch rmsnorm_fwd grid=(M) block=(256) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_fwd(const __nv_bfloat16* X, const __nv_bfloat16* w, __nv_bfloat16* Y,
                                       float* rstd, float eps, long long M, long long N)
{
}
