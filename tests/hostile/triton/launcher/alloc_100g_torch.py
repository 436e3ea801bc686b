# expect: compile-error
# diag: 13:0 allocates 107374182400 bytes
import torch
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    tmp = torch.empty(100 << 30, dtype=torch.uint8, device="cuda")  # no memory: over the cap
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
