# contiguous() of a transposed view would copy it: not a window of one buffer.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    xt = X.t().contiguous()
    rows[(M,)](xt, W, Y, alpha, N, BLOCK=16)
