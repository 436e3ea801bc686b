# Negative control: solution.py (PROGS=264) whose store of dX keeps the row mask
# but forgets the column mask: the padding lanes of each row store too, onto
# the next row and, for the last row, past the end of dX: on 1 x 1 the block is
# 256 wide and writes 255 halves (510 bytes) past dX, inside the guard band.
# Expected verdict: Memory Violation.
import torch
import triton
import triton.language as tl

PROGS = 264
WARPS = 8


@triton.jit
def lnb_rows(dY, X, gamma, mean, rstd, dX, part, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
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
        tl.store(dX + offs, dx.to(tl.float16), mask=row_ok[:, None])  # BUG: no column mask
        dg += dy * xhat
        db += dy

    base = part + pid.to(tl.int64) * 2 * N
    tl.store(base + cols, tl.sum(dg, axis=0), mask=col_ok)
    tl.store(base + N + cols, tl.sum(db, axis=0), mask=col_ok)


@triton.jit
def lnb_finish(part, dgamma, dbeta, P, N, BP: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    col_ok = cols < N
    acc_g = tl.zeros((BP, BN), dtype=tl.float32)
    acc_b = tl.zeros((BP, BN), dtype=tl.float32)
    for p0 in range(0, P, BP):
        p = p0 + tl.arange(0, BP)
        mask = (p < P)[:, None] & col_ok[None, :]
        offs = p.to(tl.int64)[:, None] * 2 * N + cols[None, :]
        acc_g += tl.load(part + offs, mask=mask, other=0.0)
        acc_b += tl.load(part + offs + N, mask=mask, other=0.0)
    tl.store(dgamma + cols, tl.sum(acc_g, axis=0), mask=col_ok)
    tl.store(dbeta + cols, tl.sum(acc_b, axis=0), mask=col_ok)


def solve(dY, X, gamma, mean, rstd, dX, dgamma, dbeta, M, N):
    block_n = max(256, triton.next_power_of_2(N))  # a whole row, at least 256 wide
    rows = max(1, 8192 // block_n)  # rows per tile
    progs = min(triton.cdiv(M, rows), PROGS)  # programs, each walking every progs-th tile
    part = torch.empty((progs, 2, N), dtype=torch.float32, device=dY.device)  # column partials
    lnb_rows[(progs,)](dY, X, gamma, mean, rstd, dX, part, M, N, ROWS=rows, BLOCK_N=block_n,
                       num_warps=WARPS)
    lnb_finish[(triton.cdiv(N, 64),)](part, dgamma, dbeta, progs, N, BP=64, BN=64, num_warps=4)
