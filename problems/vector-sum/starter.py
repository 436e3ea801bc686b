# Vector Sum: out[0] = x[0] + x[1] + ... + x[N-1].
#
# The judge calls solve(x, out, N) for every test and benchmark shape, with
# the problem's tensors x, out (on the GPU) and N, and runs what it launches.
# One plan that works, the one solve below launches: every program of
# block_sums adds up its BLOCK elements with tl.sum and stores one partial
# sum into `partial` (a buffer solve allocates with torch.empty; the judge
# zeroes it before every run); a second launch, one program of final_sum,
# adds the cdiv(N, BLOCK) partials and stores out[0]. Launches run in order,
# so the second sees all of the first's stores. out is filled with NaN
# before each run: it must be written.
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def block_sums(x, partial, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64); load x with the mask offsets < N and other= the value a
    # missing element contributes to a sum; store tl.sum(values, axis=0) to
    # partial + tl.program_id(0).
    pass


@triton.jit
def final_sum(partial, out, P, BLOCK: tl.constexpr):
    # TODO: add partial[0 .. P-1] (P may be larger than BLOCK: loop over it
    # in steps of BLOCK with `for start in range(0, P, BLOCK)`), then store
    # the total to out.
    pass


def solve(x, out, N):
    blocks = triton.cdiv(N, BLOCK)
    partial = torch.empty(blocks, dtype=torch.float32, device=x.device)
    block_sums[(blocks,)](x, partial, N, BLOCK=BLOCK, num_warps=4)
    final_sum[(1,)](partial, out, blocks, BLOCK=BLOCK, num_warps=4)
