# LayerNorm forward, fused: X is read once and Y written once.
#
# A program owns ROWS whole rows: a ROWS x BLOCK_N block held in registers,
# BLOCK_N = next_pow2(N) but at least 256 (fewer distinct builds for the tiny
# tests), with 16-byte loads when N is a multiple of 16. Small rows share a
# program (ROWS = TILE / BLOCK_N: 16 rows of 256 at TILE = 4096), so every
# program moves about TILE elements whatever N is, and one num_warps suits
# every shape. The statistics are two-pass, from the registers: the mean, then the variance of
# x - mean, where the masked lanes (which loaded 0) are set back to 0 with
# tl.where, since 0 - mean is not 0. rstd = 1 / sqrt(var + eps), Y = (x - mean)
# * rstd * gamma + beta in fp32, rounded to fp16 once; gamma and beta are loaded
# once per program and broadcast over its rows.
#
# Rows longer than 16384 (the tests' N = 65536) do not fit in registers
# (SINGLE = 0): the program then walks the row in 16384-wide blocks three times
# (mean, variance, output). No benchmark takes that path.
#
# TILE (4096 or 16384 elements) and num_warps (4 or 8) are autotuned: the judge
# checks and times the four configs and keeps the fastest per shape.
# triton.autotune sets only the kernel's parameters, so a config gives its TILE
# to ROWS, and the heuristic below turns it into rows: ROWS = max(1, TILE /
# BLOCK_N), computed for each launch from the BLOCK_N that solve passes.
#
# The judge calls solve(X, gamma, beta, Y, mean, rstd, eps, M, N) for every
# test and benchmark shape, with the problem's tensors, and runs what it
# launches (docs/submission-format.md).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'ROWS': 4096}, num_warps=4),
                          triton.Config({'ROWS': 4096}, num_warps=8),
                          triton.Config({'ROWS': 16384}, num_warps=4),
                          triton.Config({'ROWS': 16384}, num_warps=8)],
                 key=['M', 'N'])
@triton.heuristics({'ROWS': lambda args: max(1, args['ROWS'] // args['BLOCK_N'])})
@triton.jit
def layernorm_fwd(X, gamma, beta, Y, mean, rstd, eps, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr,
                  SINGLE: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    starts = rows.to(tl.int64)[:, None] * N  # [ROWS, 1] row offsets
    cols = tl.arange(0, BLOCK_N)

    if SINGLE:  # the whole row in registers
        col_ok = cols < N
        mask = row_ok[:, None] & col_ok[None, :]
        x = tl.load(X + starts + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        mu = tl.sum(x, axis=1) / N
        d = tl.where(mask, x - mu[:, None], 0.0)
        var = tl.sum(d * d, axis=1) / N
        r = 1.0 / tl.sqrt(var + eps)
        g = tl.load(gamma + cols, mask=col_ok, other=0.0).to(tl.float32)
        b = tl.load(beta + cols, mask=col_ok, other=0.0).to(tl.float32)
        y = d * r[:, None] * g[None, :] + b[None, :]
        tl.store(Y + starts + cols[None, :], y.to(tl.float16), mask=mask)
    else:  # long rows: three passes over the row in BLOCK_N-wide blocks
        acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
        for k in range(0, N, BLOCK_N):
            mask = row_ok[:, None] & (k + cols < N)[None, :]
            acc += tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        mu = tl.sum(acc, axis=1) / N
        acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
        for k in range(0, N, BLOCK_N):
            mask = row_ok[:, None] & (k + cols < N)[None, :]
            x = tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0).to(tl.float32)
            d = tl.where(mask, x - mu[:, None], 0.0)
            acc += d * d
        var = tl.sum(acc, axis=1) / N
        r = 1.0 / tl.sqrt(var + eps)
        for k in range(0, N, BLOCK_N):
            col_ok = k + cols < N
            mask = row_ok[:, None] & col_ok[None, :]
            x = tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0).to(tl.float32)
            g = tl.load(gamma + k + cols, mask=col_ok, other=0.0).to(tl.float32)
            b = tl.load(beta + k + cols, mask=col_ok, other=0.0).to(tl.float32)
            y = (x - mu[:, None]) * r[:, None] * g[None, :] + b[None, :]
            tl.store(Y + starts + k + cols[None, :], y.to(tl.float16), mask=mask)

    tl.store(mean + rows, mu, mask=row_ok)
    tl.store(rstd + rows, r, mask=row_ok)


def solve(X, gamma, beta, Y, mean, rstd, eps, M, N):
    width = max(256, triton.next_power_of_2(N))  # a row's block, at least 256 wide
    grid = lambda meta: (triton.cdiv(M, meta['ROWS']),)
    # rows up to 16384 wide in registers (SINGLE), longer ones in 16384-wide blocks
    layernorm_fwd[grid](X, gamma, beta, Y, mean, rstd, eps, M, N,
                        BLOCK_N=min(width, 16384), SINGLE=int(width <= 16384))
