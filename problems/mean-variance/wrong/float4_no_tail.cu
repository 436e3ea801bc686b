// Negative control: the single-pass solution's structure (Welford/Chan
// summaries of float4 batches, a second launch to merge the blocks) but the
// N % 4 floats after the last whole float4 are never read. For N < 4 there
// is nothing at all (0 / 0 = NaN); otherwise mean and variance miss up to
// three values. Expected verdict: Wrong Answer.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, 4*BLOCK)
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
    sn[t] = 0u;
    sm[t] = 0.0f;
    sq[t] = 0.0f;
    if (i < n / 4) {
        const float4 v = reinterpret_cast<const float4*>(x)[i];
        const float m = ((v.x + v.y) + (v.z + v.w)) * 0.25f;
        sn[t] = 4u;
        sm[t] = m;
        sq[t] = (v.x - m) * (v.x - m) + (v.y - m) * (v.y - m) + (v.z - m) * (v.z - m) +
                (v.w - m) * (v.w - m);
    }
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
    const long long blocks = (n + 4 * BLOCK - 1) / (4 * BLOCK);
    unsigned int cnt = 0;
    float mean = 0.0f, m2 = 0.0f;
    for (long long b = 0; b < blocks; b++)
        merge(cnt, mean, m2, part_n[b], part_mean[b], part_m2[b]);
    out[0] = cnt ? mean : 0.0f / 0.0f;
    out[1] = m2 / (float)cnt;
}
