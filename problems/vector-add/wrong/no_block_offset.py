# Negative control: the program id used as an element offset, not a block
# offset: offs = pid + arange(BLOCK) instead of pid * BLOCK + arange(BLOCK).
# Programs overlap by BLOCK - 1 elements and together cover only the first
# cdiv(N, BLOCK) + BLOCK - 1 elements; everything after stays NaN (the
# poison). Correct while N <= cdiv(N, 1024) + 1023 (every test up to
# N = 1025), wrong from N = 4093 (its 4 programs cover elements 0..1026).
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def vector_add(A, B, C, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) + tl.arange(0, BLOCK)  # BUG: pid, not pid * BLOCK
    mask = offs < N
    a = tl.load(A + offs, mask=mask)
    b = tl.load(B + offs, mask=mask)
    tl.store(C + offs, a + b, mask=mask)


def solve(A, B, C, N):
    vector_add[(triton.cdiv(N, BLOCK),)](A, B, C, N, BLOCK=BLOCK, num_warps=4)
