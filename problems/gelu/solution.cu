// Exact GELU at memory speed: y = 0.5 x (1 + erf(x / sqrt 2)).
//
// erff costs a couple of dozen instructions, well under the ~60 per element
// that the GPU can issue in the time memory moves 8 bytes, so the kernel is
// memory-bound and is shaped like every elementwise kernel here: x and y move
// as float4 (buffers are 256-byte aligned), thread t of block b handles the
// float4s b*BLOCK*UNROLL + t + u*BLOCK for u < UNROLL, all loads issued
// before the first erff (64 bytes in flight per thread). The N % 4 elements
// after the last whole float4 are done by the first threads of block 0.
//
// @const BLOCK=256
// @const UNROLL=4
// @launch gelu grid=(cdiv(N, 4*UNROLL*BLOCK)) block=(BLOCK) args=(x, y, N)

__device__ __forceinline__ float gelu1(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
gelu(const float* __restrict__ x, float* __restrict__ y, long long n)
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
            y4[i] = make_float4(gelu1(v[u].x), gelu1(v[u].y), gelu1(v[u].z), gelu1(v[u].w));
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long i = (n4 << 2) + threadIdx.x;
        y[i] = gelu1(x[i]);
    }
}
