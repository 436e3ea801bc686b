# expect: compile-error
# diag: 12:0 ZeroDivisionError
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    grid = lambda meta: (M // (meta['BLOCK'] - 16),)
    rows[grid](X, W, Y, alpha, N, BLOCK=16)
