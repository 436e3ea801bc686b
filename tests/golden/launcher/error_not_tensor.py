# A pointer argument that is not one of the judge's tensors.
import torch
import triton
import triton.language as tl


import array

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](array.array("f", [0.0] * 4), W, Y, alpha, N, BLOCK=16)
