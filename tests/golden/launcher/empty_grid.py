# A grid with a zero dimension launches nothing, as in Triton.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M - 3,)](X, W, Y, alpha, N, BLOCK=16)
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
