# Single-pass mean and variance: out[0] = mean of x, out[1] = population
# variance (1/N) * sum (x_i - mean)^2, reading x only once.
#
# The launch below gives every program BLOCK elements. Each program can
# summarise its elements as (count, mean, M2 = sum of squared deviations from
# that mean) and store them to scratch (zeroed before every run); a second
# launch, one program, merges the summaries (Chan et al.):
#   n = na + nb, d = mean_b - mean_a,
#   mean = mean_a + d * nb / n,  M2 = M2a + M2b + d^2 * na * nb / n,
# and stores out[0] = mean, out[1] = M2 / N. out is filled with NaN before
# each run. Note: E[x^2] - E[x]^2 in fp32 is not accurate enough.
#
# @const BLOCK=1024
# @scratch part_n int32[cdiv(N, BLOCK)]
# @scratch part_mean fp32[cdiv(N, BLOCK)]
# @scratch part_m2 fp32[cdiv(N, BLOCK)]
# @launch block_stats grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, part_n, part_mean, part_m2, N, BLOCK=BLOCK)
# @launch final_stats grid=(1) num_warps=4 args=(part_n, part_mean, part_m2, out, cdiv(N, BLOCK), BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def block_stats(x, part_n, part_mean, part_m2, N, BLOCK: tl.constexpr):
    # TODO: load this program's elements (mask offsets < N); count the valid
    # ones, take their mean (tl.sum / count), then M2 = the tl.sum of
    # (x - mean)^2 over the valid elements only (tl.where: a masked-off lane
    # is not a 0 in the data); store the three to part_*[tl.program_id(0)].
    pass


@triton.jit
def final_stats(part_n, part_mean, part_m2, out, P, BLOCK: tl.constexpr):
    # TODO: merge the P summaries (loop over them in steps of BLOCK; within a
    # block, tl.reduce((n, mean, m2), 0, combine_fn) applies a merge function
    # of yours, decorated @triton.jit, pairwise); store out[0] = mean and
    # out[1] = M2 / N.
    pass
