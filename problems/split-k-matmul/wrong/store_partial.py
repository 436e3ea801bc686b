# WRONG (Wrong Answer): solution.py storing each split's partial tile into
# acc (tl.store) instead of adding it (tl.atomic_add): the splits of a tile
# overwrite each other and C gets whichever wrote last, one chunk's sum.
#
# Kept in the directive form (# @launch lines) on purpose, as the solution
# it copies is: the judge takes both forms of a Triton file, and this control
# keeps the directives' path exercised beside the launchers of the others.
#
# @tune SPLIT_K=(8, 16, 64, 256)
# @tune BM=(64, 128)
# @const BN=128
# @const BK=64
# @scratch acc fp32[M * N]
# @launch matmul_split grid=(cdiv(M, BM) * cdiv(N, BN), SPLIT_K) num_warps=4 num_stages=4 args=(A, B, acc, M, N, K, BM=BM, BN=BN, BK=BK, SPLIT_K=SPLIT_K)
# @launch copy_out grid=(cdiv(M * N, 1024)) num_warps=4 args=(acc, C, M * N, BLOCK=1024)
import triton
import triton.language as tl


@triton.jit
def matmul_split(A, B, acc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    z = tl.program_id(1)
    num_n = tl.cdiv(N, BN)
    offs_m = (pid // num_n) * BM + tl.arange(0, BM)
    offs_n = (pid % num_n) * BN + tl.arange(0, BN)
    chunk = tl.cdiv(tl.cdiv(K, SPLIT_K), BK) * BK
    k_lo = z * chunk
    k_hi = tl.minimum(K, k_lo + chunk)  # <= k_lo for an empty chunk: no iteration
    offs_k = k_lo + tl.arange(0, BK)
    a_ptrs = A + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    b_ptrs = B + offs_k[:, None].to(tl.int64) * N + offs_n[None, :]
    part = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BK):
        k_left = k_hi - k0
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (tl.arange(0, BK)[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(tl.arange(0, BK)[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        part = tl.dot(a, b, part)
        a_ptrs += BK
        b_ptrs += BK * N
    c_ptrs = acc + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(c_ptrs, part, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def copy_out(acc, C, MN, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    tl.store(C + offs, tl.load(acc + offs, mask=mask), mask=mask)
