// Negative control: the one-pass variance E[x^2] - E[x]^2 in fp32, the
// classic mistake. Both terms are about mean^2; when |mean| >> std their
// difference cancels. For rows of 100 + N(0, 1), E[x^2] ~ 1e4 carries an fp32
// rounding error of ~1e-3, about 1e-3 of the variance, so rstd misses its
// 1e-4 relative tolerance by a factor of 10 or more. Otherwise like naive.cu
// (a block per row, fp32, tree reductions).
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
        const float v = __half2float(x[j]);
        q += v * v;
    }
    const float var = fmaxf(block_sum(q, red) / (float)N - mu * mu, 0.0f); /* BUG: cancels */
    const float rs = rsqrtf(var + eps);

    for (long long j = t; j < N; j += BLOCK)
        y[j] = __float2half((__half2float(x[j]) - mu) * rs * __half2float(gamma[j]) + __half2float(beta[j]));
    if (t == 0) {
        mean[row] = mu;
        rstd[row] = rs;
    }
}
