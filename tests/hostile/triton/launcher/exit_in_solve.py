# expect: compile-error
# diag: 13:0 ended early
import os

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    os._exit(0)
