# Fused Multiply-Add in Triton: D[i] = A[i] * B[i] + C[i], one pass over memory.
#
# The vector-add kernel with a third input: one program per BLOCK = 1024
# elements, 4 warps, 16-byte accesses when N is a multiple of 16 (on the
# timed shapes the judge marks such an N divisible by 16, as Triton's JIT
# does). a * b + c is one
# fused fma.rn.f32 (Triton contracts a multiply feeding an add by default);
# the tolerance admits that and the two-rounding a * b + c alike. 16 bytes
# move per element: 12 read, 4 written, nothing read twice.
#
# The judge calls solve(A, B, C, D, N) for every test and benchmark shape, with
# the problem's tensors, and runs what it launches (docs/submission-format.md).
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
    tl.store(D + offs, a * b + c, mask=mask)


def solve(A, B, C, D, N):
    fma_kernel[(triton.cdiv(N, BLOCK),)](A, B, C, D, N, BLOCK=BLOCK, num_warps=4)
