# torch functions that make values, and names the stand-in torch does not have.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    noise = torch.randn(M, N, device="cuda")
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
