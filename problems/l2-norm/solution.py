# L2 vector norm in Triton: read x once, one square root at the end.
#
# The vector-sum plan on x * x (fused into one fma per element): each program
# keeps lane-wise fp32 sums of squares over its BLOCK * ITERS floats
# (tl.static_range unrolls the steps so their loads overlap; 16-byte loads
# when N is a multiple of 16; masked lanes load 0, which adds 0), tl.sum
# combines the lanes, the program stores its partial; one program adds the
# partials and stores sqrt_rn(total) (the IEEE square root; tl.sqrt is the
# approximate one). The square root is taken once, of the whole sum: a norm
# is not the sum of the chunks' norms.
#
# Every term is >= 0, so there is no cancellation: at most 74 fp32 roundings
# between a square and the total bound its relative error by 74 * 2^-24 =
# 4.4e-6, halved by the square root, under the 1e-5 allowed. |x| <= 1e4
# keeps sum x^2 below 3e16, far from fp32 overflow.
#
# solve allocates `partial` (torch.empty) for the most partials, those of
# ITERS = 8, and learns how many the launch makes from its grid function, as
# vector-sum's solution.py explains; final_norm reads only those.
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
    tl.store(partial + pid, tl.sum(acc, axis=0))


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
