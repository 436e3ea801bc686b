# expect: ok
# A launcher that launches only on its first call, keeping state in a global: each case
# is recorded in a fresh process (forked after the import), so every case is a first call.
import triton
import triton.language as tl

CALLS = []

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    CALLS.append(M)
    if len(CALLS) == 1:
        rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
