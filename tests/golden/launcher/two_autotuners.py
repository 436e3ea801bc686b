# Two autotuned kernels: every combination of their configs (the last varying fastest).
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16}), triton.Config({'BLOCK': 32})], key=['N'])
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


@triton.autotune(configs=[triton.Config({}, num_warps=1), triton.Config({}, num_warps=2),
                          triton.Config({}, num_warps=4)], key=[])
@triton.jit
def fill(y, n):
    pass


def solve(X, W, Y, alpha, M, N):
    fill[(1,)](Y, N)
    rows[(M,)](X, W, Y, alpha, N)
