# Negative control: solution.py (TILE=4096) squaring and summing in bf16: the
# row is not converted with .to(tl.float32) before x * x, so every square is
# rounded to 8 significant bits (and the sum kept in bf16). rstd is then off by
# up to about 2^-10, against its 1e-4 tolerance, from the first cases on (1 x 2
# in the CPU simulator, where 1 x 1 happened to round well).
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
        x = tl.load(X + starts + cols[None, :], mask=mask, other=0.0)  # BUG: stays bf16
        r = 1.0 / tl.sqrt(tl.sum(x * x, axis=1).to(tl.float32) / N + eps)
        g = tl.load(w + cols, mask=col_ok, other=0.0).to(tl.float32)
        y = x.to(tl.float32) * r[:, None] * g[None, :]
        tl.store(Y + starts + cols[None, :], y.to(tl.bfloat16), mask=mask)
    else:  # long rows: two passes over the row in BLOCK_N-wide blocks
        acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
        for k in range(0, N, BLOCK_N):
            mask = row_ok[:, None] & (k + cols < N)[None, :]
            x = tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0)  # BUG: as above
            acc += (x * x).to(tl.float32)
        r = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / N + eps)
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
