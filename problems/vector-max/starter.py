# Vector Max: out[0] = max(x[0], x[1], ..., x[N-1]).
#
# The judge calls solve(x, out, N) for every test and benchmark shape, with
# the problem's tensors x, out (on the GPU) and N, and runs what it launches.
# One plan that works, the one solve below launches: every program of
# block_max finds the maximum of its BLOCK elements with tl.max and stores it
# into `partial` (a buffer solve allocates with torch.empty); a second
# launch, one program of final_max, takes the maximum of the cdiv(N, BLOCK)
# partials and stores out[0]. out is filled with NaN before each run.
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def block_max(x, partial, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64); load x with the mask offsets < N and other= the value a
    # missing element contributes to a maximum (is it 0? the data may be all
    # negative); store tl.max(values, axis=0) to partial + tl.program_id(0).
    pass


@triton.jit
def final_max(partial, out, P, BLOCK: tl.constexpr):
    # TODO: the maximum of partial[0 .. P-1] (loop over it in steps of BLOCK
    # with `for start in range(0, P, BLOCK)`), stored to out.
    pass


def solve(x, out, N):
    blocks = triton.cdiv(N, BLOCK)
    partial = torch.empty(blocks, dtype=torch.float32, device=x.device)
    block_max[(blocks,)](x, partial, N, BLOCK=BLOCK, num_warps=4)
    final_max[(1,)](partial, out, blocks, BLOCK=BLOCK, num_warps=4)
