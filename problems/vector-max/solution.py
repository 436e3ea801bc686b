# Vector Max in Triton: read x once, write out[0].
#
# The vector-sum plan with the maximum: each program keeps a lane-wise
# running maximum over its BLOCK * ITERS floats (tl.static_range unrolls the
# steps so their loads overlap; 16-byte loads when N is a multiple of 16),
# then tl.max combines the lanes and the program stores its maximum to
# `partial`; one program takes the maximum of those. The neutral value of a
# maximum is -inf, not 0: it is both the masked loads' `other=` and the
# accumulator's start, so lanes past the end and empty steps never win, and
# all-negative data gives its own maximum. The result is one of the inputs,
# bit for bit, whatever the order.
#
# solve allocates `partial` (torch.empty) for the most partials, those of
# ITERS = 8, and learns how many the launch makes from its grid function, as
# vector-sum's solution.py explains; final_max reads only those.
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
