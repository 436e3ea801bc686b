# Negative control: softmax without subtracting the row maximum,
# exp(x) / sum exp(x). Mathematically the same, but exp overflows to inf in
# fp32 above x ~ 88.7: the "uniform" tests (x up to 100) and the rows shifted
# by +1000 give inf / inf = NaN where the answer is finite. The randn tests
# (|x| ~ 2) pass. Expected verdict: Wrong Answer.
import triton
import triton.language as tl

TILE = 4096


@triton.autotune(configs=[triton.Config({}, num_warps=8), triton.Config({}, num_warps=16)],
                 key=['M', 'N'])
@triton.jit
def softmax(X, Y, M, N, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=float("-inf"))
    e = tl.exp(x)  # BUG: no max subtracted: overflows for x > 88.7
    r = 1.0 / tl.sum(e, axis=1)
    tl.store(Y + offs, e * r[:, None], mask=mask)


def solve(X, Y, M, N):
    block_n = max(16, triton.next_power_of_2(N))
    rows = max(1, TILE // block_n)
    softmax[(triton.cdiv(M, rows),)](X, Y, M, N, BLOCK_N=block_n, ROWS=rows)
