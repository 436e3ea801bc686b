// LayerNorm forward over the rows of X (M x N, fp16, row-major):
//   mean[i] = (1/N) sum_j X[i][j]
//   var     = (1/N) sum_j (X[i][j] - mean[i])^2        (biased, as PyTorch)
//   rstd[i] = 1 / sqrt(var + eps)
//   Y[i][j] = (X[i][j] - mean[i]) * rstd[i] * gamma[j] + beta[j]
// Compute in fp32; Y is fp16 (round once), mean and rstd are fp32.
//
// The launch below gives each row one block of BLOCK threads.
//
// @const BLOCK=256
// @launch layernorm_fwd grid=(M) block=(BLOCK) args=(X, gamma, beta, Y, mean, rstd, eps, M, N)

#include <cuda_fp16.h>

extern "C" __global__ void layernorm_fwd(const __half* X, const __half* gamma, const __half* beta, __half* Y,
                                         float* mean, float* rstd, float eps, long long M, long long N)
{
    const long long row = blockIdx.x;
    const __half* x = X + row * N;
    __half* y = Y + row * N;

    // TODO:
    // 1. the row's mean (each thread sums a strided part of the row, then the
    //    threads of the block combine their sums);
    // 2. the variance around that mean, the same way, and rstd;
    // 3. write y[j] for every j < N, and mean[row], rstd[row].
}
