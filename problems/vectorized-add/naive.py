# Vectorized Vector Add, the direct way: every access masked (Accepted).
#
# This is problem 1's Triton kernel in fp16. It is correct, and on N = 2^29
# it is even vectorized: N is a multiple of 16 there, the judge marks it so
# (as Triton's JIT does), and the mask `offs < N` is then known to be the same
# for each group of 8 halves. On N = 2^29 + 3 nothing tells Triton that, so
# that build makes one 2-byte load per element and input: the vectorized goal
# (LDG.E.128 and STG.E.128 in the machine code of every build the score
# uses) fails on that shape. solution.py keeps the mask off the full blocks.
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def vadd(A, B, C, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    a = tl.load(A + offs, mask=mask)
    b = tl.load(B + offs, mask=mask)
    tl.store(C + offs, a + b, mask=mask)


def solve(A, B, C, N):
    vadd[(triton.cdiv(N, BLOCK),)](A, B, C, N, BLOCK=BLOCK, num_warps=4)
