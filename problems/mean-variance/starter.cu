// Single-pass mean and variance: out[0] = mean of x, out[1] = population
// variance (1/N) * sum (x_i - mean)^2, reading x only once.
//
// The launch below gives every block of BLOCK threads BLOCK elements. Each
// block can summarise its elements as (count, mean, M2 = sum of squared
// deviations from that mean) and write them to scratch (zeroed before every
// run); a second launch, one block, merges the summaries (Chan et al.):
//   n = na + nb, d = mean_b - mean_a,
//   mean = mean_a + d * nb / n,  M2 = M2a + M2b + d^2 * na * nb / n,
// and writes out[0] = mean, out[1] = M2 / N. out is filled with NaN before
// each run. Note: E[x^2] - E[x]^2 in fp32 is not accurate enough.
//
// @const BLOCK=256
// @let BLOCKS = cdiv(N, BLOCK)
// @scratch part_n uint32[BLOCKS]
// @scratch part_mean fp32[BLOCKS]
// @scratch part_m2 fp32[BLOCKS]
// @launch block_stats grid=(BLOCKS) block=(BLOCK) args=(x, part_n, part_mean, part_m2, N)
// @launch final_stats grid=(1) block=(BLOCK) args=(part_n, part_mean, part_m2, out, N)

extern "C" __global__ void block_stats(const float* x, unsigned int* part_n, float* part_mean,
                                       float* part_m2, long long n)
{
    // TODO: summarise this block's elements (those with index < n) as
    // (count, mean, M2) and write them to part_*[blockIdx.x].
}

extern "C" __global__ void final_stats(const unsigned int* part_n, const float* part_mean,
                                       const float* part_m2, float* out, long long n)
{
    // TODO: merge the cdiv(n, BLOCK) summaries; out[0] = mean, out[1] = M2 / n.
}
