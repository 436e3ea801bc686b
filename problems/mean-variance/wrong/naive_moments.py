# Negative control: the one-pass textbook formula var = E[x^2] - E[x]^2 in
# fp32. Each program adds up x and x^2 over its chunk (lane-wise, then
# tl.sum), one program adds the partials. It reads x once, but for
# x = 1e4 + N(0, 1), E[x^2] ~ 1e8 is only known to a few units (an fp32 ulp
# at 1e8 is 8) and subtracting E[x]^2 ~ 1e8 leaves rounding noise far larger
# than var = 1, against 0.01 allowed. Expected verdict: Wrong Answer.
import torch
import triton
import triton.language as tl

BLOCK = 2048
# ITERS steps of BLOCK elements per program, 8 warps: autotuned
CONFIGS = [triton.Config({'ITERS': 8}, num_warps=8), triton.Config({'ITERS': 16}, num_warps=8)]


@triton.autotune(configs=CONFIGS, key=['N'])
@triton.jit
def partial_moments(x, part_s, part_q, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    q = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x + offs, mask=offs < N, other=0.0)
        s += v
        q += v * v
    tl.store(part_s + pid, tl.sum(s, axis=0))
    tl.store(part_q + pid, tl.sum(q, axis=0))


@triton.jit
def final_moments(part_s, part_q, out, P, N, BLOCK: tl.constexpr):
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    q = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        s += tl.load(part_s + offs, mask=offs < P, other=0.0)
        q += tl.load(part_q + offs, mask=offs < P, other=0.0)
    n = tl.cast(N, tl.float32)
    mean = tl.sum(s, axis=0) / n
    tl.store(out, mean)
    tl.store(out + 1, tl.sum(q, axis=0) / n - mean * mean)  # BUG: cancels in fp32


def solve(x, out, N):
    most = max(triton.cdiv(N, BLOCK * c.kwargs['ITERS']) for c in CONFIGS)
    part_s = torch.empty(most, dtype=torch.float32, device=x.device)
    part_q = torch.empty(most, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(N, BLOCK * meta['ITERS']),)
    partial_moments[grid](x, part_s, part_q, N, BLOCK=BLOCK)
    chunks = triton.cdiv(N, BLOCK * partial_moments.best_config.kwargs['ITERS'])
    final_moments[(1,)](part_s, part_q, out, chunks, N, BLOCK=4096, num_warps=8)
