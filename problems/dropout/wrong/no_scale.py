# Negative control: dropout without the inverted scaling, y = x where kept.
# The mask is right, but every kept value is off by the factor 1 - p (a
# relative error of 0.5 at p = 0.5, against 2^-22 allowed), from the first
# test with a kept element (p = 0.5, seed 42: element 0 is kept).
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def dropout(x, y, p, seed, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    u = tl.rand(seed, offs.to(tl.uint32))
    tl.store(y + offs, tl.where(u > p, v, 0.0), mask=mask)  # BUG: no * 1 / (1 - p)


def solve(x, y, p, seed, N):
    dropout[(triton.cdiv(N, BLOCK),)](x, y, p, seed, N, BLOCK=BLOCK, num_warps=4)
