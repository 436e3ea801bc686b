# Streams: the judge runs every launch on one stream.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    with torch.cuda.stream(torch.cuda.Stream()):
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
