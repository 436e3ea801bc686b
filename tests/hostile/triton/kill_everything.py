# expect: ok
# log-has: still alive
import os
import signal
import triton
import triton.language as tl

for target in (-1, 0, 1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError as e:
        print("kill", target, type(e).__name__)
print("still alive")


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
