# Reinterpreting a buffer's bytes as another dtype.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X.view(torch.int32), W, Y, alpha, N, BLOCK=16)
