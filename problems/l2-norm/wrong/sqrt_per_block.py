# Negative control: the square root taken per chunk, then the chunks' norms
# added: sum_b sqrt(S_b) instead of sqrt(sum_b S_b). Right while N fits in
# one chunk (N <= 16384 with ITERS = 8, 32768 with 16); from the ladder's
# N = 65521 on it is too large by about sqrt(number of chunks) (1.4x with 2
# chunks), against a 1e-5 relative bound. Expected verdict: Wrong Answer.
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
        acc += v * v
    tl.store(partial + pid, tl.sqrt_rn(tl.sum(acc, axis=0)))  # BUG: sqrt per chunk


@triton.jit
def final_norm(partial, out, P, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial + offs, mask=offs < P, other=0.0)
    tl.store(out, tl.sum(acc, axis=0))  # (and no sqrt of the total)


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
