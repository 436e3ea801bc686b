// Negative control: fp16 accumulation. naive.cu with the running sums kept
// in __half and updated with __hfma, so every step rounds to an 11-bit
// significand: the error grows with K to several times the 1e-4 * S allowed
// (problems/NOTES.md). The tile order and the trace are right.
// Expected verdict: Wrong Answer.
//
// @const TILE=128
// @const BK=16
// @launch matmul grid=(cdiv(M, TILE) * cdiv(N, TILE)) block=(16, 16) args=(A, B, C, tile_order, M, N, K, GROUP_M)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, int *tile_order,
                                  long long M, long long N, long long K, int group_m)
{
    __shared__ __half As[BK][TILE + 1];
    __shared__ __half Bs[BK][TILE];

    const long long num_m = (M + TILE - 1) / TILE, num_n = (N + TILE - 1) / TILE;
    const long long pid = blockIdx.x, in_group = (long long)group_m * num_n;
    const long long first_m = pid / in_group * group_m;
    const long long rows = min(num_m - first_m, (long long)group_m);
    const long long tile_m = first_m + (pid % in_group) % rows;
    const long long tile_n = (pid % in_group) / rows;
    const long long m0 = tile_m * TILE, n0 = tile_n * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    if (tid == 0)
        tile_order[pid] = (int)(tile_m * num_n + tile_n);

    __half acc[8][8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            acc[i][j] = __float2half_rn(0.0f);
    for (long long k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < TILE * BK; e += 256) {
            const int r = e / BK, k = e % BK;
            As[k][r] =
                (m0 + r < M && k0 + k < K) ? A[(m0 + r) * K + k0 + k] : __float2half_rn(0.0f);
            const int kb = e / TILE, c = e % TILE;
            Bs[kb][c] =
                (k0 + kb < K && n0 + c < N) ? B[(k0 + kb) * N + n0 + c] : __float2half_rn(0.0f);
        }
        __syncthreads();
        for (int k = 0; k < BK; k++) {
            __half a[8], b[8];
            for (int i = 0; i < 8; i++) {
                a[i] = As[k][ty + 16 * i];
                b[i] = Bs[k][tx + 16 * i];
            }
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++)
                    acc[i][j] = __hfma(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; i++) {
        const long long r = m0 + ty + 16 * i;
        for (int j = 0; j < 8; j++) {
            const long long c = n0 + tx + 16 * j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
    }
}
