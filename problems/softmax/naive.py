# Correct but unfused: three launches, each reading X again. 1: the row
# maxima into scratch; 2: the row sums of exp(x - max) into scratch; 3: Y =
# exp(x - max) / sum. Every step is one program per row with the whole row
# in a block, so it is a fair kernel, but X is read three times: about 16MN
# bytes instead of 8MN, at most ~50% of the copy bandwidth under the "fused"
# goal's 8MN model (it asks 70%). Control: must be Accepted.
import torch
import triton
import triton.language as tl


@triton.jit
def row_maxima(X, row_max, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + row * N + cols, mask=cols < N, other=float("-inf"))
    tl.store(row_max + row, tl.max(x, axis=0))


@triton.jit
def row_sums(X, row_max, row_sum, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + row * N + cols, mask=cols < N, other=float("-inf"))
    tl.store(row_sum + row, tl.sum(tl.exp(x - tl.load(row_max + row)), axis=0))


@triton.jit
def normalise(X, row_max, row_sum, Y, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.load(row_max + row))
    tl.store(Y + row * N + cols, e / tl.load(row_sum + row), mask=mask)


def solve(X, Y, M, N):
    row_max = torch.empty(M, dtype=torch.float32, device=X.device)
    row_sum = torch.empty(M, dtype=torch.float32, device=X.device)
    block_n = triton.next_power_of_2(N)
    row_maxima[(M,)](X, row_max, N, BLOCK_N=block_n, num_warps=8)
    row_sums[(M,)](X, row_max, row_sum, N, BLOCK_N=block_n, num_warps=8)
    normalise[(M,)](X, row_max, row_sum, Y, N, BLOCK_N=block_n, num_warps=8)
