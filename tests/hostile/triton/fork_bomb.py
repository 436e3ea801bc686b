# expect: compile-error
# diag: 10:* BlockingIOError
# needs: non-root
import os
import triton
import triton.language as tl

pids = []
for i in range(5000):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    pids.append(pid)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
