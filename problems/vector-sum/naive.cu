// Naive but correct: the starter's plan. Every block of 256 threads sums its
// 256 elements with a shared-memory tree and writes one partial to scratch;
// a second launch (one block of 1024 threads) adds the partials, each thread
// a strided share, then a tree. Four-byte loads, one element per thread.
// Control: must be Accepted.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_sums grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_sum grid=(1) block=(1024) args=(partial, out, N)

extern "C" __global__ void block_sums(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

extern "C" __global__ void final_sum(const float* partial, float* out, long long n)
{
    __shared__ float s[1024];
    const int t = threadIdx.x;
    const long long blocks = (n + BLOCK - 1) / BLOCK;
    float acc = 0.0f;
    for (long long b = t; b < blocks; b += 1024)
        acc += partial[b];
    s[t] = acc;
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];
}
