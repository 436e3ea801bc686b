// Naive but correct: one thread per element, one Philox4x32-10 per element
// (Triton's tl.rand), one 4-byte load and store. No mask tensor: the mask is
// recomputed from (seed, i) wherever it is needed.
// Control: must be Accepted.
//
// @const BLOCK=256
// @launch dropout grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, y, p, seed, N)

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
extern "C" __global__ void dropout(const float* x, float* y, float p, unsigned long long seed,
                                   long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float u = dropout_uniform(seed, (unsigned int)i);
        y[i] = u > p ? x[i] * (1.0f / (1.0f - p)) : 0.0f;
    }
}
