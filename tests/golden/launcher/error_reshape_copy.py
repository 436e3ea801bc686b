# reshape of a non-contiguous view into one dimension would copy.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X.t().reshape(-1), W, Y, alpha, N, BLOCK=16)
