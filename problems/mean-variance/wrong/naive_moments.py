# Negative control: the one-pass textbook formula var = E[x^2] - E[x]^2 in
# fp32. Each program adds up x and x^2 over its chunk (lane-wise, then
# tl.sum), one program adds the partials. It reads x once, but for
# x = 1e4 + N(0, 1), E[x^2] ~ 1e8 is only known to a few units (an fp32 ulp
# at 1e8 is 8) and subtracting E[x]^2 ~ 1e8 leaves rounding noise far larger
# than var = 1, against 0.01 allowed. Expected verdict: Wrong Answer.
#
# @const BLOCK=2048
# @tune ITERS=(8, 16)
# @scratch part_s fp32[cdiv(N, BLOCK * ITERS)]
# @scratch part_q fp32[cdiv(N, BLOCK * ITERS)]
# @launch partial_moments grid=(cdiv(N, BLOCK * ITERS)) num_warps=8 args=(x, part_s, part_q, N, BLOCK=BLOCK, ITERS=ITERS)
# @launch final_moments grid=(1) num_warps=8 args=(part_s, part_q, out, cdiv(N, BLOCK * ITERS), N, BLOCK=4096)
import triton
import triton.language as tl


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
