# Negative control: sigmoid written as e^x / (1 + e^x). For x above ~88.7,
# e^x overflows to +inf and y = x * (inf / inf) = NaN, where the answer is
# about x. U(-50, 50) (the ladder) never gets there: it passes. The
# "uniform120" tests (U(-120, 120): 13% of the elements are above 88.7, so
# N = 33 is all but certain to have one) and the "edges" tests (x = 100 in
# 5% of the elements) catch it. Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def silu(x, y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    e = tl.exp(v)
    tl.store(y + offs, v * (e / (1.0 + e)), mask=mask)  # BUG: inf / inf for x > 88.7


def solve(x, y, N):
    silu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
