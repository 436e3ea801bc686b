// Correct but two-pass: the textbook way. Launch 1 sums each block's 256
// elements (shared-memory tree) into scratch; launch 2 (one block) adds them
// and stores the mean; launch 3 sums each block's squared deviations from
// that mean; launch 4 adds those and writes (mean, M2 / N). Subtracting the
// mean before squaring is what makes it accurate, but it reads x twice:
// 8N bytes instead of 4N, so it cannot reach the single-pass speed.
// Control: must be Accepted.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch partial fp32[BLOCKS]
// @scratch mean fp32[1]
// @launch block_sums grid=(BLOCKS) block=(BLOCK) args=(x, partial, N)
// @launch finish_mean grid=(1) block=(1024) args=(partial, mean, N)
// @launch block_sqdev grid=(BLOCKS) block=(BLOCK) args=(x, mean, partial, N)
// @launch finish_var grid=(1) block=(1024) args=(partial, mean, out, N)

__device__ float block_total(float v, float* s)
{
    const int t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    return s[0];
}

extern "C" __global__ void block_sums(const float* x, float* partial, long long n)
{
    __shared__ float s[BLOCK];
    const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const float total = block_total(i < n ? x[i] : 0.0f, s);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}

extern "C" __global__ void finish_mean(const float* partial, float* mean, long long n)
{
    __shared__ float s[1024];
    const long long blocks = (n + BLOCK - 1) / BLOCK;
    float acc = 0.0f;
    for (long long b = threadIdx.x; b < blocks; b += 1024)
        acc += partial[b];
    const float total = block_total(acc, s);
    if (threadIdx.x == 0)
        mean[0] = total / (float)n;
}

extern "C" __global__ void block_sqdev(const float* x, const float* mean, float* partial,
                                       long long n)
{
    __shared__ float s[BLOCK];
    const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    const float d = i < n ? x[i] - mean[0] : 0.0f;
    const float total = block_total(d * d, s);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}

extern "C" __global__ void finish_var(const float* partial, const float* mean, float* out,
                                      long long n)
{
    __shared__ float s[1024];
    const long long blocks = (n + BLOCK - 1) / BLOCK;
    float acc = 0.0f;
    for (long long b = threadIdx.x; b < blocks; b += 1024)
        acc += partial[b];
    const float total = block_total(acc, s);
    if (threadIdx.x == 0) {
        out[0] = mean[0];
        out[1] = total / (float)n;
    }
}
