# Tiled transpose: Y[j][i] = X[i][j], X: R x C, Y: C x R, fp32, row-major.
#
# Each program moves one BLOCK_R x BLOCK_C tile. It loads the tile with the
# columns of X contiguous (each warp reads whole row segments: coalesced, and
# 16-byte vector loads when C is a multiple of 16, which the judge tells Triton
# as Triton's own launcher would), turns it around with tl.trans and stores it
# with the rows of Y contiguous (coalesced again). The turn is a layout change
# that Triton carries out through shared memory, with a swizzled layout that
# avoids bank conflicts: the CUDA solution's tile[TILE][TILE + 1], written for us.
#
# Row offsets are computed in int64 (i * C passes 2^31 for matrices of more than
# 2^31 elements, even though the tests stay below); the in-tile column offsets
# stay 32-bit. Edge tiles are masked on both sides: the load by (i < R, j < C),
# the store by (j < C, i < R). The tile shape is autotuned: the judge checks
# and times the four shapes and keeps the fastest per benchmark.
#
# The judge calls solve(X, Y, R, C) for every test and benchmark shape, with
# the problem's tensors, and runs what it launches (docs/submission-format.md).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK_R': 32, 'BLOCK_C': 64}, num_warps=4),
                          triton.Config({'BLOCK_R': 32, 'BLOCK_C': 128}, num_warps=4),
                          triton.Config({'BLOCK_R': 64, 'BLOCK_C': 64}, num_warps=4),
                          triton.Config({'BLOCK_R': 64, 'BLOCK_C': 128}, num_warps=4)],
                 key=['R', 'C'])
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
    tl.store(y_ptrs, tl.trans(tile), mask=in_y)  # [BLOCK_C, BLOCK_R]


def solve(X, Y, R, C):
    grid = lambda meta: (triton.cdiv(C, meta['BLOCK_C']), triton.cdiv(R, meta['BLOCK_R']))
    transpose[grid](X, Y, R, C)
