# More launches than BW_MAX_LAUNCHES (8): the ninth is refused at its line.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    for i in range(10000):
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
