# expect: ok
# log-max: 70000
# log-has: the output was cut at 65536 bytes
# max-ms: 30000
import sys
import triton
import triton.language as tl

sys.stdout.write("x" * 100_000_000)
sys.stdout.flush()


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
