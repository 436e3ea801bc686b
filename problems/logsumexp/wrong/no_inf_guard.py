# Negative control: the stable formula without its guard, lse = m + log(sum
# exp(x - m)) with m the row maximum even when m is -inf. Right on every row
# with a finite entry; a row that is entirely -inf gives -inf - (-inf) = NaN
# inside exp, so NaN instead of -inf: the "neginf rows" tests (N = 1..5 with
# half the entries -inf) and "all -inf" catch it.
# Expected verdict: Wrong Answer.
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
    s = tl.sum(tl.exp(x - m[:, None]), axis=1)  # BUG: NaN when m is -inf
    tl.store(lse + rows, m + tl.log(s), mask=row_ok)


def solve(X, lse, M, N):
    block_n = max(16, triton.next_power_of_2(N))
    rows = max(1, TILE // block_n)
    logsumexp[(triton.cdiv(M, rows),)](X, lse, M, N, BLOCK_N=block_n, ROWS=rows)
