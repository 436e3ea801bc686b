# Negative control: the masked loads fill the padding lanes with 0.0 instead
# of -inf. Each of the BLOCK_N - N padding lanes then adds exp(0 - max) to the
# row's sum (and 0 may even become the maximum of a negative row), so every
# output is too small. Right only when N is a power of two of at least 16;
# the first test, (1, 1), already gives 1 / (1 + 15 exp(-x)) instead of 1.
# Expected verdict: Wrong Answer.
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
    x = tl.load(X + offs, mask=mask, other=0.0)  # BUG: 0 is not neutral here
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    r = 1.0 / tl.sum(e, axis=1)
    tl.store(Y + offs, e * r[:, None], mask=mask)


def solve(X, Y, M, N):
    block_n = max(16, triton.next_power_of_2(N))
    rows = max(1, TILE // block_n)
    softmax[(triton.cdiv(M, rows),)](X, Y, M, N, BLOCK_N=block_n, ROWS=rows)
