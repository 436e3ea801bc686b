// Negative control: the missing K tail. A tensor-core kernel (one warp per
// 16 x 8 tile of C, fp32 accumulators, fragments straight from global memory)
// whose K loop only takes whole steps of 16, so the last K % 16 terms of
// every dot product are dropped (for K = 8 it writes zeros). Rows and
// columns are masked correctly. Expected verdict: Wrong Answer.
//
// @launch matmul grid=(cdiv(N, 8), cdiv(M, 16)) block=(32) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

// ---- PTX wrappers: mma.sync (tests/cuemu emulates this section) ----
// c (rows g and g + 8, columns 2t and 2t + 1) += a b for one 16 x 8 x 16 tile.
__device__ __forceinline__ void mma_16816(float c[4], const unsigned a[4], const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// ---- end of PTX wrappers ----

__device__ __forceinline__ unsigned half_bits(const __half *p, bool ok)
{
    return ok ? (unsigned)__half_as_ushort(*p) : 0u;
}

extern "C" __global__ void matmul(const __half *A, const __half *B, __half *C, long long M,
                                  long long N, long long K)
{
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const long long m0 = (long long)blockIdx.y * 16, n0 = (long long)blockIdx.x * 8;
    const long long r0 = m0 + g, r1 = m0 + g + 8, col = n0 + g;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (long long k0 = 0; k0 + 16 <= K; k0 += 16) { // drops the last K % 16 terms
        const long long ka = k0 + 2 * t, kb = k0 + 2 * t + 8;
        unsigned a[4], b[2];
        // a[0]: row g, k 2t and 2t+1; a[1]: row g+8; a[2], a[3]: k + 8.
        a[0] = half_bits(A + r0 * K + ka, r0 < M && ka < K) |
               half_bits(A + r0 * K + ka + 1, r0 < M && ka + 1 < K) << 16;
        a[1] = half_bits(A + r1 * K + ka, r1 < M && ka < K) |
               half_bits(A + r1 * K + ka + 1, r1 < M && ka + 1 < K) << 16;
        a[2] = half_bits(A + r0 * K + kb, r0 < M && kb < K) |
               half_bits(A + r0 * K + kb + 1, r0 < M && kb + 1 < K) << 16;
        a[3] = half_bits(A + r1 * K + kb, r1 < M && kb < K) |
               half_bits(A + r1 * K + kb + 1, r1 < M && kb + 1 < K) << 16;
        // b[0]: k 2t and 2t+1 of column g; b[1]: k + 8.
        b[0] = half_bits(B + ka * N + col, ka < K && col < N) |
               half_bits(B + (ka + 1) * N + col, ka + 1 < K && col < N) << 16;
        b[1] = half_bits(B + kb * N + col, kb < K && col < N) |
               half_bits(B + (kb + 1) * N + col, kb + 1 < K && col < N) << 16;
        mma_16816(acc, a, b);
    }
    const long long c0 = n0 + 2 * t;
    for (int h = 0; h < 2; h++) {
        const long long r = h ? r1 : r0;
        if (r >= M)
            continue;
        if (c0 < N)
            C[r * N + c0] = __float2half_rn(acc[2 * h]);
        if (c0 + 1 < N)
            C[r * N + c0 + 1] = __float2half_rn(acc[2 * h + 1]);
    }
}
