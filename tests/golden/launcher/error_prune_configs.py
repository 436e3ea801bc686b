# prune_configs_by: the judge times every config; refused.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK': 16}), triton.Config({'BLOCK': 32})], key=['N'],
                 prune_configs_by={'early_config_prune': lambda configs, nargs, **kw: configs[:1]})
@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N)
