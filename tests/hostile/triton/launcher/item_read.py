# expect: compile-error
# diag: 14:0 X.item() reads tensor values
import torch
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    # a launcher that decides from the data: the stand-in tensors hold none
    if X[0, 0].item() > 0:
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
