// Vectorized fp16 vector add at memory speed.
//
// Scalar fp16 loads move 2 bytes per thread, 64 bytes per warp instruction:
// to keep enough bytes in flight a kernel would need far more threads or
// instructions than the GPU can issue. Here every access is 16 bytes (a
// uint4 of 8 halves; the buffers start 256-byte aligned, so the uint4 at
// index i, i < N / 8, is aligned), which compiles to 128-bit LDG.E.128 /
// STG.E.128, and each thread issues UNROLL such loads of A and of B before
// the first add: 128 bytes in flight per thread. Thread t of block b handles
// the uint4s b * BLOCK * UNROLL + t + u * BLOCK, u < UNROLL, each coalesced
// across the warp. The adds are __hadd2 (two correctly rounded fp16 adds per
// instruction). The N % 8 elements after the last whole uint4 (at most 7)
// are added one by one by the first threads of block 0. Indices are 64-bit.
//
// @const BLOCK=256
// @const UNROLL=4
// @launch vadd grid=(cdiv(N, 8 * UNROLL * BLOCK)) block=(BLOCK) args=(A, B, C, N)

#include <cuda_fp16.h>

__device__ __forceinline__ unsigned add2(unsigned a, unsigned b)
{
    const __half2 s =
        __hadd2(*reinterpret_cast<const __half2 *>(&a), *reinterpret_cast<const __half2 *>(&b));
    return *reinterpret_cast<const unsigned *>(&s);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    vadd(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C,
         long long n)
{
    const long long n8 = n >> 3;
    const uint4 *__restrict__ a8 = reinterpret_cast<const uint4 *>(A);
    const uint4 *__restrict__ b8 = reinterpret_cast<const uint4 *>(B);
    uint4 *__restrict__ c8 = reinterpret_cast<uint4 *>(C);
    const long long base = (long long)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;

    uint4 va[UNROLL], vb[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n8) {
            va[u] = a8[i];
            vb[u] = b8[i];
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n8)
            c8[i] = make_uint4(add2(va[u].x, vb[u].x), add2(va[u].y, vb[u].y),
                               add2(va[u].z, vb[u].z), add2(va[u].w, vb[u].w));
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 7)) {
        const long long i = (n8 << 3) + threadIdx.x;
        C[i] = __hadd(A[i], B[i]);
    }
}
