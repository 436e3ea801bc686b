# expect: compile-error
# diag: 13:0 solve launches more than 8 kernels
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    for i in range(10000):
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
