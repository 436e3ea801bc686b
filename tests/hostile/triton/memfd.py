# expect: ok
# log-has: memfd blocked: PermissionError
# control-log-has: memfd made
import os
import triton
import triton.language as tl

try:
    fd = os.memfd_create("x")
    print("memfd made", fd)
except OSError as e:
    print("memfd blocked:", type(e).__name__, e)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
