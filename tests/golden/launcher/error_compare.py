# Comparing tensors computes with their values.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    big = X > 0.5
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
