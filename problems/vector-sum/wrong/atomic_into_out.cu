// Negative control: block sums are right, and each block atomically adds
// its sum into out[0], assuming out starts at zero (as torch.zeros would
// give). The judge fills out with NaN before every run, and NaN + anything
// is NaN. (Accumulate in a zeroed @scratch buffer instead.)
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
        atomicAdd(out, s[0]);
}
