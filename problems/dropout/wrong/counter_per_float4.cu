// Negative control: the "cheaper" stream, one Philox call per float4 whose
// four output words serve four consecutive elements (word j of counter i/4
// for element i, the order curand uses). Four times fewer Philox rounds, but
// not tl.rand's stream: only element 0's number is the same.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch dropout grid=(cdiv(N, 4*BLOCK)) block=(BLOCK) args=(x, y, p, seed, N)

// The high 32 bits of the 64-bit product a * b (the low 32 bits are a * b).
__host__ __device__ inline unsigned int dropout_mulhi(unsigned int a, unsigned int b)
{
#ifdef __CUDA_ARCH__
    return __umulhi(a, b);
#else
    return (unsigned int)(((unsigned long long)a * b) >> 32);
#endif
}

__device__ inline uint4 philox4(unsigned long long seed, unsigned int idx)
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
    return make_uint4(c0, c1, c2, c3);
}

__device__ inline float to_unit(unsigned int r)
{
    int v = (int)r;
    if (v < 0)
        v = ~v;
    return (float)v * 4.6566127342e-10f;
}

extern "C" __global__ void dropout(const float* x, float* y, float p, unsigned long long seed,
                                   long long n)
{
    long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; /* a group of 4 elements */
    if (4 * q >= n)
        return;
    const uint4 r = philox4(seed, (unsigned int)q);
    const unsigned int w[4] = {r.x, r.y, r.z, r.w};
    const float s = 1.0f / (1.0f - p);
    for (int j = 0; j < 4; j++) {
        const long long i = 4 * q + j;
        if (i < n)
            y[i] = to_unit(w[j]) > p ? x[i] * s : 0.0f;
    }
}
