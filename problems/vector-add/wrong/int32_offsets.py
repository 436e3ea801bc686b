# Negative control: 32-bit offsets. pid * BLOCK is an i32 product (the program
# id is i32), right for every N below 2^31. In the last test, N = 2^31 + 129
# (N then arrives as i64), the programs from 2^21 on get negative offsets,
# pass offs < N, and load 8 GiB before the start of A, where nothing is
# mapped. Expected verdict: Runtime Error (an illegal address). solution.py
# takes pid.to(tl.int64) first.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def vector_add(A, B, C, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # BUG: i32, wraps past 2^31 - 1
    mask = offs < N
    a = tl.load(A + offs, mask=mask)
    b = tl.load(B + offs, mask=mask)
    tl.store(C + offs, a + b, mask=mask)


def solve(A, B, C, N):
    vector_add[(triton.cdiv(N, BLOCK),)](A, B, C, N, BLOCK=BLOCK, num_warps=4)
