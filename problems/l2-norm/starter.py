# L2 vector norm: out[0] = sqrt(x[0]^2 + x[1]^2 + ... + x[N-1]^2).
#
# The judge calls solve(x, out, N) for every test and benchmark shape, with
# the problem's tensors x, out (on the GPU) and N, and runs what it launches.
# One plan that works, the one solve below launches: every program of
# block_sumsq adds up the squares of its BLOCK elements with tl.sum and
# stores one partial sum into `partial` (a buffer solve allocates with
# torch.empty); a second launch, one program of final_norm, adds the
# cdiv(N, BLOCK) partials and stores the square root of the total to out[0].
# out is filled with NaN before each run.
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def block_sumsq(x, partial, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64); load x with the mask offsets < N and a neutral other=; store
    # tl.sum(v * v, axis=0) to partial + tl.program_id(0).
    pass


@triton.jit
def final_norm(partial, out, P, BLOCK: tl.constexpr):
    # TODO: add partial[0 .. P-1] (loop over it in steps of BLOCK with
    # `for start in range(0, P, BLOCK)`), then store tl.sqrt_rn(total) to out.
    pass


def solve(x, out, N):
    blocks = triton.cdiv(N, BLOCK)
    partial = torch.empty(blocks, dtype=torch.float32, device=x.device)
    block_sumsq[(blocks,)](x, partial, N, BLOCK=BLOCK, num_warps=4)
    final_norm[(1,)](partial, out, blocks, BLOCK=BLOCK, num_warps=4)
