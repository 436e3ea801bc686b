# Negative control: the solution without its mask. The last program loads and
# stores all 1024 lanes, up to 4092 bytes past the end of x and y (inside the
# 4 KiB guard bands) whenever N is not a multiple of 1024: from the first
# test, N = 1. Expected verdict: Memory Violation.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def relu(x, y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs)  # BUG: no mask=offs < N
    tl.store(y + offs, tl.where(v > 0, v, 0.0))  # BUG: no mask: past the end of y


def solve(x, y, N):
    relu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
