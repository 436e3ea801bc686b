# Single-pass mean and variance: out[0] = mean of x, out[1] = population
# variance (1/N) * sum (x_i - mean)^2, reading x only once.
#
# The judge calls solve(x, out, N) for every test and benchmark shape and runs
# what it launches: below, every program of the first launch gets BLOCK
# elements. Each program can summarise its elements as (count, mean, M2 = sum
# of squared deviations from that mean) and store them to the scratch buffers
# solve makes (zeroed before every run); a second launch, one program, merges
# the summaries (Chan et al.):
#   n = na + nb, d = mean_b - mean_a,
#   mean = mean_a + d * nb / n,  M2 = M2a + M2b + d^2 * na * nb / n,
# and stores out[0] = mean, out[1] = M2 / N. out is filled with NaN before
# each run. Note: E[x^2] - E[x]^2 in fp32 is not accurate enough.
import torch
import triton
import triton.language as tl

BLOCK = 1024


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


def solve(x, out, N):
    blocks = triton.cdiv(N, BLOCK)
    part_n = torch.zeros(blocks, dtype=torch.int32, device=x.device)
    part_mean = torch.zeros(blocks, dtype=torch.float32, device=x.device)
    part_m2 = torch.zeros(blocks, dtype=torch.float32, device=x.device)
    block_stats[(blocks,)](x, part_n, part_mean, part_m2, N, BLOCK=BLOCK, num_warps=4)
    final_stats[(1,)](part_n, part_mean, part_m2, out, blocks, BLOCK=BLOCK, num_warps=4)
