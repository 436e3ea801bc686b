# SiLU: y[i] = x[i] * sigmoid(x[i]) = x[i] / (1 + exp(-x[i])) for 0 <= i < N.
#
# The judge calls solve(x, y, N) for every test and benchmark shape, with
# the problem's tensors and values, and runs what it launches: here
# cdiv(N, BLOCK) programs of silu (tl.program_id(0) = 0, 1, ...), each
# responsible for BLOCK consecutive elements, with 4 warps (128 threads) per
# program. N need not be a multiple of BLOCK: the last program has elements
# past the end of the vectors, which it must neither read nor write.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def silu(x, y, N, BLOCK: tl.constexpr):
    # TODO: offsets tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) (program id
    # as int64), a mask offsets < N, a masked load of x, and a masked store of
    # x / (1 + tl.exp(-x)). Which form stays finite when x is +-100?
    pass


def solve(x, y, N):
    silu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
