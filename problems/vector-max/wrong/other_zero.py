# Negative control: the masked loads fill missing elements with 0.0 (the
# sum's neutral value, or what a load without other= gives), not -inf. Every
# lane past the end of x then offers 0 to the maximum: wrong whenever the
# maximum is negative and N is not a multiple of the chunk, e.g. the first
# "negative" test (N = 1, x ~ N(-1000, 10)) gives 0.
# Expected verdict: Wrong Answer.
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
    acc = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(x + offs, mask=offs < N, other=0.0))  # BUG: other=0
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
