# Row-wise LogSumExp in Triton: X read once (4MN bytes), 4M written.
#
# The softmax kernel's layout: a program holds ROWS whole rows of BLOCK_N
# lanes (BLOCK_N the smallest power of two >= N, at least 16; ROWS enough for
# about TILE = 4096 elements), loaded once with -inf in the padding lanes
# (16-byte loads when N is a multiple of 16). Per row: m = max, s = sum of
# exp(x - shift), lse = shift + log(s). The shift is m, except for a row that
# is entirely -inf, where it is 0: then every exp(-inf - 0) is 0, log(0) is
# -inf, and the row gets -inf as torch.logsumexp gives, where x - m would
# have been -inf - (-inf) = NaN. num_warps is autotuned (8 or 16): the judge
# checks and times both configs and keeps the faster per shape.
#
# The judge calls solve(X, lse, M, N) for every test and benchmark shape,
# with the problem's tensors, and runs what it launches
# (docs/submission-format.md).
import triton
import triton.language as tl

TILE = 4096


@triton.autotune(configs=[triton.Config({}, num_warps=8), triton.Config({}, num_warps=16)],
                 key=['M', 'N'])
@triton.jit
def logsumexp(X, lse, M, N, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    row_ok = rows < M
    mask = row_ok[:, None] & (cols < N)[None, :]
    x = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=float("-inf"))
    m = tl.max(x, axis=1)
    shift = tl.where(m == float("-inf"), 0.0, m)
    s = tl.sum(tl.exp(x - shift[:, None]), axis=1)
    tl.store(lse + rows, shift + tl.log(s), mask=row_ok)


def solve(X, lse, M, N):
    block_n = max(16, triton.next_power_of_2(N))
    rows = max(1, TILE // block_n)
    logsumexp[(triton.cdiv(M, rows),)](X, lse, M, N, BLOCK_N=block_n, ROWS=rows)
