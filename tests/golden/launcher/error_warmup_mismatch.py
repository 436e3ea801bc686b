# A kernel warmed up with one constexpr and launched with another.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    k = rows.warmup(X, W, Y, alpha, N, BLOCK=16, grid=(1,))
    k[(M,)](X, W, Y, alpha, N, 32)
