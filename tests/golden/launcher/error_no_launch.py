# A solve that launches nothing for a case.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    if M > 3:
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
