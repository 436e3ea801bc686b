# A grid function reading a meta key that no argument, config or heuristic defines.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16})], key=['N'])
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    grid = lambda meta: (triton.cdiv(N, meta['BLOCK_SIZE']),)
    rows[grid](X, W, Y, alpha, N)
