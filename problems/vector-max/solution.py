# Vector Max in Triton: read x once, write out[0].
#
# The vector-sum plan with the maximum: each program keeps a lane-wise
# running maximum over its BLOCK * ITERS floats (tl.static_range unrolls the
# steps so their loads overlap; 16-byte loads when N is a multiple of 16),
# then tl.max combines the lanes and the program stores its maximum to
# scratch; one program takes the maximum of those. The neutral value of a
# maximum is -inf, not 0: it is both the masked loads' `other=` and the
# accumulator's start, so lanes past the end and empty steps never win, and
# all-negative data gives its own maximum. The result is one of the inputs,
# bit for bit, whatever the order.
#
# @const BLOCK=2048
# @tune ITERS=(8, 16)
# @scratch partial fp32[cdiv(N, BLOCK * ITERS)]
# @launch partial_max grid=(cdiv(N, BLOCK * ITERS)) num_warps=8 args=(x, partial, N, BLOCK=BLOCK, ITERS=ITERS)
# @launch final_max grid=(1) num_warps=8 args=(partial, out, cdiv(N, BLOCK * ITERS), BLOCK=8192)
import triton
import triton.language as tl


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
