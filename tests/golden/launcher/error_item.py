# Reading a tensor's values: an error at the learner's line.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    if X[0, 0].item() > 0:
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
