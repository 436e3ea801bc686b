# expect: failure
# failure: exceeded the CPU time limit of 2 s
# limits: cpu_s=2 wall_ms=30000
# max-ms: 25000
import triton
import triton.language as tl

x = 0
while True:
    x += 1


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
