# @triton.heuristics: each value computed from the bound arguments (after the
# autotune config's), as Triton's Heuristics.run does.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16}), triton.Config({'BLOCK': 64})], key=['N'])
@triton.heuristics({'EVEN': lambda args: args['N'] % args['BLOCK'] == 0,
                    'WIDE': lambda args: args['x'].shape[1] >= 128})
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr, EVEN: tl.constexpr, WIDE: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[lambda meta: (M, triton.cdiv(N, meta['BLOCK']))](X, W, Y, alpha, N)
