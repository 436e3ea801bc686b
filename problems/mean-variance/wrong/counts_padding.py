# Negative control: the masked-off lanes counted as data. A masked load's
# other=0.0 is a fine neutral value for a sum, but a mean has none: here
# every lane takes all ITERS steps into its Welford summary, the padding past
# the end included (0.0, i.e. -x_0 after the shift), so the count is a whole
# chunk and the mean is pulled towards 0. Right only when N is a multiple of
# the chunk (16384 or 32768); the first test, N = 1, gives mean x_0 / 16384
# (x_0 / 32768 with ITERS = 16). Expected verdict: Wrong Answer.
import torch
import triton
import triton.language as tl

BLOCK = 2048
# ITERS steps of BLOCK elements per program, 8 warps: autotuned
CONFIGS = [triton.Config({'ITERS': 8}, num_warps=8), triton.Config({'ITERS': 16}, num_warps=8)]


@triton.jit
def chan_merge(n_a, mean_a, m2_a, n_b, mean_b, m2_b):
    # (count, mean, M2) of the union of two sets (Chan, Golub, LeVeque); an
    # empty side (count 0) leaves the other unchanged.
    n = n_a + n_b
    w_b = tl.where(n > 0, n_b.to(tl.float32) / tl.maximum(n, 1).to(tl.float32), 0.0)
    d = mean_b - mean_a
    mean = mean_a + d * w_b
    m2 = m2_a + m2_b + d * d * n_a.to(tl.float32) * w_b
    return n, mean, m2


@triton.autotune(configs=CONFIGS, key=['N'])
@triton.jit
def partial_stats(x, part_n, part_mean, part_m2, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    x0 = tl.load(x)
    cnt = tl.zeros((BLOCK,), dtype=tl.int32)
    mean = tl.zeros((BLOCK,), dtype=tl.float32)
    m2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        valid = offs < N
        v = tl.load(x + offs, mask=valid, other=0.0) - x0
        d = v - mean
        new_mean = mean + d * (1.0 / (i + 1))
        m2 = m2 + d * (v - new_mean)  # BUG: the padding taken as data ...
        mean = new_mean
        cnt += 1  # ... and counted
    n, mu, q = tl.reduce((cnt, mean, m2), 0, chan_merge)
    tl.store(part_n + pid, n)
    tl.store(part_mean + pid, mu)
    tl.store(part_m2 + pid, q)


@triton.jit
def final_stats(x, part_n, part_mean, part_m2, out, P, BLOCK: tl.constexpr):
    n = tl.zeros((BLOCK,), dtype=tl.int32)
    mean = tl.zeros((BLOCK,), dtype=tl.float32)
    m2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        valid = offs < P
        n_b = tl.load(part_n + offs, mask=valid, other=0)
        mean_b = tl.load(part_mean + offs, mask=valid, other=0.0)
        m2_b = tl.load(part_m2 + offs, mask=valid, other=0.0)
        n, mean, m2 = chan_merge(n, mean, m2, n_b, mean_b, m2_b)
    n_all, mu, q = tl.reduce((n, mean, m2), 0, chan_merge)
    tl.store(out, tl.load(x) + mu)
    tl.store(out + 1, q / n_all.to(tl.float32))


def solve(x, out, N):
    # A (count, mean, M2) summary per chunk of BLOCK * ITERS elements. The buffers
    # exist before the autotuned launch picks ITERS: room for the most chunks a
    # config makes (ITERS = 8); final_stats takes the count of the config that ran.
    most = max(triton.cdiv(N, BLOCK * c.kwargs['ITERS']) for c in CONFIGS)
    part_n = torch.empty(most, dtype=torch.int32, device=x.device)
    part_mean = torch.empty(most, dtype=torch.float32, device=x.device)
    part_m2 = torch.empty(most, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(N, BLOCK * meta['ITERS']),)
    partial_stats[grid](x, part_n, part_mean, part_m2, N, BLOCK=BLOCK)
    chunks = triton.cdiv(N, BLOCK * partial_stats.best_config.kwargs['ITERS'])
    final_stats[(1,)](x, part_n, part_mean, part_m2, out, chunks, BLOCK=4096, num_warps=8)
