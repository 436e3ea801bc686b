# Negative control: the square taken after the reduction instead of before
# it: each program stores (sum x)^2 of its chunk instead of sum x^2, and the
# final program takes sqrt of the total. For one element that is still
# |x_0|, the right answer; from the ladder's N = 2 on it is |x_0 + x_1| for
# sqrt(x_0^2 + x_1^2), outside a 1e-5 relative bound unless one of them is
# ~0. The elementwise work (v * v) belongs before tl.sum.
# Expected verdict: Wrong Answer.
#
# @const BLOCK=2048
# @tune ITERS=(8, 16)
# @scratch partial fp32[cdiv(N, BLOCK * ITERS)]
# @launch partial_sumsq grid=(cdiv(N, BLOCK * ITERS)) num_warps=8 args=(x, partial, N, BLOCK=BLOCK, ITERS=ITERS)
# @launch final_norm grid=(1) num_warps=8 args=(partial, out, cdiv(N, BLOCK * ITERS), BLOCK=8192)
import triton
import triton.language as tl


@triton.jit
def partial_sumsq(x, partial, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x + offs, mask=offs < N, other=0.0)
        acc += v  # BUG: x, not x * x ...
    s = tl.sum(acc, axis=0)
    tl.store(partial + pid, s * s)  # ... squared after the sum


@triton.jit
def final_norm(partial, out, P, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial + offs, mask=offs < P, other=0.0)
    tl.store(out, tl.sqrt_rn(tl.sum(acc, axis=0)))
