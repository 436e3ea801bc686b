# Constexpr values that are not integers: a str (the matmul tutorial's ACTIVATION),
# a bool, None, a float; a default left out.
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x, w, y, alpha, N, ACT: tl.constexpr, EVEN: tl.constexpr, BIAS: tl.constexpr,
         EPS: tl.constexpr, BLOCK: tl.constexpr = 128):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, ACT="", EVEN=N % 16 == 0, BIAS=None, EPS=1e-5)
    rows[(M,)](X, W, Y, alpha, N, ACT="leaky_relu", EVEN=tl.constexpr(True), BIAS=None, EPS=0.5)
