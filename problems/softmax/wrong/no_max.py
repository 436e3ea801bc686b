# Negative control: softmax without subtracting the row maximum,
# exp(x) / sum exp(x). Mathematically the same, but exp overflows to inf in
# fp32 above x ~ 88.7: the "uniform" tests (x up to 100) and the rows shifted
# by +1000 give inf / inf = NaN where the answer is finite. The randn tests
# (|x| ~ 2) pass. Expected verdict: Wrong Answer.
#
# @const TILE=4096
# @tune WARPS=(8, 16)
# @launch softmax grid=(cdiv(M, max(1, TILE / max(16, next_pow2(N))))) num_warps=WARPS args=(X, Y, M, N, BLOCK_N=max(16, next_pow2(N)), ROWS=max(1, TILE / max(16, next_pow2(N))))
import triton
import triton.language as tl


@triton.jit
def softmax(X, Y, M, N, BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid.to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(X + offs, mask=mask, other=float("-inf"))
    e = tl.exp(x)  # BUG: no max subtracted: overflows for x > 88.7
    r = 1.0 / tl.sum(e, axis=1)
    tl.store(Y + offs, e * r[:, None], mask=mask)
