# expect: compile-error
# case-ms: 2000
# diag: 15:0 solve did not return within 2 s
# max-ms: 20000
import signal

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    signal.setitimer(signal.ITIMER_REAL, 0)
    while True:
        pass
