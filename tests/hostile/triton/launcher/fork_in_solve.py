# expect: ok
# A process solve leaves behind: killed with the case's process group, and the case's
# recording is whole without waiting for it.
# max-ms: 15000
import os
import time

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    if os.fork() == 0:
        time.sleep(3600)
        os._exit(0)
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
