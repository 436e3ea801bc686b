# A kernel, and neither a solve nor a # @launch: nothing would run it.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def launch(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
