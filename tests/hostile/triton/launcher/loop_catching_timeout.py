# expect: compile-error
# case-ms: 2000
# diag: 13:0 solve did not return within 2 s
# max-ms: 20000
import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    while True:
        try:
            while True:
                pass
        except BaseException:  # the recorder's timeout, caught: the parent kills at the deadline
            pass
