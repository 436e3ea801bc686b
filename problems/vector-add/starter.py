# Vector Addition: C[i] = A[i] + B[i] for 0 <= i < N.
#
# The judge launches vector_add as the @launch line below says: cdiv(N, BLOCK)
# programs (tl.program_id(0) = 0, 1, ...), each responsible for BLOCK
# consecutive elements, with 4 warps (128 threads) per program. N need not be
# a multiple of BLOCK: the last program has elements past the end of the
# vectors, which it must neither read nor write.
#
# @const BLOCK=1024
# @launch vector_add grid=(cdiv(N, BLOCK)) num_warps=4 args=(A, B, C, N, BLOCK=BLOCK)
import triton
import triton.language as tl


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
