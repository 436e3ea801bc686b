// Negative control: the classic wrong neutral value. The naive plan, but
// every maximum starts at 0 (and threads past the end contribute 0) instead
// of -inf. Right whenever some x_i > 0; on all-negative data the answer is
// 0 instead of the largest (negative) element.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_max grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_max grid=(1) block=(1024) args=(partial, out, N)

extern "C" __global__ void block_max(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    s[t] = i < n ? x[i] : 0.0f;
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
    float m = 0.0f;
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
