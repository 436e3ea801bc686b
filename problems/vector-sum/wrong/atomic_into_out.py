# Negative control: every program adds its partial sum straight into out with
# tl.atomic_add, in one launch. But out is not zeroed: the judge fills it
# with NaN before every run (only the buffers solve allocates start at
# zero), and NaN + x = NaN. Wrong on every test. Expected verdict: Wrong
# Answer.
import triton
import triton.language as tl

BLOCK = 2048


@triton.autotune(configs=[triton.Config({'ITERS': 8}, num_warps=8),
                          triton.Config({'ITERS': 16}, num_warps=8)], key=['N'])
@triton.jit
def partial_sums(x, out, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x + offs, mask=offs < N, other=0.0)
    tl.atomic_add(out, tl.sum(acc, axis=0))  # BUG: out starts as NaN, not 0


def solve(x, out, N):
    grid = lambda meta: (triton.cdiv(N, BLOCK * meta['ITERS']),)
    partial_sums[grid](x, out, N, BLOCK=BLOCK)
