# Negative control: the store without its mask (the loads keep theirs). Every
# row's BLOCK_N - N padding lanes and every row past M are stored too: they
# land in the next rows (overwritten or not, depending on the order of the
# programs) and, for the last program, past the end of Y. The first test,
# (M, N) = (1, 1), writes 256 rows of 16 lanes at stride 1: 1080 bytes past
# the end, inside the 4 KiB guard band. Expected verdict: Memory Violation.
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
    m = tl.max(x, axis=1)
    e = tl.exp(x - m[:, None])
    r = 1.0 / tl.sum(e, axis=1)
    tl.store(Y + offs, e * r[:, None])  # BUG: no mask


def solve(X, Y, M, N):
    block_n = max(16, triton.next_power_of_2(N))
    rows = max(1, TILE // block_n)
    softmax[(triton.cdiv(M, rows),)](X, Y, M, N, BLOCK_N=block_n, ROWS=rows)
