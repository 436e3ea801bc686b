# Negative control: the square taken after the reduction instead of before
# it: each program stores (sum x)^2 of its chunk instead of sum x^2, and the
# final program takes sqrt of the total. For one element that is still
# |x_0|, the right answer; from the ladder's N = 2 on it is |x_0 + x_1| for
# sqrt(x_0^2 + x_1^2), outside a 1e-5 relative bound unless one of them is
# ~0. The elementwise work (v * v) belongs before tl.sum.
# Expected verdict: Wrong Answer.
import torch
import triton
import triton.language as tl

BLOCK = 2048
FINAL_BLOCK = 8192


@triton.autotune(configs=[triton.Config({'ITERS': 8}, num_warps=8),
                          triton.Config({'ITERS': 16}, num_warps=8)], key=['N'])
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


def solve(x, out, N):
    # room for the most partials: those of the smallest chunk, ITERS = 8
    partial = torch.empty(triton.cdiv(N, BLOCK * 8), dtype=torch.float32, device=x.device)
    programs = 0

    def grid(meta):
        nonlocal programs
        programs = triton.cdiv(N, BLOCK * meta['ITERS'])
        return (programs,)

    partial_sumsq[grid](x, partial, N, BLOCK=BLOCK)
    final_norm[(1,)](partial, out, programs, BLOCK=FINAL_BLOCK, num_warps=8)
