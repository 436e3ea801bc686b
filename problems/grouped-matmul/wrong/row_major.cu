// Negative control: row-major tile order whatever GROUP_M says (tile_m =
// pid / num_n, tile_n = pid % num_n). C is right, but the trace is the
// GROUP_M = 1 one: tile_order is wrong on every test with GROUP_M > 1 and
// more than one tile row. The matmul itself is naive.cu's.
// Expected verdict: Wrong Answer.
//
// @const TILE=128
// @const BK=16
// @launch matmul grid=(cdiv(M, TILE) * cdiv(N, TILE)) block=(16, 16) args=(A, B, C, tile_order, M, N, K, GROUP_M)

#include <cuda_fp16.h>

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, int *tile_order,
                                  long long M, long long N, long long K, int group_m)
{
    __shared__ float As[BK][TILE + 1];
    __shared__ float Bs[BK][TILE];

    const long long num_m = (M + TILE - 1) / TILE, num_n = (N + TILE - 1) / TILE;
    const long long pid = blockIdx.x;
    const long long tile_m = pid / num_n, tile_n = pid % num_n; /* ignores group_m */
    const long long m0 = tile_m * TILE, n0 = tile_n * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    if (tid == 0)
        tile_order[pid] = (int)(tile_m * num_n + tile_n);

    float acc[8][8];
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0.0f;
    for (long long k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < TILE * BK; e += 256) {
            const int r = e / BK, k = e % BK;
            As[k][r] = (m0 + r < M && k0 + k < K) ? __half2float(A[(m0 + r) * K + k0 + k]) : 0.0f;
            const int kb = e / TILE, c = e % TILE;
            Bs[kb][c] =
                (k0 + kb < K && n0 + c < N) ? __half2float(B[(k0 + kb) * N + n0 + c]) : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; k++) {
            float a[8], b[8];
            for (int i = 0; i < 8; i++) {
                a[i] = As[k][ty + 16 * i];
                b[i] = Bs[k][tx + 16 * i];
            }
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 8; i++) {
        const long long r = m0 + ty + 16 * i;
        for (int j = 0; j < 8; j++) {
            const long long c = n0 + tx + 16 * j;
            if (r < M && c < N)
                C[r * N + c] = __float2half_rn(acc[i][j]);
        }
    }
}
