// Negative control: a float4 reduction that forgets the N % 4 floats after
// the last whole float4 (for N < 4 the norm comes out 0).
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, 4*BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_sumsq grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_norm grid=(1) block=(1024) args=(partial, out, N)

extern "C" __global__ void block_sumsq(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    float v = 0.0f;
    if (i < n / 4) {
        const float4 q = reinterpret_cast<const float4*>(x)[i];
        v = (q.x * q.x + q.y * q.y) + (q.z * q.z + q.w * q.w);
    }
    s[t] = v;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

extern "C" __global__ void final_norm(const float* partial, float* out, long long n)
{
    __shared__ float s[1024];
    const int t = threadIdx.x;
    const long long blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
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
        out[0] = sqrtf(s[0]);
}
