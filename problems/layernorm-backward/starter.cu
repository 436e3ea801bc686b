// LayerNorm backward. Given dY, X (M x N, fp16, row-major), gamma (N, fp16)
// and the forward pass's mean and rstd (M, fp32), compute in fp32:
//   xhat = (X[i][j] - mean[i]) * rstd[i],  g = dY[i][j] * gamma[j]
//   c1 = (1/N) sum_j g * xhat,  c2 = (1/N) sum_j g               (per row)
//   dX[i][j] = rstd[i] * (g - xhat * c1 - c2)                    (fp16, round once)
//   dgamma[j] = sum_i dY[i][j] * xhat,  dbeta[j] = sum_i dY[i][j] (fp32, sums over rows)
//
// The first launch gives each row a block for dX; the second gives each
// column a thread for dgamma and dbeta.
//
// @const BLOCK=256
// @launch lnb_dx grid=(M) block=(BLOCK) args=(dY, X, gamma, mean, rstd, dX, M, N)
// @launch lnb_dgamma grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(dY, X, mean, rstd, dgamma, dbeta, M, N)

#include <cuda_fp16.h>

extern "C" __global__ void lnb_dx(const __half* dY, const __half* X, const __half* gamma, const float* mean,
                                  const float* rstd, __half* dX, long long M, long long N)
{
    const long long row = blockIdx.x;

    // TODO: the row sums c1 and c2 (the block's threads share the row), then
    // dX[row * N + j] for every j < N.
}

extern "C" __global__ void lnb_dgamma(const __half* dY, const __half* X, const float* mean, const float* rstd,
                                      float* dgamma, float* dbeta, long long M, long long N)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: if j < N, sum over every row i: dgamma[j] += dY[i][j] * xhat, dbeta[j] += dY[i][j].
}
