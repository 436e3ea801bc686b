# solve's parameters named after the problem, in any order, and not all of them.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(Y, N, X, W, alpha):
    rows[(Y.shape[0],)](X, W, Y, alpha, N, BLOCK=16)
