// Negative control: the sum of squares kept in bf16, the input type (8
// significant bits). Once a partial sum reaches 256, adding a square below 1
// changes nothing, so a thread's partial sums stall and rstd comes out several
// percent too large, far outside its 1e-4 tolerance.
// Expected verdict: Wrong Answer.
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

    __nv_bfloat16 q = __float2bfloat16(0.0f); /* BUG: bf16 accumulator */
    for (long long j = t; j < N; j += BLOCK)
        q = __hfma(x[j], x[j], q);
    red[t] = __bfloat162float(q);
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const float rs = rsqrtf(red[0] / (float)N + eps);

    for (long long j = t; j < N; j += BLOCK)
        y[j] = __float2bfloat16(__bfloat162float(x[j]) * rs * __bfloat162float(w[j]));
    if (t == 0)
        rstd[row] = rs;
}
