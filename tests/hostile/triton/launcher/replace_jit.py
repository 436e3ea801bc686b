# expect: compile-error
# diag: 15:0 TypeError
import triton
import triton.language as tl

triton.jit = lambda fn=None, **kw: fn  # the kernel stays a plain Python function


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
