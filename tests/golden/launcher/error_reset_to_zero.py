# reset_to_zero: Triton zeroes only while benchmarking; refused with the reason.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16})], key=['N'], reset_to_zero=['y'])
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N)
