# expect: ok
# log-has: environ blocked: FileNotFoundError
# log-has: proc blocked: FileNotFoundError
# control-log-has: environ:
import os
import triton
import triton.language as tl

try:
    print("environ:", open("/proc/self/environ", "rb").read())
except OSError as e:
    print("environ blocked:", type(e).__name__)
try:
    print("proc:", os.listdir("/proc"), open("/proc/1/cmdline", "rb").read())
except OSError as e:
    print("proc blocked:", type(e).__name__)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
