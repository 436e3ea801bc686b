# Dropout with inverted scaling:
#   y[i] = x[i] * (1 / (1 - p))   if u_i > p      (kept)
#   y[i] = 0                      otherwise        (dropped)
# where u_i is exactly tl.rand(seed, i): the judge's u_i is defined as
# Triton's Philox4x32-10 generator with counter i, so tl.rand is the
# reference generator here.
#
# The judge calls solve(x, y, p, seed, N) for every test and benchmark
# shape, with the problem's tensors and values, and runs what it launches:
# here cdiv(N, BLOCK) programs of dropout (tl.program_id(0) = 0, 1, ...),
# each responsible for BLOCK consecutive elements, with 4 warps (128 threads)
# per program. N need not be a multiple of BLOCK: the last program has
# elements past the end of the vectors, which it must neither read nor write.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def dropout(x, y, p, seed, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64) and a mask offsets < N; u = tl.rand(seed, offsets.to(tl.uint32))
    # (each element's own index, as a 32-bit counter); a masked load of x; store
    # tl.where(u > p, x * (1 / (1 - p)), 0.0) with the mask, the dropped
    # elements included.
    pass


def solve(x, y, p, seed, N):
    dropout[(triton.cdiv(N, BLOCK),)](x, y, p, seed, N, BLOCK=BLOCK, num_warps=4)
