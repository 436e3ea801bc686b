# solve's parameters match neither the problem's names nor their count.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(a, b, c):
    rows[(1,)](a, b, c, 1.0, 4, BLOCK=16)
