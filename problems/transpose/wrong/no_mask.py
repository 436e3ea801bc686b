# Negative control: solution.py (one 64 x 64 configuration) with the store left
# unmasked, the classic Triton mistake. The loads of an edge tile are masked, but
# every lane stores, so a tile that sticks out of the matrix writes outside Y:
# into the next rows of Y and, for the last tile, past its end into the judge's
# guard band. Already on 1 x 1 the lanes write up to 126 floats past Y's one
# element (504 bytes, inside the 4 KiB guard band).
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

    y_ptrs = Y + cols.to(tl.int64)[:, None] * R + rows[None, :]
    in_y = (cols[:, None] < C) & (rows[None, :] < R)
    tl.store(y_ptrs, tl.trans(tile))  # BUG: no mask=in_y


def solve(X, Y, R, C):
    grid = (triton.cdiv(C, BLOCK_C), triton.cdiv(R, BLOCK_R))
    transpose[grid](X, Y, R, C, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
