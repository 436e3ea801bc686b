# Correct but two-pass: the textbook way, in four launches. 1: each program
# adds up its chunk of x into scratch; 2: one program adds the partials and
# stores the mean (scratch `mean`); 3: each program adds up (x - mean)^2 over
# its chunk; 4: one program adds those and stores (mean, M2 / N).
# Subtracting the mean before squaring is what makes it accurate, but it
# reads x twice: 8N bytes instead of 4N, so it cannot reach the single-pass
# speed (at most ~50% of the copy bandwidth under the 4N model; the
# "single-pass" goal asks 80%). Control: must be Accepted.
import torch
import triton
import triton.language as tl

BLOCK = 2048
ITERS = 8


@triton.jit
def chunk_sums(x, partial, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x + offs, mask=offs < N, other=0.0)
    tl.store(partial + pid, tl.sum(acc, axis=0))


@triton.jit
def finish_mean(partial, mean, P, N, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial + offs, mask=offs < P, other=0.0)
    tl.store(mean, tl.sum(acc, axis=0) / tl.cast(N, tl.float32))


@triton.jit
def chunk_sqdev(x, mean, partial, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    mu = tl.load(mean)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        valid = offs < N
        d = tl.where(valid, tl.load(x + offs, mask=valid, other=0.0) - mu, 0.0)
        acc += d * d
    tl.store(partial + pid, tl.sum(acc, axis=0))


@triton.jit
def finish_var(partial, mean, out, P, N, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial + offs, mask=offs < P, other=0.0)
    tl.store(out, tl.load(mean))
    tl.store(out + 1, tl.sum(acc, axis=0) / tl.cast(N, tl.float32))


def solve(x, out, N):
    chunks = triton.cdiv(N, BLOCK * ITERS)
    partial = torch.empty(chunks, dtype=torch.float32, device=x.device)
    mean = torch.empty(1, dtype=torch.float32, device=x.device)
    chunk_sums[(chunks,)](x, partial, N, BLOCK=BLOCK, ITERS=ITERS, num_warps=8)
    finish_mean[(1,)](partial, mean, chunks, N, BLOCK=4096, num_warps=8)
    chunk_sqdev[(chunks,)](x, mean, partial, N, BLOCK=BLOCK, ITERS=ITERS, num_warps=8)
    finish_var[(1,)](partial, mean, out, chunks, N, BLOCK=4096, num_warps=8)
