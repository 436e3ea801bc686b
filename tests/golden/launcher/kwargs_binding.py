# Arguments by keyword, a kernel called through .run(grid=...), defaults applied.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, STRIDE=1, BLOCK: tl.constexpr = 32):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](y=Y, x=X, w=W, alpha=alpha, N=N)
    rows.run(X, W, Y, alpha, N, STRIDE=N, grid=(M,), warmup=False, BLOCK=64)
