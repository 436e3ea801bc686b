# expect: ok
# The recorder is the init process of the sandbox's pid namespace: a SIGKILL from inside
# the namespace does not reach it, and the recording goes on.
import os
import signal

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    os.kill(os.getppid(), signal.SIGKILL)
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
