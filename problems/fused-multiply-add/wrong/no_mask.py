# Negative control: the solution without its mask. The last program loads and
# stores all 1024 lanes, up to 4092 bytes past the end of every buffer (inside
# the 4 KiB guard bands) whenever N is not a multiple of 1024: from the first
# test, N = 1. Expected verdict: Memory Violation.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def fma_kernel(A, B, C, D, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(A + offs)  # BUG: no mask=offs < N on any access
    b = tl.load(B + offs)
    c = tl.load(C + offs)
    tl.store(D + offs, a * b + c)


def solve(A, B, C, D, N):
    fma_kernel[(triton.cdiv(N, BLOCK),)](A, B, C, D, N, BLOCK=BLOCK, num_warps=4)
