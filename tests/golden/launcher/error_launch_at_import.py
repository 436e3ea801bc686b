# Launching while the module is imported (no case yet).
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


rows[(1,)](None, None, None, 1.0, 4, BLOCK=16)


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
