// Negative control: the missing cross-block combine. Every block computes
// its own sum correctly and writes it straight to out[0]; the blocks race
// and the last writer wins, so the answer is one block's sum. Right only
// when a single block covers all of x (N <= 256).
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch vector_sum grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, out, N)

extern "C" __global__ void vector_sum(const float* x, float* out, long long n)
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
        out[0] = s[0];
}
