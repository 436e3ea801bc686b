// SiLU at memory speed: y = x / (1 + exp(-x)).
//
// expf and an IEEE division are a couple of dozen instructions, under what
// the SMs can issue while memory moves 8 bytes, so the kernel is shaped like
// every elementwise kernel here: x and y move as float4 (buffers are 256-byte
// aligned), thread t of block b handles the float4s b*BLOCK*UNROLL + t +
// u*BLOCK for u < UNROLL, all loads issued before the first expf (64 bytes in
// flight per thread). The N % 4 elements after the last whole float4 are done
// by the first threads of block 0. For x < -88.7, expf(-x) = +inf and the
// result is -0: the true value is below 3e-37.
//
// @const BLOCK=256
// @const UNROLL=4
// @launch silu grid=(cdiv(N, 4*UNROLL*BLOCK)) block=(BLOCK) args=(x, y, N)

__device__ __forceinline__ float silu1(float v)
{
    return v / (1.0f + expf(-v));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
silu(const float* __restrict__ x, float* __restrict__ y, long long n)
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
            y4[i] = make_float4(silu1(v[u].x), silu1(v[u].y), silu1(v[u].z), silu1(v[u].w));
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long i = (n4 << 2) + threadIdx.x;
        y[i] = silu1(x[i]);
    }
}
