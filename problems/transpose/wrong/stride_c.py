# Negative control: solution.py (one 64 x 64 configuration) with the row stride
# of Y taken from X. Y has C rows of R elements, so Y[j][i] is at Y + j * R + i;
# this kernel stores at Y + j * C + i, right only when R == C. It passes 1 x 1
# and, on 1 x 7, writes Y + 42 for Y's 7 elements (inside the guard band).
# Expected verdict: Memory Violation.
import triton
import triton.language as tl

BLOCK_R = 64
BLOCK_C = 64


@triton.jit
def transpose(X, Y, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_c = tl.program_id(0)
    pid_r = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)  # i, rows of X = columns of Y
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)  # j, columns of X = rows of Y

    x_ptrs = X + rows.to(tl.int64)[:, None] * C + cols[None, :]
    in_x = (rows[:, None] < R) & (cols[None, :] < C)
    tile = tl.load(x_ptrs, mask=in_x)  # [BLOCK_R, BLOCK_C]

    y_ptrs = Y + cols.to(tl.int64)[:, None] * C + rows[None, :]  # BUG: stride C, not R
    in_y = (cols[:, None] < C) & (rows[None, :] < R)
    tl.store(y_ptrs, tl.trans(tile), mask=in_y)  # [BLOCK_C, BLOCK_R]


def solve(X, Y, R, C):
    grid = (triton.cdiv(C, BLOCK_C), triton.cdiv(R, BLOCK_R))
    transpose[grid](X, Y, R, C, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
