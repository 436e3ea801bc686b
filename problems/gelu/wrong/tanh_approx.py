# Negative control: the tanh approximation of GELU (GPT-2's, and
# F.gelu(approximate="tanh")), with tanh(u) = 2 * sigmoid(2u) - 1 since
# triton.language itself has no tanh (libdevice has one):
#   0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
# It differs from the exact GELU by up to 4.7e-4 (at |x| ~ 2.7), and by far
# more in relative terms in the negative tail (x = -4.4: -9.0e-6 for
# -2.38e-5), against a tolerance of 1e-6 + 1e-5 |y|: about 42% of the
# elements of U(-10, 10) are outside it, so the ladder fails within its
# first cases. Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def gelu(x, y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    t = 2.0 * tl.sigmoid(2.0 * u) - 1.0  # BUG: the tanh form, not erf
    tl.store(y + offs, 0.5 * v * (1.0 + t), mask=mask)


def solve(x, y, N):
    gelu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
