# Vector Sum: out[0] = x[0] + x[1] + ... + x[N-1].
#
# One plan that works: every program adds up its BLOCK elements with tl.sum
# and stores one partial sum into the scratch buffer `partial` (zeroed before
# every run); a second launch, one program, adds the cdiv(N, BLOCK) partials
# and stores out[0]. Launches run in order, so the second sees all of the
# first's stores. out is filled with NaN before each run: it must be written.
#
# @const BLOCK=1024
# @scratch partial fp32[cdiv(N, BLOCK)]
# @launch block_sums grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, partial, N, BLOCK=BLOCK)
# @launch final_sum grid=(1) num_warps=4 args=(partial, out, cdiv(N, BLOCK), BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def block_sums(x, partial, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64); load x with the mask offsets < N and other= the value a
    # missing element contributes to a sum; store tl.sum(values, axis=0) to
    # partial + tl.program_id(0).
    pass


@triton.jit
def final_sum(partial, out, P, BLOCK: tl.constexpr):
    # TODO: add partial[0 .. P-1] (P may be larger than BLOCK: loop over it
    # in steps of BLOCK with `for start in range(0, P, BLOCK)`), then store
    # the total to out.
    pass
