# Two kernels in order; the second over a row of the output.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


@triton.jit
def fill(y, n, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    fill[(1,)](Y[0], N, BLOCK=8)
    rows[(M, 1)](X, W, Y, alpha, N, BLOCK=8)
