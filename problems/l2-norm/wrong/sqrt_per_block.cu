// Negative control: the square root taken too early. Each block computes
// the norm of its own 256 elements, sqrt(sum of its squares), and a second
// launch adds those block norms: sum_b sqrt(S_b) instead of sqrt(sum_b S_b).
// Right only when one block covers x (N <= 256); for B blocks of similar
// size it is about sqrt(B) times too large.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_norm grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_sum grid=(1) block=(1024) args=(partial, out, N)

extern "C" __global__ void block_norm(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    const float v = i < n ? x[i] : 0.0f;
    s[t] = v * v;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = sqrtf(s[0]);
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
