# expect: compile-error
# case-ms: 2000
# diag: 14:0 solve did not return within 2 s for case M=3,N=5
# max-ms: 20000
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    while True:
        pass
