// Fused Multiply-Add at memory speed: one pass, 16 bytes moved per element.
//
// Every buffer starts 256-byte aligned, so A, B, C and D can be read and
// written as float4 (16 bytes per access). Thread t of block b handles the
// float4s b*BLOCK*UNROLL + t + u*BLOCK for u < UNROLL: each access is
// coalesced across the warp, and all 3*UNROLL loads are issued before the
// first fmaf, so every thread keeps 192 bytes in flight. The N % 4 elements
// after the last whole float4 (at most 3) are done by the first threads of
// block 0. fmaf rounds once; indices are 64-bit.
//
// @const BLOCK=256
// @const UNROLL=4
// @launch fma_kernel grid=(cdiv(N, 4*UNROLL*BLOCK)) block=(BLOCK) args=(A, B, C, D, N)

extern "C" __global__ void __launch_bounds__(BLOCK)
fma_kernel(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
           float* __restrict__ d, long long n)
{
    const long long n4 = n >> 2;
    const float4* __restrict__ a4 = reinterpret_cast<const float4*>(a);
    const float4* __restrict__ b4 = reinterpret_cast<const float4*>(b);
    const float4* __restrict__ c4 = reinterpret_cast<const float4*>(c);
    float4* __restrict__ d4 = reinterpret_cast<float4*>(d);
    const long long base = (long long)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;

    float4 va[UNROLL], vb[UNROLL], vc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n4) {
            va[u] = a4[i];
            vb[u] = b4[i];
            vc[u] = c4[i];
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n4)
            d4[i] = make_float4(fmaf(va[u].x, vb[u].x, vc[u].x), fmaf(va[u].y, vb[u].y, vc[u].y),
                                fmaf(va[u].z, vb[u].z, vc[u].z), fmaf(va[u].w, vb[u].w, vc[u].w));
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long i = (n4 << 2) + threadIdx.x;
        d[i] = fmaf(a[i], b[i], c[i]);
    }
}
