# LayerNorm backward, fused: X and dY are read once, dX written once, and the
# column sums dgamma, dbeta come out of the same pass.
#
# lnb_rows runs P programs (a few per SM). Program p walks the row tiles
# p, p + P, p + 2P, ...; a tile is ROWS whole rows, a ROWS x BLOCK_N block in
# registers (BLOCK_N = next_pow2(N), at least 256; ROWS = 8192 / BLOCK_N, so
# several short rows per tile and one num_warps for every shape). For each
# tile it computes xhat, g = dY * gamma, the row sums c1 and c2 (tl.sum along
# the rows), dX = rstd * (g - xhat * c1 - c2) rounded to fp16 once, and adds
# dY * xhat and dY into two fp32 accumulators of the same shape that stay in
# registers across the whole walk. At the end it reduces them over their ROWS
# rows and stores its partial column sums in the scratch part[p][2][N]. Padding
# lanes load dY = 0, so they add nothing to any sum (xhat is not 0 there, but
# it is multiplied by 0). gamma is loaded once per program.
#
# lnb_finish adds the P partials of each column into dgamma and dbeta (the
# outputs start as NaN: they are written, never added to). With P at most 264
# the partials are a few MB, read back from L2.
#
# This file keeps the directive form (# @launch), not a solve(...) launcher:
# PROGS, tuned with num_warps, is a host-side value (it sizes the grid, the
# scratch part and lnb_finish's P), and triton.autotune sets only a kernel's
# parameters: solve never learns which config is being recorded, so a launcher
# could not tune PROGS. The @let lines name what the launches share.
#
# @tune PROGS=(132, 264)
# @tune WARPS=(8, 16)
# @let BLOCK_N = max(256, next_pow2(N))
# @let ROWS = max(1, 8192 / BLOCK_N)
# @let P = min(cdiv(M, ROWS), PROGS)
# @scratch part fp32[2 * P * N]
# @launch lnb_rows grid=(P) num_warps=WARPS args=(dY, X, gamma, mean, rstd, dX, part, M, N, ROWS=ROWS, BLOCK_N=BLOCK_N)
# @launch lnb_finish grid=(cdiv(N, 64)) num_warps=4 args=(part, dgamma, dbeta, P, N, BP=64, BN=64)
import triton
import triton.language as tl


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
        tl.store(dX + offs, dx.to(tl.float16), mask=mask)
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
