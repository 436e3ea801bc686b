// Negative control: one bad configuration. A shared-memory tiled kernel
// (fp32 FMA on the CUDA cores, correct for BM = 16) whose A-tile loop was
// written for BM = 16 and never updated: with BM = 32, rows 16-31 of the
// tile are never loaded, so half of every 32-row tile is computed from stale
// shared memory. The judge checks every @tune configuration on every test,
// so one wrong configuration makes the submission wrong.
// Expected verdict: Wrong Answer.
//
// @tune BM=(16, 32)
// @const BN=32
// @const BK=32
// @launch matmul grid=(cdiv(N, BN), cdiv(M, BM)) block=(32, 8) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K)
{
    __shared__ float As[BM][BK + 1];
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    const long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
    float acc[BM / 8];
    for (int i = 0; i < BM / 8; i++)
        acc[i] = 0.0f;
    for (long long k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < 16 * BK; e += 256) { /* should be BM * BK */
            const int r = e / BK, k = e % BK;
            As[r][k] =
                (row0 + r < M && k0 + k < K) ? __half2float(A[(row0 + r) * K + k0 + k]) : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            const int k = e / BN, c = e % BN;
            Bs[k][c] =
                (k0 + k < K && col0 + c < N) ? __half2float(B[(k0 + k) * N + col0 + c]) : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; k++)
            for (int i = 0; i < BM / 8; i++)
                acc[i] = fmaf(As[ty + 8 * i][k], Bs[k][tx], acc[i]);
        __syncthreads();
    }
    for (int i = 0; i < BM / 8; i++) {
        const long long row = row0 + ty + 8 * i, col = col0 + tx;
        if (row < M && col < N)
            C[row * N + col] = __float2half_rn(acc[i]);
    }
}
