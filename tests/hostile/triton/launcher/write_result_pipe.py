# expect: ok
# The answer is the driver's alone: solve runs in a recorder whose fd 4 is /dev/null, so a
# forged, broken field written there goes nowhere (it never reaches judged).
import os

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
    os.write(4, b"record 5\n9 9\n")  # the compiler's result pipe: a forged, broken field
