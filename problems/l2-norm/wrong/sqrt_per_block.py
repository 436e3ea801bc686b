# Negative control: the square root taken per chunk, then the chunks' norms
# added: sum_b sqrt(S_b) instead of sqrt(sum_b S_b). Right while N fits in
# one chunk (N <= 16384 with ITERS = 8, 32768 with 16); from the ladder's
# N = 65521 on it is too large by about sqrt(number of chunks) (1.4x with 2
# chunks), against a 1e-5 relative bound. Expected verdict: Wrong Answer.
#
# @const BLOCK=2048
# @tune ITERS=(8, 16)
# @scratch partial fp32[cdiv(N, BLOCK * ITERS)]
# @launch partial_sumsq grid=(cdiv(N, BLOCK * ITERS)) num_warps=8 args=(x, partial, N, BLOCK=BLOCK, ITERS=ITERS)
# @launch final_norm grid=(1) num_warps=8 args=(partial, out, cdiv(N, BLOCK * ITERS), BLOCK=8192)
import triton
import triton.language as tl


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
