// Negative control: the column sums cover whole slabs of SLAB = 512 rows
// only: the grid has M / SLAB rows of blocks instead of cdiv(M, SLAB), so the
// last M % 512 rows never reach dgamma and dbeta (for M < 512, nothing does
// and both stay 0). dX is right. Otherwise like naive.cu.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @const SLAB=512
// @scratch acc fp32[2 * N]
// @launch lnb_dx grid=(M) block=(BLOCK) args=(dY, X, gamma, mean, rstd, dX, M, N)
// @launch lnb_cols grid=(cdiv(N, 32), max(1, M / SLAB)) block=(32, 8) args=(dY, X, mean, rstd, acc, M, N)
// @launch lnb_copy grid=(cdiv(N, 256)) block=(256) args=(acc, dgamma, dbeta, N)

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

extern "C" __global__ void lnb_dx(const __half* dY, const __half* X, const __half* gamma, const float* mean,
                                  const float* rstd, __half* dX, long long M, long long N)
{
    __shared__ float red[BLOCK];
    const long long row = blockIdx.x;
    const __half* x = X + row * N;
    const __half* dy = dY + row * N;
    const float mu = mean[row], rs = rstd[row];
    const int t = threadIdx.x;

    float a = 0.0f, b = 0.0f;
    for (long long j = t; j < N; j += BLOCK) {
        const float xhat = (__half2float(x[j]) - mu) * rs;
        const float g = __half2float(dy[j]) * __half2float(gamma[j]);
        a += g * xhat;
        b += g;
    }
    const float c1 = block_sum(a, red) / (float)N;
    const float c2 = block_sum(b, red) / (float)N;
    for (long long j = t; j < N; j += BLOCK) {
        const float xhat = (__half2float(x[j]) - mu) * rs;
        const float g = __half2float(dy[j]) * __half2float(gamma[j]);
        dX[row * N + j] = __float2half(rs * (g - xhat * c1 - c2));
    }
}

extern "C" __global__ void lnb_cols(const __half* dY, const __half* X, const float* mean, const float* rstd,
                                    float* acc, long long M, long long N)
{
    __shared__ float part[2][8][32];
    const int c = threadIdx.x, r = threadIdx.y;
    const long long j = (long long)blockIdx.x * 32 + c;
    const long long i0 = (long long)blockIdx.y * SLAB, i1 = min(M / SLAB * SLAB, i0 + SLAB); /* BUG */
    float sg = 0.0f, sb = 0.0f;
    if (j < N)
        for (long long i = i0 + r; i < i1; i += 8) {
            const float dy = __half2float(dY[i * N + j]);
            sg += dy * (__half2float(X[i * N + j]) - mean[i]) * rstd[i];
            sb += dy;
        }
    part[0][r][c] = sg;
    part[1][r][c] = sb;
    __syncthreads();
    if (r == 0 && j < N) {
        float g = 0.0f, b = 0.0f;
        for (int k = 0; k < 8; k++) {
            g += part[0][k][c];
            b += part[1][k][c];
        }
        atomicAdd(&acc[j], g);
        atomicAdd(&acc[N + j], b);
    }
}

extern "C" __global__ void lnb_copy(const float* acc, float* dgamma, float* dbeta, long long N)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < N) {
        dgamma[j] = acc[j];
        dbeta[j] = acc[N + j];
    }
}
