// Reference for LayerNorm forward: one block of 256 threads per row, fp64.
// Two passes over the row: the mean, then the biased variance
// sum((x - mean)^2) / N; rstd = 1 / sqrt(var + eps) with eps as given (fp32,
// widened exactly), then Y = (x - mean) * rstd * gamma + beta, all in double.
// mean_scale = sum|x| / N is the scale of the mean's tolerance
// (|mean - ref| <= 1e-7 + 3e-5 * mean_scale). Reductions are a plain
// shared-memory tree. Any M, N >= 1; 64-bit indices.
//
// @launch layernorm_ref grid=(M) block=(256) args=(X, gamma, beta, Y, mean, mean_scale, rstd, eps, M, N)

#include <cuda_fp16.h>

#define THREADS 256

__device__ double block_sum(double v, double* red)
{
    const int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            red[t] += red[t + s];
        __syncthreads();
    }
    const double r = red[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void layernorm_ref(const __half* X, const __half* gamma, const __half* beta, double* Y,
                                         double* mean, double* mean_scale, double* rstd, float eps, long long M,
                                         long long N)
{
    __shared__ double red[THREADS];
    const long long row = blockIdx.x;
    const __half* x = X + row * N;
    const int t = threadIdx.x;

    double s = 0.0, a = 0.0;
    for (long long j = t; j < N; j += THREADS) {
        const double v = (double)__half2float(x[j]);
        s += v;
        a += fabs(v);
    }
    const double mu = block_sum(s, red) / (double)N;
    const double abs_mean = block_sum(a, red) / (double)N;

    double q = 0.0;
    for (long long j = t; j < N; j += THREADS) {
        const double d = (double)__half2float(x[j]) - mu;
        q += d * d;
    }
    const double var = block_sum(q, red) / (double)N;
    const double rs = 1.0 / sqrt(var + (double)eps);

    for (long long j = t; j < N; j += THREADS)
        Y[row * N + j] = ((double)__half2float(x[j]) - mu) * rs * (double)__half2float(gamma[j]) +
                         (double)__half2float(beta[j]);
    if (t == 0) {
        mean[row] = mu;
        mean_scale[row] = abs_mean;
        rstd[row] = rs;
    }
}
