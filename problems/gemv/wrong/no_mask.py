# Negative control: solution.py (TILE=4096) with the store of y left unmasked:
# every program stores all BM of its rows, also those >= M. On 1 x 1 the one
# program stores 64 floats into y's single element: 252 bytes past its end,
# inside the judge's guard band.
# Expected verdict: Memory Violation.
#
# This control keeps the directive form (docs/submission-format.md,
# "Directives in Python"): BK, BM and the splits S are named with @let.
#
# @const TILE=4096
# @const WARPS=4
# @let BK = K <= 64 ? 64 : 512
# @let BM = TILE / BK
# @let S = min(64, cdiv(1024, cdiv(M, BM)), cdiv(K, BK))
# @scratch part fp32[S * M]
# @launch gemv grid=(cdiv(M, BM), S) num_warps=WARPS args=(A, x, y, part, M, K, BM=BM, BK=BK)
# @launch gemv_finish grid=(S > 1 ? cdiv(M, 1024) : 1) num_warps=4 args=(part, y, M, S, BLOCK=1024)
import triton
import triton.language as tl


@triton.jit
def gemv(A, x, y, part, M, K, BM: tl.constexpr, BK: tl.constexpr):
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

    if S == 1:
        tl.store(y + rows, dot)  # BUG: no mask=row_ok
    else:
        tl.store(part + pid_k.to(tl.int64) * M + rows, dot, mask=row_ok)


@triton.jit
def gemv_finish(part, y, M, S, BLOCK: tl.constexpr):
    if S > 1:
        rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = rows < M
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for s in range(0, S):
            acc += tl.load(part + s.to(tl.int64) * M + rows, mask=mask, other=0.0)
        tl.store(y + rows, acc, mask=mask)
