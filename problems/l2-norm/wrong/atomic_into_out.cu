// Negative control: block sums of squares are right, but each block
// atomically adds its sum into out[0] (assuming out starts at 0) and the
// last block to finish is supposed to take the square root. out is filled
// with NaN before every run, so every sum is NaN; and without a ticket
// counter "the last block" is not known anyway.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @launch l2_norm grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(x, out, N)

extern "C" __global__ void l2_norm(const float* x, float* out, long long n)
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
    if (t == 0) {
        const float total = atomicAdd(out, s[0]) + s[0];
        if (blockIdx.x == gridDim.x - 1)
            out[0] = sqrtf(total);
    }
}
