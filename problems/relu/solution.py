# ReLU in Triton: y[i] = max(x[i], 0), at memory speed.
#
# One program per BLOCK = 1024 elements, 4 warps, 16-byte loads and stores
# when N is a multiple of 16 (on the timed shapes the judge marks such an N
# divisible by 16, as Triton's JIT does). tl.where(v > 0, v, 0.0) keeps v or
# writes +0; every element of the block inside the vector is stored, the zeros
# included: the mask says which elements exist, tl.where says what they
# become.
#
# The judge calls solve(x, y, N) for every test and benchmark shape, with
# the problem's tensors, and runs what it launches (docs/submission-format.md).
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def relu(x, y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    tl.store(y + offs, tl.where(v > 0, v, 0.0), mask=mask)


def solve(x, y, N):
    relu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
