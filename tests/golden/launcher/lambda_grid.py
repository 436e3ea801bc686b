# A grid function of meta (the bound arguments, as Triton 3.6 passes them), next_power_of_2.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    grid = lambda meta: (M, triton.cdiv(N, meta['BLOCK']))
    rows[grid](X, W, Y, alpha, N, BLOCK=triton.next_power_of_2(N))
