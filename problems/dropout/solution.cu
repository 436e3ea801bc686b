// Dropout with inverted scaling, one pass, no mask tensor (8 bytes moved per
// element).
//
// The random numbers cost more than the memory traffic: one Philox4x32-10
// per element is ~17 wide integer multiplies and ~25 logic operations, so on
// an H200 the kernel is bound by the integer pipes about as much as by
// memory. What helps:
// - x moves as float4 (buffers are 256-byte aligned): thread t of block b
//   handles the float4s b*BLOCK*UNROLL + t + u*BLOCK for u < UNROLL, loaded
//   first, so the loads are in flight while the Philox rounds run (the
//   random numbers do not depend on x);
// - the 4*UNROLL Philox chains of a thread are independent, so the compiler
//   interleaves them and the multiplier pipe never waits on a result;
// - the counter starts (i, 0, 0, 0) and the key depends only on the seed:
//   the compiler folds the first rounds' constant products, and only the
//   high half of the last round's B*c2 is needed;
// - s = 1/(1 - p) is one IEEE division per thread, not per element.
// The N % 4 elements after the last whole float4 are done by the first
// threads of block 0. The element index is the 32-bit counter (N < 2^32).
//
// @const BLOCK=256
// @const UNROLL=2
// @launch dropout grid=(cdiv(N, 4*UNROLL*BLOCK)) block=(BLOCK) args=(x, y, p, seed, N)

// The high 32 bits of the 64-bit product a * b (the low 32 bits are a * b).
__host__ __device__ inline unsigned int dropout_mulhi(unsigned int a, unsigned int b)
{
#ifdef __CUDA_ARCH__
    return __umulhi(a, b);
#else
    return (unsigned int)(((unsigned long long)a * b) >> 32);
#endif
}

// Philox4x32-10 with counter (idx, 0, 0, 0) and key (low, high 32 bits of
// seed); returns the first of its four output words.
__host__ __device__ inline unsigned int dropout_philox(unsigned long long seed, unsigned int idx)
{
    unsigned int c0 = idx, c1 = 0, c2 = 0, c3 = 0;
    unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        const unsigned int n0 = dropout_mulhi(0xCD9E8D57u, c2) ^ c1 ^ k0;
        const unsigned int n2 = dropout_mulhi(0xD2511F53u, c0) ^ c3 ^ k1;
        c1 = 0xCD9E8D57u * c2;
        c3 = 0xD2511F53u * c0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c0;
}

// A float in [0, 1) from that word, exactly as Triton's uint_to_uniform_float.
__host__ __device__ inline float dropout_uniform(unsigned long long seed, unsigned int idx)
{
    int v = (int)dropout_philox(seed, idx);
    if (v < 0)
        v = ~v; /* -v - 1 without overflow */
    return (float)v * 4.6566127342e-10f;
}
__device__ __forceinline__ float drop1(float v, float u, float p, float s)
{
    return u > p ? v * s : 0.0f;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
dropout(const float* __restrict__ x, float* __restrict__ y, float p, unsigned long long seed,
        long long n)
{
    const long long n4 = n >> 2;
    const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
    float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
    const long long base = (long long)blockIdx.x * (BLOCK * UNROLL) + threadIdx.x;
    const float s = 1.0f / (1.0f - p);

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
        if (i < n4) {
            const unsigned int e = (unsigned int)(i << 2); /* index of the float4's first element */
            y4[i] = make_float4(drop1(v[u].x, dropout_uniform(seed, e), p, s),
                                drop1(v[u].y, dropout_uniform(seed, e + 1), p, s),
                                drop1(v[u].z, dropout_uniform(seed, e + 2), p, s),
                                drop1(v[u].w, dropout_uniform(seed, e + 3), p, s));
        }
    }

    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const long long i = (n4 << 2) + threadIdx.x;
        y[i] = drop1(x[i], dropout_uniform(seed, (unsigned int)i), p, s);
    }
}
