// Negative control: the C habit for "minus infinity". naive.cu, but the
// identity of max is taken as -FLT_MAX (the lowest finite float) instead of
// -inf, for threads past the end and for the running maximum of the partials.
// Right whenever some x_i is finite or +inf (-FLT_MAX <= x_i); when every
// x_i is -inf the answer is -FLT_MAX instead of -inf. Only the "all -inf"
// tests have such a vector; every other test accepts this kernel.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_max grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_max grid=(1) block=(1024) args=(partial, out, N)

#define NEG_INF (-3.402823466e+38f) /* -FLT_MAX: should be -inf */

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
