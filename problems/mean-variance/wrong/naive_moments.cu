// Negative control: the one-pass textbook formula var = E[x^2] - E[x]^2 in
// fp32. Block sums of x and x^2 (shared-memory trees) go to scratch, a
// second launch adds them up. Reads x once, but for x = 1e4 + N(0, 1),
// E[x^2] ~ 1e8 is only known to a few units (one fp32 ulp at 1e8 is 8), and
// subtracting E[x]^2 ~ 1e8 leaves rounding noise far larger than var = 1.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch part_s fp32[BLOCKS]
// @scratch part_q fp32[BLOCKS]
// @launch block_moments grid=(BLOCKS) block=(BLOCK) args=(x, part_s, part_q, N)
// @launch final_moments grid=(1) block=(1024) args=(part_s, part_q, out, N)

extern "C" __global__ void block_moments(const float* x, float* part_s, float* part_q, long long n)
{
    __shared__ float s[BLOCK], q[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    const float v = i < n ? x[i] : 0.0f;
    s[t] = v;
    q[t] = v * v;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            q[t] += q[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        part_s[blockIdx.x] = s[0];
        part_q[blockIdx.x] = q[0];
    }
}

extern "C" __global__ void final_moments(const float* part_s, const float* part_q, float* out,
                                         long long n)
{
    __shared__ float s[1024], q[1024];
    const int t = threadIdx.x;
    const long long blocks = (n + BLOCK - 1) / BLOCK;
    float a = 0.0f, b = 0.0f;
    for (long long k = t; k < blocks; k += 1024) {
        a += part_s[k];
        b += part_q[k];
    }
    s[t] = a;
    q[t] = b;
    __syncthreads();
    for (int k = 512; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            q[t] += q[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        const float mean = s[0] / (float)n;
        out[0] = mean;
        out[1] = q[0] / (float)n - mean * mean;
    }
}
