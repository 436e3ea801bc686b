# expect: failure
# failure: exceeded the time limit of 3 s
# limits: wall_ms=3000
# max-ms: 15000
import triton
import triton.language as tl

while True:
    pass


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
