# Vector Sum in Triton: read x once (4N bytes), write out[0].
#
# Launch 1: each program owns a contiguous chunk of BLOCK * ITERS floats
# (2048 x 8 or 16: 64 or 128 KB; @tune lets the judge keep the faster per
# shape). tl.static_range unrolls the ITERS steps, so the loads of later steps
# do not wait for earlier adds: each step loads BLOCK floats (16-byte loads
# when N is a multiple of 16) and adds them lane by lane into an fp32 vector
# `acc`; masked-off lanes load 0.0, the sum's neutral value. Only at the end
# does tl.sum combine the lanes (in registers, warp shuffles, then across the
# 8 warps), and the program stores its partial sum to scratch.
# Launch 2: one program adds the cdiv(N, BLOCK * ITERS) partials (at most
# 32768 for 2^29: 128 KB, read from L2) the same way and stores out[0]. A
# few microseconds next to the ~250 us of the first.
#
# Accuracy: a float goes through at most ITERS = 16 additions in its lane,
# log2(2048) = 11 in the tree, then 8 + 13 in the final program: 48 fp32
# roundings in the worst case, 48 * 2^-24 * sum|x| = 2.9e-6 sum|x|, under the
# 1e-5 sum|x| allowed for any data.
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
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, P, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial + offs, mask=offs < P, other=0.0)
    tl.store(out, tl.sum(acc, axis=0))
