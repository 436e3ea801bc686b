// Vector Addition at memory speed.
//
// Every buffer starts 256-byte aligned, so A, B and C can be read and written
// as float4 (16 bytes per access). Thread t of block b handles the float4s
// b*BLOCK*UNROLL + t + u*BLOCK for u < UNROLL: each of the UNROLL accesses is
// coalesced across the warp, and all 2*UNROLL loads are issued before the
// first add, so every thread keeps 128 bytes in flight. The N % 4 elements
// after the last whole float4 (at most 3) are added by the first threads of
// block 0. Indices are 64-bit.
//
// @const BLOCK=256
// @const UNROLL=4
// @launch vector_add grid=(cdiv(N, 4*UNROLL*BLOCK)) block=(BLOCK) args=(A, B, C, N)

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
           long long n)
{
    const long long n4 = n >> 2;
    const float4* __restrict__ a4 = reinterpret_cast<const float4*>(a);
    const float4* __restrict__ b4 = reinterpret_cast<const float4*>(b);
    float4* __restrict__ c4 = reinterpret_cast<float4*>(c);
    const long long base = (long long)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;

    float4 va[UNROLL], vb[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n4) {
            va[u] = a4[i];
            vb[u] = b4[i];
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n4)
            c4[i] = make_float4(va[u].x + vb[u].x, va[u].y + vb[u].y, va[u].z + vb[u].z,
                                va[u].w + vb[u].w);
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long i = (n4 << 2) + threadIdx.x;
        c[i] = a[i] + b[i];
    }
}
