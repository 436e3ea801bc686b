# Negative control: solution.py (TILE=4096) whose loop stops at the last whole
# BK-wide step: range(k_lo, k_hi - BK + 1, BK) drops the last K % BK columns of
# each row (the tail a masked load exists for). K = 1 leaves the loop empty and
# writes 0; every K that is not a multiple of BK is short.
# Expected verdict: Wrong Answer.
import torch
import triton
import triton.language as tl

TILE = 4096


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
    for k in range(k_lo, k_hi - BK + 1, BK):  # BUG: drops the tail
        cols = k + tl.arange(0, BK)
        col_ok = cols < K  # a split ends at k_hi, a multiple of BK, or at K
        a = tl.load(a_rows + cols[None, :], mask=row_ok[:, None] & col_ok[None, :], other=0.0)
        xv = tl.load(x + cols, mask=col_ok, other=0.0)
        acc += a * xv[None, :]
    dot = tl.sum(acc, axis=1)  # [BM]

    if S == 1:
        tl.store(y + rows, dot, mask=row_ok)
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


def solve(A, x, y, M, K):
    bk = 64 if K <= 64 else 512
    bm = TILE // bk
    s = min(64, triton.cdiv(1024, triton.cdiv(M, bm)), triton.cdiv(K, bk))
    part = torch.empty(s * M, dtype=torch.float32, device=A.device)
    gemv[(triton.cdiv(M, bm), s)](A, x, y, part, M, K, BM=bm, BK=bk, num_warps=4)
    gemv_finish[(triton.cdiv(M, 1024) if s > 1 else 1,)](part, y, M, s, BLOCK=1024, num_warps=4)
