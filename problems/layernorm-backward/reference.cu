// Reference for LayerNorm backward, fp64, two launches, from the given
// mean and rstd (inputs, not recomputed):
//   xhat = (x - mean) * rstd, g = dY * gamma,
//   c1 = sum_j g * xhat / N, c2 = sum_j g / N,
//   dX = rstd * (g - xhat * c1 - c2)                      (lnb_ref_rows: a block per row)
//   dgamma_j = sum_i dY * xhat, dbeta_j = sum_i dY          (lnb_ref_cols)
// with the accumulation scales dgamma_scale_j = sum_i |dY * xhat| and
// dbeta_scale_j = sum_i |dY| that their tolerances multiply. lnb_ref_cols
// gives 32 columns to a block of 32 x 8 threads: each thread sums every 8th
// row of its column, then thread (c, 0) adds the 8 partial sums in order.
// Any M, N >= 1; 64-bit indices.
//
// @launch lnb_ref_rows grid=(M) block=(256) args=(dY, X, gamma, mean, rstd, dX, M, N)
// @launch lnb_ref_cols grid=(cdiv(N, 32)) block=(32, 8) args=(dY, X, mean, rstd, dgamma, dgamma_scale, dbeta, dbeta_scale, M, N)

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

extern "C" __global__ void lnb_ref_rows(const __half* dY, const __half* X, const __half* gamma, const float* mean,
                                        const float* rstd, double* dX, long long M, long long N)
{
    __shared__ double red[THREADS];
    const long long row = blockIdx.x;
    const __half* x = X + row * N;
    const __half* dy = dY + row * N;
    const double mu = mean[row], rs = rstd[row];
    const int t = threadIdx.x;

    double a = 0.0, b = 0.0;
    for (long long j = t; j < N; j += THREADS) {
        const double xhat = ((double)__half2float(x[j]) - mu) * rs;
        const double g = (double)__half2float(dy[j]) * (double)__half2float(gamma[j]);
        a += g * xhat;
        b += g;
    }
    const double c1 = block_sum(a, red) / (double)N;
    const double c2 = block_sum(b, red) / (double)N;
    for (long long j = t; j < N; j += THREADS) {
        const double xhat = ((double)__half2float(x[j]) - mu) * rs;
        const double g = (double)__half2float(dy[j]) * (double)__half2float(gamma[j]);
        dX[row * N + j] = rs * (g - xhat * c1 - c2);
    }
}

extern "C" __global__ void lnb_ref_cols(const __half* dY, const __half* X, const float* mean, const float* rstd,
                                        double* dgamma, double* dgamma_scale, double* dbeta, double* dbeta_scale,
                                        long long M, long long N)
{
    __shared__ double part[4][8][32];
    const int c = threadIdx.x, r = threadIdx.y;
    const long long j = (long long)blockIdx.x * 32 + c;
    double sg = 0.0, ag = 0.0, sb = 0.0, ab = 0.0;
    if (j < N)
        for (long long i = r; i < M; i += 8) {
            const double dy = (double)__half2float(dY[i * N + j]);
            const double xhat = ((double)__half2float(X[i * N + j]) - (double)mean[i]) * (double)rstd[i];
            sg += dy * xhat;
            ag += fabs(dy * xhat);
            sb += dy;
            ab += fabs(dy);
        }
    part[0][r][c] = sg;
    part[1][r][c] = ag;
    part[2][r][c] = sb;
    part[3][r][c] = ab;
    __syncthreads();
    if (r == 0 && j < N) {
        double v[4] = {0.0, 0.0, 0.0, 0.0};
        for (int q = 0; q < 4; q++)
            for (int k = 0; k < 8; k++)
                v[q] += part[q][k][c];
        dgamma[j] = v[0];
        dgamma_scale[j] = v[1];
        dbeta[j] = v[2];
        dbeta_scale[j] = v[3];
    }
}
