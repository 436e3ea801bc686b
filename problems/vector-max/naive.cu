// Naive but correct: the starter's plan. Every block of 256 threads takes
// the maximum of its 256 elements with a shared-memory tree (threads past the
// end contribute -inf, the identity of max) and writes one partial to
// scratch; a second launch (one block of 1024 threads) reduces the partials.
// Control: must be Accepted.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_max grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_max grid=(1) block=(1024) args=(partial, out, N)

#define NEG_INF __int_as_float(0xff800000)

extern "C" __global__ void block_max(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    s[t] = i < n ? x[i] : NEG_INF;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] = fmaxf(s[t], s[t + k]);
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

extern "C" __global__ void final_max(const float* partial, float* out, long long n)
{
    __shared__ float s[1024];
    const int t = threadIdx.x;
    const long long blocks = (n + BLOCK - 1) / BLOCK;
    float m = NEG_INF;
    for (long long b = t; b < blocks; b += 1024)
        m = fmaxf(m, partial[b]);
    s[t] = m;
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k)
            s[t] = fmaxf(s[t], s[t + k]);
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];
}
