// Reference for Dropout: one thread per element.
//
// u_i is Triton's tl.rand(seed, i): Philox4x32-10 (Salmon et al. 2011) with
// key (k0, k1) = (seed & 0xffffffff, seed >> 32) and counter (i, 0, 0, 0),
// whose first output word r becomes a float in [0, 1) as in Triton's
// uint_to_uniform_float: v = (int32)r, v = v < 0 ? -v - 1 : v (= ~v),
// u = (float)v * 4.6566127342e-10f (both fp32 roundings, as Triton does).
// The rounds are the same arithmetic as the judge's common/philox.h (checked
// on the CPU by tests/cpu/dropout-philox.sh, with Random123's known answer).
//
// Element i is kept iff u_i > p, and then y_i = x_i * s with
// s = 1.0f / (1.0f - p) computed in fp32, the product taken in fp64 (exact);
// a dropped element is 0.
//
// @launch dropout_ref grid=(cdiv(N, 256)) block=(256) args=(x, y, p, seed, N)

// The high 32 bits of the 64-bit product a * b (the low 32 bits are a * b).
__host__ __device__ inline unsigned int dropout_mulhi(unsigned int a, unsigned int b)
{
#ifdef __CUDA_ARCH__
    return __umulhi(a, b);
#else
    return (unsigned int)(((unsigned long long)a * b) >> 32);
#endif
}

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

__host__ __device__ inline float dropout_uniform(unsigned long long seed, unsigned int idx)
{
    int v = (int)dropout_philox(seed, idx);
    if (v < 0)
        v = ~v; /* -v - 1 without overflow */
    return (float)v * 4.6566127342e-10f;
}

extern "C" __global__ void dropout_ref(const float* x, double* y, float p, unsigned long long seed,
                                       long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float s = 1.0f / (1.0f - p);
        const float u = dropout_uniform(seed, (unsigned int)i);
        y[i] = u > p ? (double)x[i] * (double)s : 0.0;
    }
}
