# WRONG (Wrong Answer): solution.py loading the chunk with other=0.0, the
# neutral value of a sum, instead of -inf: the masked lanes past the end of a
# row take part in the max and each adds exp(0 - m) to the sum. (1, 1) fails.
#
# @tune BLOCK=(4096, 8192)
# @tune WARPS=(4, 8)
# @const MBLOCK=1024
# @scratch part_m fp32[M * cdiv(N, BLOCK)]
# @scratch part_l fp32[M * cdiv(N, BLOCK)]
# @scratch row_m fp32[M]
# @scratch row_l fp32[M]
# @launch chunk_stats grid=(cdiv(N, BLOCK), M) num_warps=WARPS args=(X, part_m, part_l, N, cdiv(N, BLOCK), BLOCK=BLOCK)
# @launch merge_rows grid=(M) num_warps=4 args=(part_m, part_l, row_m, row_l, cdiv(N, BLOCK), MBLOCK=MBLOCK)
# @launch normalize grid=(cdiv(N, BLOCK), M) num_warps=WARPS args=(X, Y, row_m, row_l, N, BLOCK=BLOCK)
import triton
import triton.language as tl


@triton.jit
def chunk_stats(X, part_m, part_l, N, n_chunks, BLOCK: tl.constexpr):
    chunk = tl.program_id(0)
    row = tl.program_id(1).to(tl.int64)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + row * N + offs, mask=offs < N, other=0.0)
    m = tl.max(x, axis=0)
    m_ref = tl.where(m == float("-inf"), 0.0, m)  # an all -inf chunk: l = 0, not NaN
    l = tl.sum(tl.exp(x - m_ref), axis=0)
    tl.store(part_m + row * n_chunks + chunk, m)
    tl.store(part_l + row * n_chunks + chunk, l)


@triton.jit
def merge_rows(part_m, part_l, row_m, row_l, n_chunks, MBLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m_acc = tl.full((MBLOCK,), float("-inf"), tl.float32)
    l_acc = tl.zeros((MBLOCK,), tl.float32)
    for c0 in range(0, n_chunks, MBLOCK):
        offs = c0 + tl.arange(0, MBLOCK)
        mask = offs < n_chunks
        m_c = tl.load(part_m + row * n_chunks + offs, mask=mask, other=float("-inf"))
        l_c = tl.load(part_l + row * n_chunks + offs, mask=mask, other=0.0)
        m_new = tl.maximum(m_acc, m_c)
        m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)
        l_acc = l_acc * tl.exp(m_acc - m_ref) + l_c * tl.exp(m_c - m_ref)
        m_acc = m_new
    m = tl.max(m_acc, axis=0)
    m_ref = tl.where(m == float("-inf"), 0.0, m)
    l = tl.sum(l_acc * tl.exp(m_acc - m_ref), axis=0)
    tl.store(row_m + row, m)
    tl.store(row_l + row, l)


@triton.jit
def normalize(X, Y, row_m, row_l, N, BLOCK: tl.constexpr):
    chunk = tl.num_programs(0) - 1 - tl.program_id(0)
    row = (tl.num_programs(1) - 1 - tl.program_id(1)).to(tl.int64)
    m = tl.load(row_m + row)
    inv_l = 1.0 / tl.load(row_l + row)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(X + row * N + offs, mask=mask, other=float("-inf"))
    tl.store(Y + row * N + offs, tl.exp(x - m) * inv_l, mask=mask)
