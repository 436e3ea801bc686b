# L2 vector norm: out[0] = sqrt(x[0]^2 + x[1]^2 + ... + x[N-1]^2).
#
# One plan that works: every program adds up the squares of its BLOCK
# elements with tl.sum and stores one partial sum into the scratch buffer
# `partial`; a second launch, one program, adds the cdiv(N, BLOCK) partials
# and stores the square root of the total to out[0]. out is filled with NaN
# before each run.
#
# @const BLOCK=1024
# @scratch partial fp32[cdiv(N, BLOCK)]
# @launch block_sumsq grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, partial, N, BLOCK=BLOCK)
# @launch final_norm grid=(1) num_warps=4 args=(partial, out, cdiv(N, BLOCK), BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def block_sumsq(x, partial, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64); load x with the mask offsets < N and a neutral other=; store
    # tl.sum(v * v, axis=0) to partial + tl.program_id(0).
    pass


@triton.jit
def final_norm(partial, out, P, BLOCK: tl.constexpr):
    # TODO: add partial[0 .. P-1] (loop over it in steps of BLOCK with
    # `for start in range(0, P, BLOCK)`), then store tl.sqrt_rn(total) to out.
    pass
