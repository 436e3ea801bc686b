# A meta-parameter given both by the launch and by the autotune config.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16})], key=['N'])
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=32)
