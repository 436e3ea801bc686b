# Negative control: the masked loads fill the padding lanes with 0.0 instead
# of -inf. Each of the BLOCK_N - N padding lanes then counts as an entry
# e^0 = 1, whatever the shift: lse = log(sum exp(x) + BLOCK_N - N). Right
# only when N is a power of two of at least 16; the first test, (1, 1),
# gives log(exp(x) + 15) instead of x. Expected verdict: Wrong Answer.
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
    x = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)  # BUG: not -inf
    m = tl.max(x, axis=1)
    shift = tl.where(m == float("-inf"), 0.0, m)
    s = tl.sum(tl.exp(x - shift[:, None]), axis=1)
    tl.store(lse + rows, shift + tl.log(s), mask=row_ok)


def solve(X, lse, M, N):
    block_n = max(16, triton.next_power_of_2(N))
    rows = max(1, TILE // block_n)
    logsumexp[(triton.cdiv(M, rows),)](X, lse, M, N, BLOCK_N=block_n, ROWS=rows)
