# Negative control: solution.py (one 64 x 64 configuration) without tl.trans.
# The tile is stored at its transposed place in Y, but its elements are not
# turned around: Y[j][i] receives X[i'][j'] with the in-tile offsets swapped
# (the CUDA tile_not_transposed bug). With square tiles the shapes still match,
# so it compiles and writes only inside Y; only a 1 x 1 matrix comes out right
# (the first wrong case is 1 x 7).
# Expected verdict: Wrong Answer.
#
# @const BLOCK_R=64
# @const BLOCK_C=64
# @const WARPS=4
# @launch transpose grid=(cdiv(C, BLOCK_C), cdiv(R, BLOCK_R)) num_warps=WARPS args=(X, Y, R, C, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
import triton
import triton.language as tl


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
