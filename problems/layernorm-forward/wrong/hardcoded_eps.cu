// Negative control: eps hard-coded as PyTorch's default 1e-5 instead of the
// eps argument. Right on every test that uses eps = 1e-5, wrong on the low-
// variance rows run with eps = 1e-6, where eps dominates var + eps.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch layernorm_fwd grid=(M) block=(BLOCK) args=(X, gamma, beta, Y, mean, rstd, eps, M, N)

#include <cuda_fp16.h>

__device__ float block_sum(float v, float* red)
{
    const int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const float r = red[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void layernorm_fwd(const __half* X, const __half* gamma, const __half* beta, __half* Y,
                                         float* mean, float* rstd, float eps, long long M, long long N)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const __half* x = X + row * N;
    __half* y = Y + row * N;
    const int t = threadIdx.x;

    float s = 0.0f;
    for (long long j = t; j < N; j += BLOCK)
        s += __half2float(x[j]);
    const float mu = block_sum(s, red) / (float)N;

    float q = 0.0f;
    for (long long j = t; j < N; j += BLOCK) {
        const float d = __half2float(x[j]) - mu;
        q += d * d;
    }
    const float rs = rsqrtf(block_sum(q, red) / (float)N + 1e-5f); /* BUG: ignores eps */

    for (long long j = t; j < N; j += BLOCK)
        y[j] = __float2half((__half2float(x[j]) - mu) * rs * __half2float(gamma[j]) + __half2float(beta[j]));
    if (t == 0) {
        mean[row] = mu;
        rstd[row] = rs;
    }
}
