// ReLU at memory speed: one read and one write per element.
//
// Every buffer starts 256-byte aligned, so x and y can be moved as float4
// (16 bytes per access). Thread t of block b handles the float4s
// b*BLOCK*UNROLL + t + u*BLOCK for u < UNROLL: each access is coalesced across
// the warp, and all UNROLL loads are issued before the first store, so every
// thread keeps 128 bytes in flight. The N % 4 elements after the last whole
// float4 (at most 3) are done by the first threads of block 0. Indices are
// 64-bit.
//
// @const BLOCK=256
// @const UNROLL=8
// @launch relu grid=(cdiv(N, 4*UNROLL*BLOCK)) block=(BLOCK) args=(x, y, N)

__device__ __forceinline__ float4 relu4(float4 v)
{
    return make_float4(fmaxf(v.x, 0.0f), fmaxf(v.y, 0.0f), fmaxf(v.z, 0.0f), fmaxf(v.w, 0.0f));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
relu(const float* __restrict__ x, float* __restrict__ y, long long n)
{
    const long long n4 = n >> 2;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
    const long long base = (long long)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;

    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n4)
            v[u] = x4[i];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        const long long i = base + (long long)u * BLOCK;
        if (i < n4)
            y4[i] = relu4(v[u]);
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long i = (n4 << 2) + threadIdx.x;
        y[i] = fmaxf(x[i], 0.0f);
    }
}
