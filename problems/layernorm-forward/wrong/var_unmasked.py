# Negative control: solution.py (TILE=4096) computing the variance from
# x - mean without setting the masked lanes back to 0. Those lanes loaded 0
# (other=0.0, right for the mean's sum), but 0 - mean is -mean: each of the
# BLOCK_N - N padding lanes adds mean^2 to the sum of squares. Only rows whose
# length is a power of two of at least 256 have no padding; the first test,
# 1 x 1, already fails (the block is 256 wide: 255 padding lanes, and rstd
# far too small).
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

TILE = 4096
WARPS = 4


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
        d = x - mu[:, None]  # BUG: the padding lanes give -mean, not 0
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
            d = x - mu[:, None]  # BUG: as above
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
    rows = max(1, TILE // width)
    layernorm_fwd[(triton.cdiv(M, rows),)](X, gamma, beta, Y, mean, rstd, eps, M, N, ROWS=rows,
                                           BLOCK_N=min(width, 16384), SINGLE=int(width <= 16384),
                                           num_warps=WARPS)
