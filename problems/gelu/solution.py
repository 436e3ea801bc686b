# GELU (exact erf form) in Triton: y = 0.5 * x * (1 + erf(x / sqrt(2))).
#
# One program per BLOCK = 1024 elements, 4 warps, 16-byte loads and stores
# when N is a multiple of 16 (on the timed shapes the judge marks such an N
# divisible by 16, as Triton's JIT does). tl.math.erf is libdevice's erff (a
# few ulp, the same function as CUDA's erff), about 20 fp32 instructions an
# element: far fewer than the SM can issue while memory delivers the 8 bytes,
# so the kernel is bound by memory, not by the erf.
#
# For x < -4, 1 + erf(x / sqrt 2) cancels and loses most of its digits, but
# the absolute error stays below ~3e-7, under the 1e-6 allowed; the tanh and
# sigmoid approximations differ from the exact form by 5e-4 and 2e-2 and fail.
#
# The judge calls solve(x, y, N) for every test and benchmark shape, with
# the problem's tensors, and runs what it launches (docs/submission-format.md).
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def gelu(x, y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    g = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(y + offs, g, mask=mask)


def solve(x, y, N):
    gelu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
