// Negative control: tensor cores in TF32 (wmma m16n16k8, precision::tf32,
// fp32 accumulation). Inputs lose 13 of their 23 mantissa bits, so each
// product is off by up to ~2^-11 relative and C is off by roughly
// 5e-4 / sqrt(K) * S instead of the 2e-6 * S allowed: 6-20x the tolerance at
// K = 4096-8192, far more at small K (problems/NOTES.md).
// One warp per 16 x 16 tile of C; tiles are staged through shared memory
// with zero padding so any M, N, K works.
// Expected verdict: Wrong Answer.
//
// @launch sgemm grid=(cdiv(N, 16), cdiv(M, 16)) block=(32) args=(A, B, C, M, N, K)

#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void sgemm(const float* a, const float* b, float* c, long long M,
                                 long long N, long long K)
{
    __shared__ __align__(32) float as[16 * 8];  /* 16 x 8, row-major */
    __shared__ __align__(32) float bs[8 * 16];  /* 8 x 16, row-major */
    __shared__ __align__(32) float cs[16 * 16]; /* 16 x 16, row-major */
    const long long row0 = (long long)blockIdx.y * 16, col0 = (long long)blockIdx.x * 16;
    const int lane = threadIdx.x;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (long long k0 = 0; k0 < K; k0 += 8) {
        for (int t = lane; t < 128; t += 32) {
            const long long ar = row0 + t / 8, ak = k0 + t % 8;
            as[t] = (ar < M && ak < K) ? a[ar * K + ak] : 0.0f;
            const long long bk = k0 + t / 16, bc = col0 + t % 16;
            bs[t] = (bk < K && bc < N) ? b[bk * N + bc] : 0.0f;
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, as, 8);
        wmma::load_matrix_sync(fb, bs, 16);
        for (int t = 0; t < fa.num_elements; t++)
            fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
        for (int t = 0; t < fb.num_elements; t++)
            fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(cs, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int t = lane; t < 256; t += 32) {
        const long long r = row0 + t / 16, col = col0 + t % 16;
        if (r < M && col < N)
            c[r * N + col] = cs[t];
    }
}
