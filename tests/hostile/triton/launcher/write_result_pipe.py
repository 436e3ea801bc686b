# expect: failure
# failure: malformed
import os

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
    os.write(4, b"record 5\n9 9\n")  # the compiler's result pipe: a forged, broken field
