# Split-K matmul in Triton: C = A B (A, B fp16; C fp32) for a small C and a
# huge K, with tl.atomic_add.
#
# Launch 1 has a 2-D grid: axis 0 the BM x BN tiles of C, axis 1 the SPLIT_K
# chunks of K. Program (tile, z) multiplies its tile over K range
# [z * chunk, min(K, (z + 1) * chunk)), chunk = cdiv(K, SPLIT_K) rounded up to
# a whole number of BK slabs (masked loads, zeros outside the matrices, an
# fp32 accumulator fed by tl.dot, Triton's pipelined K loop), then adds its
# partial tile into the fp32 scratch buffer `acc` with tl.atomic_add. The
# judge zeroes `acc` before every run, so the splits need no order and an
# empty chunk (K = 8 with SPLIT_K = 256: 255 of them) adds zeros. C itself is
# NaN-poisoned, never zeroed: launch 2 copies acc into C.
#
# The atomics are relaxed (sem="relaxed"): nothing in launch 1 reads acc, and
# the end of the launch orders them before launch 2. The adds happen in a
# varying order, so C may differ in the last bits from run to run; the
# tolerance (2e-5 * S) is far above that.
#
# SPLIT_K is tuned per shape (the judge keeps the fastest): about one or two
# programs per SM for 132 SMs, e.g. 64 splits x 4 tiles on 256 x 256 x 2^19,
# 256 x 1 on 128 x 128 x 2^20. The partial sums cost SPLIT_K * M * N atomic
# adds, a few percent of the traffic at the right split. Row offsets are int64.
#
# The tile width BN is tuned too, 128 (4 warps) or 256 (8 warps,
# 3 stages: 48 KiB a slab), 16 builds in all. Why: 512 x 512 x 131072 is the
# one compute-bound shape here (68.7 GFLOP on 0.27 GB): at 128 x 128 tiles
# (16 tiles x 8 or 16 splits) each wgmma is m64n128 with one warpgroup doing
# both halves of the tile, and the tensor cores run well below their rate.
# 128 x 256 with two warpgroups is the tile Triton's Hopper matmuls reach
# their best rate with (each warpgroup m64n256: twice the multiply-adds per
# byte of shared memory read); 8 tiles x 16 splits = 128 programs, one per
# SM, each 8192 deep. The memory-bound shapes keep their 128-wide builds
# (the judge keeps the fastest per shape).
#
# Written with # @launch directives, not a solve(...) launcher: the split-k
# goal rebuilds this file with SPLIT_K=1 and compares the times, which needs
# SPLIT_K to be a @tune (or @const) name; a launcher has none to override.
#
# @tune SPLIT_K=(8, 16, 64, 256)
# @tune BM=(64, 128)
# @tune BN=(128, 256)
# @const BK=64
# @const SMEM=147456
# @let WARPS = max(4, BM * BN / 4096)
# @let STAGES = min(4, SMEM / ((BM + BN) * BK * 2))
# @scratch acc fp32[M * N]
# @launch matmul_split grid=(cdiv(M, BM) * cdiv(N, BN), SPLIT_K) num_warps=WARPS num_stages=STAGES \
#     args=(A, B, acc, M, N, K, BM=BM, BN=BN, BK=BK, SPLIT_K=SPLIT_K)
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
    tl.atomic_add(c_ptrs, part, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N), sem="relaxed")


@triton.jit
def copy_out(acc, C, MN, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    tl.store(C + offs, tl.load(acc + offs, mask=mask), mask=mask)
