// Negative control: 16-byte loads and stores (8 halves) that forget the
// tail. The statistics and the output cover the first N / 8 * 8 elements of
// each row; the last N % 8 are neither counted nor written (for N < 8,
// nothing is). To stay aligned it only vectorises rows that are 16-byte
// aligned... by assuming N % 8 == 0, so rows of other lengths are treated the
// same way and their tails keep the NaN poison (the first test, N = 1, fails).
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
    const long long chunks = N / 8; /* BUG: the last N % 8 elements are dropped */

    float s = 0.0f;
    for (long long c = t; c < chunks; c += BLOCK)
        for (int e = 0; e < 8; e++)
            s += __half2float(x[8 * c + e]);
    const float mu = block_sum(s, red) / (float)N;
    float q = 0.0f;
    for (long long c = t; c < chunks; c += BLOCK)
        for (int e = 0; e < 8; e++) {
            const float d = __half2float(x[8 * c + e]) - mu;
            q += d * d;
        }
    const float rs = rsqrtf(block_sum(q, red) / (float)N + eps);
    for (long long c = t; c < chunks; c += BLOCK)
        for (int e = 0; e < 8; e++)
            y[8 * c + e] = __float2half((__half2float(x[8 * c + e]) - mu) * rs * __half2float(gamma[8 * c + e]) +
                                        __half2float(beta[8 * c + e]));
    if (t == 0) {
        mean[row] = mu;
        rstd[row] = rs;
    }
}
