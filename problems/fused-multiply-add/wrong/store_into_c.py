# Negative control: the axpy habit, C += A * B in place, then D = C. D is
# right, but the input C changed, and the judge checks every input after the
# run. Expected verdict: Input Modified.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def fma_kernel(A, B, C, D, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    a = tl.load(A + offs, mask=mask)
    b = tl.load(B + offs, mask=mask)
    c = tl.load(C + offs, mask=mask)
    tl.store(C + offs, a * b + c, mask=mask)  # BUG: writes the input C
    tl.store(D + offs, a * b + c, mask=mask)


def solve(A, B, C, D, N):
    fma_kernel[(triton.cdiv(N, BLOCK),)](A, B, C, D, N, BLOCK=BLOCK, num_warps=4)
