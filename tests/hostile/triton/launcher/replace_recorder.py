# expect: compile-error
# diag: 15:0 solve launched no kernel
import triton
import triton.language as tl
from triton.runtime.jit import JITFunction

JITFunction.__getitem__ = lambda self, grid: (lambda *args, **kwargs: None)  # launch nothing


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
