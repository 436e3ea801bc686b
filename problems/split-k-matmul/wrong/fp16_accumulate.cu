// Negative control: the tensor cores with fp16 accumulators
// (mma.sync ... .f16.f16.f16.f16), the CUDA analogue of Triton's
// tl.dot(a, b, out_dtype=tl.float16), then widened to fp32 for the store.
// Each mma rounds the running sum to fp16 (11-bit significand): 5-100 times
// the 2e-5 * S allowed, on most outputs (problems/NOTES.md). No split: one
// warp per 16 x 8 tile of C, fragments straight from global memory.
// Expected verdict: Wrong Answer.
//
// @launch matmul grid=(cdiv(N, 8), cdiv(M, 16)) block=(32) args=(A, B, C, M, N, K)

#include <cuda_fp16.h>

// ---- PTX wrappers: mma.sync with fp16 accumulators (tests/cuemu emulates this section) ----
// c (two packed half2: rows g and g + 8, columns 2t, 2t + 1) += a b.
__device__ __forceinline__ void mma_16816_f16acc(unsigned c[2], const unsigned a[4],
                                                 const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// ---- end of PTX wrappers ----

__device__ __forceinline__ unsigned half_bits(const __half *p, bool ok)
{
    return ok ? (unsigned)__half_as_ushort(*p) : 0u;
}

extern "C" __global__ void matmul(const __half *A, const __half *B, float *C, long long M,
                                  long long N, long long K)
{
    const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const long long m0 = (long long)blockIdx.y * 16, n0 = (long long)blockIdx.x * 8;
    const long long r0 = m0 + g, r1 = m0 + g + 8, col = n0 + g;
    unsigned acc[2] = {0u, 0u};
    for (long long k0 = 0; k0 < K; k0 += 16) {
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
        mma_16816_f16acc(acc, a, b);
    }
    const long long c0 = n0 + 2 * t;
    for (int h = 0; h < 2; h++) {
        const long long r = h ? r1 : r0;
        if (r >= M)
            continue;
        if (c0 < N)
            C[r * N + c0] = __half2float(__ushort_as_half((unsigned short)(acc[h] & 0xffffu)));
        if (c0 + 1 < N)
            C[r * N + c0 + 1] = __half2float(__ushort_as_half((unsigned short)(acc[h] >> 16)));
    }
}
