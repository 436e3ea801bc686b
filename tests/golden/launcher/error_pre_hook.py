# @triton.autotune(pre_hook=...) runs host code on the tensors: refused, at the decorator.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16})], key=['N'], pre_hook=lambda kwargs: None)
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N)
