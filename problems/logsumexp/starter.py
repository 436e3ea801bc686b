# Row-wise LogSumExp: lse[r] = log(sum_j exp(X[r][j])), computed stably as
#   m = max_j X[r][j],  lse[r] = m + log(sum_j exp(X[r][j] - m)).
# A row whose entries are all -inf has lse = -inf.
#
# X is M x N, row-major (row r starts at r * N); lse has M entries. N <= 16384.
# The judge calls solve(X, lse, M, N) for every test and benchmark shape and
# runs what it launches: here one program of 4 warps per row, with BLOCK_N the
# smallest power of two >= N, so that the whole row fits in one block.
import triton
import triton.language as tl


@triton.jit
def logsumexp(X, lse, M, N, BLOCK_N: tl.constexpr):
    # TODO:
    # 1. load row tl.program_id(0) (start at row * N, in int64): columns
    #    tl.arange(0, BLOCK_N) masked to < N, other= a value that cannot win
    #    the maximum and adds nothing to the sum;
    # 2. m = tl.max(x, axis=0), s = tl.sum(tl.exp(x - m), axis=0);
    # 3. store m + tl.log(s) to lse + row. Careful: if m is -inf, x - m is
    #    -inf - (-inf) = NaN.
    pass


def solve(X, lse, M, N):
    logsumexp[(M,)](X, lse, M, N, BLOCK_N=triton.next_power_of_2(N), num_warps=4)
