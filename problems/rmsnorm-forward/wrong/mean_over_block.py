# Negative control: solution.py (TILE=4096) dividing the sum of squares by the
# block's length BLOCK_N instead of N. The padding lanes added nothing to the
# sum, but they are counted: the mean square comes out N / BLOCK_N times too
# small, wrong for every N that is not a power of two of at least 256 (already
# on 1 x 1: the block is 256 wide).
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

TILE = 4096
WARPS = 4


@triton.jit
def rmsnorm_fwd(X, w, Y, rstd, eps, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr, SINGLE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    starts = rows.to(tl.int64)[:, None] * N  # [ROWS, 1] row offsets
    cols = tl.arange(0, BLOCK_N)

    if SINGLE:  # the whole row in registers
        col_ok = cols < N
        mask = row_ok[:, None] & col_ok[None, :]
        x = tl.load(X + starts + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        r = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / BLOCK_N + eps)  # BUG: / BLOCK_N
        g = tl.load(w + cols, mask=col_ok, other=0.0).to(tl.float32)
        y = x * r[:, None] * g[None, :]
        tl.store(Y + starts + cols[None, :], y.to(tl.bfloat16), mask=mask)
    else:  # long rows: two passes over the row in BLOCK_N-wide blocks
        acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
        for k in range(0, N, BLOCK_N):
            mask = row_ok[:, None] & (k + cols < N)[None, :]
            x = tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0).to(tl.float32)
            acc += x * x
        r = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / BLOCK_N + eps)  # BUG: as above
        for k in range(0, N, BLOCK_N):
            col_ok = k + cols < N
            mask = row_ok[:, None] & col_ok[None, :]
            x = tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0).to(tl.float32)
            g = tl.load(w + k + cols, mask=col_ok, other=0.0).to(tl.float32)
            y = x * r[:, None] * g[None, :]
            tl.store(Y + starts + k + cols[None, :], y.to(tl.bfloat16), mask=mask)

    tl.store(rstd + rows, r, mask=row_ok)


def solve(X, w, Y, rstd, eps, M, N):
    width = max(256, triton.next_power_of_2(N))  # a row's block, at least 256 wide
    rows = max(1, TILE // width)
    rmsnorm_fwd[(triton.cdiv(M, rows),)](X, w, Y, rstd, eps, M, N, ROWS=rows,
                                         BLOCK_N=min(width, 16384), SINGLE=int(width <= 16384),
                                         num_warps=WARPS)
