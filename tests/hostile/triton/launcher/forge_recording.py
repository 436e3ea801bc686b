# expect: compile-error
# diag: 14:1 outside its 15 elements
import gc

import triton
import triton.language as tl

@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    rows[(M,)](X, W, Y, alpha, N, BLOCK=16)
    # reach into the recorder and move the output's pointer far past the buffer: judged checks
    # every recorded view against its buffer, whatever the recorder says
    for obj in gc.get_objects():
        if type(obj).__name__ == "Launch":
            obj.args[2] = ("buf", obj.args[2][1]._view(obj.args[2][1]._shape, obj.args[2][1]._strides, 10 ** 6))
