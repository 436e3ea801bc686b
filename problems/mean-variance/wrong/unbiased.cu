// Negative control: the sample variance M2 / (N - 1) (torch.var's default,
// correction = 1) instead of the population variance M2 / N asked for.
// Otherwise a correct single-pass Welford/Chan kernel: one summary per block
// of 256 elements, merged by a second launch. N = 1 gives 0 / 0 = NaN; for
// small N the factor N / (N - 1) is far outside the 1e-4 relative tolerance.
// Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch part_n uint32[BLOCKS]
// @scratch part_mean fp32[BLOCKS]
// @scratch part_m2 fp32[BLOCKS]
// @launch block_stats grid=(BLOCKS) block=(BLOCK) args=(x, part_n, part_mean, part_m2, N)
// @launch final_stats grid=(1) block=(1) args=(part_n, part_mean, part_m2, out, N)

__device__ void merge(unsigned int& na, float& ma, float& qa, unsigned int nb, float mb, float qb)
{
    if (nb == 0)
        return;
    const unsigned int n = na + nb;
    const float w = (float)nb / (float)n;
    const float d = mb - ma;
    ma += d * w;
    qa += qb + d * d * (float)na * w;
    na = n;
}

extern "C" __global__ void block_stats(const float* x, unsigned int* part_n, float* part_mean,
                                       float* part_m2, long long n)
{
    __shared__ unsigned int sn[BLOCK];
    __shared__ float sm[BLOCK], sq[BLOCK];
    const int t = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + t;
    sn[t] = i < n ? 1u : 0u;
    sm[t] = i < n ? x[i] : 0.0f;
    sq[t] = 0.0f;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k)
            merge(sn[t], sm[t], sq[t], sn[t + k], sm[t + k], sq[t + k]);
        __syncthreads();
    }
    if (t == 0) {
        part_n[blockIdx.x] = sn[0];
        part_mean[blockIdx.x] = sm[0];
        part_m2[blockIdx.x] = sq[0];
    }
}

extern "C" __global__ void final_stats(const unsigned int* part_n, const float* part_mean,
                                       const float* part_m2, float* out, long long n)
{
    const long long blocks = (n + BLOCK - 1) / BLOCK;
    unsigned int cnt = 0;
    float mean = 0.0f, m2 = 0.0f;
    for (long long b = 0; b < blocks; b++)
        merge(cnt, mean, m2, part_n[b], part_mean[b], part_m2[b]);
    out[0] = mean;
    out[1] = m2 / (float)(n - 1);
}
