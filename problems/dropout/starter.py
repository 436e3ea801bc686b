# Dropout with inverted scaling:
#   y[i] = x[i] * (1 / (1 - p))   if u_i > p      (kept)
#   y[i] = 0                      otherwise        (dropped)
# where u_i is exactly tl.rand(seed, i): the judge's u_i is defined as
# Triton's Philox4x32-10 generator with counter i, so tl.rand is the
# reference generator here.
#
# The judge launches dropout as the @launch line below says: cdiv(N, BLOCK)
# programs, each responsible for BLOCK consecutive elements, with 4 warps per
# program. N need not be a multiple of BLOCK.
#
# @const BLOCK=1024
# @launch dropout grid=(cdiv(N, BLOCK)) num_warps=4 args=(x, y, p, seed, N, BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def dropout(x, y, p, seed, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64) and a mask offsets < N; u = tl.rand(seed, offsets.to(tl.uint32))
    # (each element's own index, as a 32-bit counter); a masked load of x; store
    # tl.where(u > p, x * (1 / (1 - p)), 0.0) with the mask, the dropped
    # elements included.
    pass
