# Negative control: the partial sums are never combined: the second launch
# stores partial[0], the sum of the first chunk only. Right while N fits in
# one chunk (N <= 16384 with ITERS = 8, 32768 with 16), wrong from the
# ladder's N = 65521 on (the offset data has |sum| ~ sum|x|: half the sum
# missing is far outside the bound). Expected verdict: Wrong Answer.
#
# Written in the directive form (the launch in # @ comment lines instead of a
# solve function: docs/submission-format.md, "Directives in Python"), which
# the judge still takes: this control keeps that form tested. The lines say
# what solution.py's solve launches (whose `partial` holds cdiv(N, BLOCK * 8)
# floats under either config).
#
# @const BLOCK=2048
# @tune ITERS=(8, 16)
# @scratch partial fp32[cdiv(N, BLOCK * ITERS)]
# @launch partial_sums grid=(cdiv(N, BLOCK * ITERS)) num_warps=8 args=(x, partial, N, BLOCK=BLOCK, ITERS=ITERS)
# @launch final_sum grid=(1) num_warps=8 args=(partial, out, cdiv(N, BLOCK * ITERS), BLOCK=8192)
import triton
import triton.language as tl


@triton.jit
def partial_sums(x, partial, N, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    base = pid.to(tl.int64) * (BLOCK * ITERS)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x + offs, mask=offs < N, other=0.0)
    tl.store(partial + pid, tl.sum(acc, axis=0))


@triton.jit
def final_sum(partial, out, P, BLOCK: tl.constexpr):
    tl.store(out, tl.load(partial))  # BUG: the first chunk's sum, not all P of them
