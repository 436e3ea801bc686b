// Vector addition with float4 accesses (tests/gpu/goals.sh's passing side).
//
// Buffers are 256-byte aligned, so x, y and out are read and written as float4
// (LDG.E.128 / STG.E.128); the N % 4 elements after the last whole float4 are
// added by the first threads of block 0. DELAY is the "rebuild" goal's knob:
// the judge rebuilds with DELAY=100000, which makes every thread wait that many
// clock cycles first, so the rebuilt kernel is many times slower.
//
// @tune BLOCK=(128, 256)
// @const DELAY=0
// @launch vector_add grid=(cdiv(N, 4*BLOCK)) block=(BLOCK) args=(x, y, out, N)

extern "C" __global__ void __launch_bounds__(BLOCK)
vector_add(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ out,
           long long n)
{
    const long long n4 = n >> 2;
    const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;

    if (DELAY > 0) {
        const long long start = clock64();
        while (clock64() - start < DELAY)
            ;
    }
    if (i < n4) {
        const float4 a = reinterpret_cast<const float4 *>(x)[i];
        const float4 b = reinterpret_cast<const float4 *>(y)[i];
        reinterpret_cast<float4 *>(out)[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long t = (n4 << 2) + threadIdx.x;
        out[t] = x[t] + y[t];
    }
}
