# Naive but correct: each program copies a segment of one row of X (a coalesced
# read) into a column of Y, where consecutive elements are R * 4 bytes apart: a
# warp's 32 stores touch 32 different memory sectors and use 4 of each sector's
# 32 bytes. Control: must be Accepted; it is the baseline that the tiled kernel
# (solution.py) beats, and it stays far below the "coalesced" goal.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def transpose_naive(X, Y, R, C, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64)  # a row of X
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < C
    v = tl.load(X + i * C + cols, mask=mask)
    tl.store(Y + cols.to(tl.int64) * R + i, v, mask=mask)


def solve(X, Y, R, C):
    transpose_naive[(R, triton.cdiv(C, BLOCK))](X, Y, R, C, BLOCK=BLOCK, num_warps=4)
