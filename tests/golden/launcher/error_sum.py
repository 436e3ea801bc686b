# A reduction on the host reads values.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    total = X.sum()
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
