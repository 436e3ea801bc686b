# Negative control: the solution without its mask (the step's lesson). The
# last program loads and stores all BLOCK lanes, up to 1023 floats (4092
# bytes) past the end of A, B and C, inside the judge's 4 KiB guard bands,
# whenever N is not a multiple of 1024: the first test, N = 1, already is.
# Expected verdict: Memory Violation.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def vector_add(A, B, C, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(A + offs)  # BUG: no mask=offs < N
    b = tl.load(B + offs)  # BUG: no mask
    tl.store(C + offs, a + b)  # BUG: no mask: writes past the end of C


def solve(A, B, C, N):
    vector_add[(triton.cdiv(N, BLOCK),)](A, B, C, N, BLOCK=BLOCK, num_warps=4)
