# Negative control: every program adds its partial sum straight into out with
# tl.atomic_add, in one launch. But out is not zeroed: the judge fills it
# with NaN before every run (only @scratch buffers start at zero), and
# NaN + x = NaN. Wrong on every test. Expected verdict: Wrong Answer.
#
# @const BLOCK=2048
# @tune ITERS=(8, 16)
# @launch partial_sums grid=(cdiv(N, BLOCK * ITERS)) num_warps=8 args=(x, out, N, BLOCK=BLOCK, ITERS=ITERS)
import triton
import triton.language as tl


@triton.jit
def partial_sums(x, out, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x + offs, mask=offs < N, other=0.0)
    tl.atomic_add(out, tl.sum(acc, axis=0))  # BUG: out starts as NaN, not 0
