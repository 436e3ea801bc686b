# Negative control: solution.py (PROGS=264) where each program adds its partial
# column sums straight into dgamma and dbeta with tl.atomic_add, and lnb_finish
# is gone. But the outputs are not zero at the start: the judge fills them with
# NaN before every run, and NaN + anything is NaN. Atomics need a zeroed scratch
# buffer and a last launch that copies it to the outputs.
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

PROGS = 264
WARPS = 8


@triton.jit
def lnb_rows(dY, X, gamma, mean, rstd, dX, dgamma, dbeta, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    P = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    col_ok = cols < N
    w = tl.load(gamma + cols, mask=col_ok, other=0.0).to(tl.float32)
    dg = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)

    for tile in range(pid, tl.cdiv(M, ROWS), P):
        rows = tile * ROWS + tl.arange(0, ROWS)
        row_ok = rows < M
        mask = row_ok[:, None] & col_ok[None, :]
        offs = rows.to(tl.int64)[:, None] * N + cols[None, :]
        x = tl.load(X + offs, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dY + offs, mask=mask, other=0.0).to(tl.float32)
        mu = tl.load(mean + rows, mask=row_ok, other=0.0)
        rs = tl.load(rstd + rows, mask=row_ok, other=0.0)
        xhat = (x - mu[:, None]) * rs[:, None]
        g = dy * w[None, :]
        c1 = tl.sum(g * xhat, axis=1) / N
        c2 = tl.sum(g, axis=1) / N
        dx = (g - xhat * c1[:, None] - c2[:, None]) * rs[:, None]
        tl.store(dX + offs, dx.to(tl.float16), mask=mask)
        dg += dy * xhat
        db += dy

    tl.atomic_add(dgamma + cols, tl.sum(dg, axis=0), mask=col_ok)  # BUG: dgamma starts as NaN
    tl.atomic_add(dbeta + cols, tl.sum(db, axis=0), mask=col_ok)


def solve(dY, X, gamma, mean, rstd, dX, dgamma, dbeta, M, N):
    block_n = max(256, triton.next_power_of_2(N))  # a whole row, at least 256 wide
    rows = max(1, 8192 // block_n)  # rows per tile
    progs = min(triton.cdiv(M, rows), PROGS)  # programs, each walking every progs-th tile
    lnb_rows[(progs,)](dY, X, gamma, mean, rstd, dX, dgamma, dbeta, M, N, ROWS=rows,
                       BLOCK_N=block_n, num_warps=WARPS)
