# Launch options beyond num_warps, num_stages and maxnreg are refused by name.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16, enable_fp_fusion=False)
