# Negative control: solution.py (one 64 x 64 configuration) without tl.trans.
# The tile is stored at its transposed place in Y, but its elements are not
# turned around: Y[j][i] receives X[i'][j'] with the in-tile offsets swapped
# (the CUDA tile_not_transposed bug). With square tiles the shapes still match,
# so it compiles and writes only inside Y; only a 1 x 1 matrix comes out right
# (the first wrong case is 1 x 7).
# Expected verdict: Wrong Answer.
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
    tl.store(y_ptrs, tile, mask=in_y)  # BUG: tile, not tl.trans(tile)


def solve(X, Y, R, C):
    grid = (triton.cdiv(C, BLOCK_C), triton.cdiv(R, BLOCK_R))
    transpose[grid](X, Y, R, C, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=4)
