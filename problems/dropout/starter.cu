// Dropout with inverted scaling:
//   y[i] = x[i] * (1 / (1 - p))   if u_i > p      (kept)
//   y[i] = 0                      otherwise        (dropped)
// where u_i = dropout_uniform(seed, i) below: Triton's tl.rand(seed, i).
//
// dropout_philox and dropout_uniform are the judge's definition of the random
// numbers: use them as they are (changing them changes the mask). The judge
// launches dropout as the @launch line says: one thread per element.
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
    // TODO: compute this thread's element index i (64-bit); if it is inside
    // the vector, draw u = dropout_uniform(seed, (unsigned int)i) and write
    // y[i] = x[i] * (1.0f / (1.0f - p)) if u > p, else 0.
}
