// Negative control: eps added outside the square root,
// rstd = 1 / (sqrt(mean(x^2)) + eps). It agrees with 1 / sqrt(mean(x^2) + eps)
// when mean(x^2) >> eps and not when they are comparable: rows of
// 0.001 * N(0, 1) (mean(x^2) ~ 1e-6), and all-zero rows (1/eps = 1e6 instead
// of 1/sqrt(eps) = 1000). Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch rmsnorm_fwd grid=(M) block=(BLOCK) args=(X, w, Y, rstd, eps, M, N)

#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_fwd(const __nv_bfloat16* X, const __nv_bfloat16* w, __nv_bfloat16* Y,
                                       float* rstd, float eps, long long M, long long N)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const __nv_bfloat16* x = X + row * N;
    __nv_bfloat16* y = Y + row * N;
    const int t = threadIdx.x;

    float q = 0.0f;
    for (long long j = t; j < N; j += BLOCK) {
        const float v = __bfloat162float(x[j]);
        q += v * v;
    }
    red[t] = q;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const float rs = 1.0f / (sqrtf(red[0] / (float)N) + eps); /* BUG: eps outside */

    for (long long j = t; j < N; j += BLOCK)
        y[j] = __float2bfloat16(__bfloat162float(x[j]) * rs * __bfloat162float(w[j]));
    if (t == 0)
        rstd[row] = rs;
}
