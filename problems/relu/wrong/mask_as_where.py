# Negative control: the store's mask used as the ReLU condition,
# mask=(offs < N) & (v > 0), as if y started out as zeros. The negative
# elements are never written and keep the judge's NaN poison: the first test
# with a negative value fails (N = 1 of the ladder has one chance in two;
# every "negative" test fails whole). Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def relu(x, y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x + offs, mask=mask)
    tl.store(y + offs, v, mask=mask & (v > 0))  # BUG: skips x <= 0 instead of writing 0


def solve(x, y, N):
    relu[(triton.cdiv(N, BLOCK),)](x, y, N, BLOCK=BLOCK, num_warps=4)
