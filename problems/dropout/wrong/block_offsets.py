# Negative control: the random numbers drawn from the offsets within the
# block, tl.rand(seed, tl.arange(0, BLOCK)), instead of the element indices.
# Every program then uses the same 1024 numbers: element i gets u_(i mod
# 1024). Right for N <= 1024 (one program), wrong from N = 1025 on: its last
# element has u_0 instead of u_1024, which differ in the keep decision about
# half of the time, and N = 4093 has 3069 elements with borrowed numbers.
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def dropout(x, y, p, seed, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    u = tl.rand(seed, tl.arange(0, BLOCK))  # BUG: the lane, not the element index
    s = tl.math.div_rn(1.0, 1.0 - p)
    tl.store(y + offs, tl.where(u > p, v * s, 0.0), mask=mask)


def solve(x, y, p, seed, N):
    dropout[(triton.cdiv(N, BLOCK),)](x, y, p, seed, N, BLOCK=BLOCK, num_warps=4)
