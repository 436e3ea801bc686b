# RMSNorm forward, fused: X is read once and Y written once.
#
# The layout of layernorm-forward's solution: a program owns ROWS whole rows, a
# ROWS x BLOCK_N block held in registers (BLOCK_N = next_pow2(N), at least 256;
# 16-byte loads when N is a multiple of 16), several short rows per program
# (ROWS = TILE / BLOCK_N) so that one num_warps suits every shape. The padding
# lanes load 0.0, which adds nothing to the sum of squares; the mean divides by
# N, not by the block's length. rstd = 1 / sqrt(mean + eps); Y = x * rstd * w in
# fp32, rounded to bf16 once; w is loaded once per program.
#
# Rows longer than 16384 (the test's N = 65536) do not fit in registers
# (SINGLE = 0): the program walks the row twice in 16384-wide blocks.
#
# TILE (4096 or 16384 elements) and num_warps (4 or 8) are autotuned: the judge
# checks and times the four configs and keeps the fastest per shape.
# triton.autotune sets only the kernel's parameters, so a config gives its TILE
# to ROWS, and the heuristic below turns it into rows: ROWS = max(1, TILE /
# BLOCK_N), computed for each launch from the BLOCK_N that solve passes.
#
# The judge calls solve(X, w, Y, rstd, eps, M, N) for every test and benchmark
# shape, with the problem's tensors, and runs what it launches
# (docs/submission-format.md).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'ROWS': 4096}, num_warps=4),
                          triton.Config({'ROWS': 4096}, num_warps=8),
                          triton.Config({'ROWS': 16384}, num_warps=4),
                          triton.Config({'ROWS': 16384}, num_warps=8)],
                 key=['M', 'N'])
@triton.heuristics({'ROWS': lambda args: max(1, args['ROWS'] // args['BLOCK_N'])})
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
        r = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
        g = tl.load(w + cols, mask=col_ok, other=0.0).to(tl.float32)
        y = x * r[:, None] * g[None, :]
        tl.store(Y + starts + cols[None, :], y.to(tl.bfloat16), mask=mask)
    else:  # long rows: two passes over the row in BLOCK_N-wide blocks
        acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
        for k in range(0, N, BLOCK_N):
            mask = row_ok[:, None] & (k + cols < N)[None, :]
            x = tl.load(X + starts + k + cols[None, :], mask=mask, other=0.0).to(tl.float32)
            acc += x * x
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
    grid = lambda meta: (triton.cdiv(M, meta['ROWS']),)
    # rows up to 16384 wide in registers (SINGLE), longer ones in 16384-wide blocks
    rmsnorm_fwd[grid](X, w, Y, rstd, eps, M, N,
                      BLOCK_N=min(width, 16384), SINGLE=int(width <= 16384))
