// Negative control: LayerNorm's centering carried over to RMSNorm. It
// subtracts the row mean before squaring and scaling: y = (x - mean) * rstd * w
// with rstd = 1 / sqrt(var + eps). RMSNorm has no mean; on zero-mean data the
// two differ a little, on rows with a nonzero mean (and N = 1) a lot.
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

    float s = 0.0f;
    for (long long j = t; j < N; j += BLOCK)
        s += __bfloat162float(x[j]);
    red[t] = s;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            red[t] += red[t + k];
        __syncthreads();
    }
    const float mu = red[0] / (float)N; /* BUG: RMSNorm does not center */
    __syncthreads();
    float q = 0.0f;
    for (long long j = t; j < N; j += BLOCK) {
        const float v = __bfloat162float(x[j]) - mu;
        q += v * v;
    }
    red[t] = q;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            red[t] += red[t + k];
        __syncthreads();
    }
    const float rs = rsqrtf(red[0] / (float)N + eps);

    for (long long j = t; j < N; j += BLOCK)
        y[j] = __float2bfloat16((__bfloat162float(x[j]) - mu) * rs * __bfloat162float(w[j]));
    if (t == 0)
        rstd[row] = rs;
}
