# Naive but correct: one program per row, the row walked in blocks of 1024
# columns (coalesced loads) and summed with tl.sum: the starter completed. It
# is the Triton twin of naive_warp_per_row.cu: fine on 16384 x 16384, but it
# keeps only 256 programs busy on 256 x 1048576 (about two per SM) and wastes
# 15/16 of every block on 4194304 x 64. Control: must be Accepted; it brackets
# the "coalesced" goal from below on the last two shapes.
import triton
import triton.language as tl


@triton.jit
def gemv(A, x, y, M, K, BLOCK_K: tl.constexpr):
    i = tl.program_id(0)
    a_row = A + i.to(tl.int64) * K
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        mask = cols < K
        a = tl.load(a_row + cols, mask=mask, other=0.0)
        xv = tl.load(x + cols, mask=mask, other=0.0)
        acc += a * xv
    tl.store(y + i, tl.sum(acc, axis=0))


def solve(A, x, y, M, K):
    gemv[(M,)](A, x, y, M, K, BLOCK_K=1024, num_warps=4)
