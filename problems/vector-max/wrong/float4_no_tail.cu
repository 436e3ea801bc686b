// Negative control: a float4 max that forgets the N % 4 floats after the
// last whole float4 (for N < 4 it sees nothing and returns -inf). Wrong
// whenever the maximum sits in those last few elements.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, 4*BLOCK)
// @scratch partial fp32[BLOCKS]
// @launch block_max grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch final_max grid=(1) block=(1024) args=(partial, out, N)

#define NEG_INF __int_as_float(0xff800000)

extern "C" __global__ void block_max(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    float v = NEG_INF;
    if (i < n / 4) {
        const float4 q = reinterpret_cast<const float4*>(x)[i];
        v = fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w));
    }
    s[t] = v;
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
    const long long blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
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
