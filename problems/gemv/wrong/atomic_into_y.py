# Negative control: solution.py (TILE=4096) where the splits of each row add
# their partial sums straight into y with tl.atomic_add, the usual split-K
# shortcut, and gemv_finish is gone. But y is not zero at the start: the judge
# fills it with NaN before every run, and NaN + anything is NaN. The atomics
# need a zeroed buffer (torch.zeros in solve) or a first launch that writes y.
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

TILE = 4096


@triton.jit
def gemv(A, x, y, M, K, BM: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    S = tl.num_programs(1)
    rows = pid_m * BM + tl.arange(0, BM)
    row_ok = rows < M
    a_rows = A + rows.to(tl.int64)[:, None] * K  # [BM, 1] row starts

    chunk = tl.cdiv(tl.cdiv(K, S), BK) * BK
    k_lo = pid_k * chunk
    k_hi = tl.minimum(k_lo + chunk, K)
    acc = tl.zeros((BM, BK), dtype=tl.float32)
    for k in range(k_lo, k_hi, BK):
        cols = k + tl.arange(0, BK)
        col_ok = cols < K  # a split ends at k_hi, a multiple of BK, or at K
        a = tl.load(a_rows + cols[None, :], mask=row_ok[:, None] & col_ok[None, :], other=0.0)
        xv = tl.load(x + cols, mask=col_ok, other=0.0)
        acc += a * xv[None, :]
    dot = tl.sum(acc, axis=1)  # [BM]

    tl.atomic_add(y + rows, dot, mask=row_ok)  # BUG: y starts as NaN, not 0


def solve(A, x, y, M, K):
    bk = 64 if K <= 64 else 512
    bm = TILE // bk
    s = min(64, triton.cdiv(1024, triton.cdiv(M, bm)), triton.cdiv(K, bk))
    gemv[(triton.cdiv(M, bm), s)](A, x, y, M, K, BM=bm, BK=bk, num_warps=4)
