# Negative control: a maximum started from a non-neutral value, acc =
# tl.zeros(...) in the first launch. The loads' other=-inf is right, but 0 is
# already in every lane: any vector whose maximum is negative gives 0, from
# the ladder's first all-negative case (U(-1000, 1000): N = 1 or 2 almost
# surely) and every "negative" test. Expected verdict: Wrong Answer.
import torch
import triton
import triton.language as tl

BLOCK = 2048
FINAL_BLOCK = 8192


@triton.autotune(configs=[triton.Config({'ITERS': 8}, num_warps=8),
                          triton.Config({'ITERS': 16}, num_warps=8)], key=['N'])
@triton.jit
def partial_max(x, partial, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)  # BUG: a maximum starts at -inf, not 0
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(x + offs, mask=offs < N, other=float("-inf")))
    tl.store(partial + pid, tl.max(acc, axis=0))


@triton.jit
def final_max(partial, out, P, BLOCK: tl.constexpr):
    acc = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(partial + offs, mask=offs < P, other=float("-inf")))
    tl.store(out, tl.max(acc, axis=0))


def solve(x, out, N):
    # room for the most partials: those of the smallest chunk, ITERS = 8
    partial = torch.empty(triton.cdiv(N, BLOCK * 8), dtype=torch.float32, device=x.device)
    programs = 0

    def grid(meta):
        nonlocal programs
        programs = triton.cdiv(N, BLOCK * meta['ITERS'])
        return (programs,)

    partial_max[grid](x, partial, N, BLOCK=BLOCK)
    final_max[(1,)](partial, out, programs, BLOCK=FINAL_BLOCK, num_warps=8)
