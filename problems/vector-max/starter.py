# Vector Max: out[0] = max(x[0], x[1], ..., x[N-1]).
#
# One plan that works: every program finds the maximum of its BLOCK elements
# with tl.max and stores it into the scratch buffer `partial`; a second
# launch, one program, takes the maximum of the cdiv(N, BLOCK) partials and
# stores out[0]. out is filled with NaN before each run.
#
# @const BLOCK=1024
# @scratch partial fp32[cdiv(N, BLOCK)]
# @launch block_max grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, partial, N, BLOCK=BLOCK)
# @launch final_max grid=(1) num_warps=4 args=(partial, out, cdiv(N, BLOCK), BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def block_max(x, partial, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64); load x with the mask offsets < N and other= the value a
    # missing element contributes to a maximum (is it 0? the data may be all
    # negative); store tl.max(values, axis=0) to partial + tl.program_id(0).
    pass


@triton.jit
def final_max(partial, out, P, BLOCK: tl.constexpr):
    # TODO: the maximum of partial[0 .. P-1] (loop over it in steps of BLOCK
    # with `for start in range(0, P, BLOCK)`), stored to out.
    pass
