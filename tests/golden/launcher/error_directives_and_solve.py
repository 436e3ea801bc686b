# Directives and a solve in one file.
# @launch rows grid=(M) args=(X, W, Y, alpha, N, BLOCK=16)
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
