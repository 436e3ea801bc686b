# Vector Addition: C[i] = A[i] + B[i] for 0 <= i < N.
#
# The judge calls solve(A, B, C, N) for every test and benchmark shape, with
# the problem's tensors A, B, C (on the GPU) and N, and runs what it
# launches: here cdiv(N, BLOCK) programs of vector_add (tl.program_id(0) =
# 0, 1, ...), each responsible for BLOCK consecutive elements, with 4 warps
# (128 threads) per program. N need not be a multiple of BLOCK: the last
# program has elements past the end of the vectors, which it must neither
# read nor write.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def vector_add(A, B, C, N, BLOCK: tl.constexpr):
    # TODO:
    # 1. this program's offsets: tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    #    (take the program id .to(tl.int64) first, so the product cannot wrap
    #    past 2^31);
    # 2. a mask, offsets < N;
    # 3. load A + offsets and B + offsets with that mask, and store their sum
    #    to C + offsets with the same mask.
    pass


def solve(A, B, C, N):
    grid = (triton.cdiv(N, BLOCK),)
    vector_add[grid](A, B, C, N, BLOCK=BLOCK, num_warps=4)
