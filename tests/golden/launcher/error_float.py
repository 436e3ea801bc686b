# float(), tolist(), cpu(), bool(): values again; the first one met is reported.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def helper(t):
    return float(t[0, 0])


def solve(X, W, Y, alpha, M, N):
    scale = helper(X)
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
