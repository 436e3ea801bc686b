# expect: ok
# log-max: 70000
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    print("x" * (4 << 20))
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
