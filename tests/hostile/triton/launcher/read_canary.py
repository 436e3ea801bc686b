# expect: ok
# The judge's secrets are not in the sandbox: its environment and its files.
import os

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    print(dict(os.environ))
    for path in ("/tmp/bw-triton-secret-canary.txt", "/etc/passwd", "/etc/shadow"):
        try:
            print(open(path).read())
        except OSError as e:
            print(path, e)
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
