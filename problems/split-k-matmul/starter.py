# Split-K matmul: C = A * B, A: M x K and B: K x N in fp16, C: M x N in fp32,
# all row-major (A[i][k] is A[i * K + k], B[k][j] is B[k * N + j], C[i][j] is
# C[i * N + j]). N and K are multiples of 8. Accumulate in fp32.
#
# The plan below has the usual split-K shape: the first launch gives every
# BM x BN tile of C SPLIT_K programs (grid axis 1), each multiplying its own
# chunk of K and storing its partial tile into slice z of the scratch buffer
# `partial` (SPLIT_K slices of M x N floats, zeroed by the judge before every
# run); the second launch adds the slices into C. C itself is NOT zeroed (it
# is filled with NaN): write every element of it.
#
# Keep SPLIT_K a @const or @tune name (these # @launch directives rather than a
# solve(...) launcher): the learning goal rebuilds your file with SPLIT_K=1
# and compares the times.
#
# @const SPLIT_K=8
# @const BM=32
# @const BN=32
# @scratch partial fp32[SPLIT_K * M * N]
# @launch partial_sums grid=(cdiv(M, BM) * cdiv(N, BN), SPLIT_K) num_warps=4 args=(A, B, partial, M, N, K, BM=BM, BN=BN, BK=32, SPLIT_K=SPLIT_K)
# @launch reduce_splits grid=(cdiv(M * N, 1024)) num_warps=4 args=(partial, C, M * N, BLOCK=1024, SPLIT_K=SPLIT_K)
import triton
import triton.language as tl


@triton.jit
def partial_sums(A, B, partial, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    z = tl.program_id(1)  # this program's chunk of K
    num_n = tl.cdiv(N, BN)
    offs_m = (pid // num_n) * BM + tl.arange(0, BM)
    offs_n = (pid % num_n) * BN + tl.arange(0, BN)
    # TODO: chunk z of K (SPLIT_K chunks in all; the last may be shorter, or
    # empty): accumulate tl.dot of the masked A and B tiles over it in fp32 and
    # store the tile at partial[z * M * N + i * N + j] (masked to C's shape).


@triton.jit
def reduce_splits(partial, C, MN, BLOCK: tl.constexpr, SPLIT_K: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    # TODO: C[offs] = the sum over the SPLIT_K slices of partial[s * MN + offs].
