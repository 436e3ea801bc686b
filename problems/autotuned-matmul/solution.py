# Autotuned fp16 matmul in Triton: C = A B with fp32 accumulation on the
# tensor cores, the tile shape left to @tune as triton.autotune does.
#
# One program computes a BM x BN tile of C: it walks K in slabs of BK,
# loading a BM x BK tile of A and a BK x BN tile of B (masked at the edges of
# the matrices, zeros outside) and accumulating tl.dot(a, b, acc) into an fp32
# accumulator; the tile is rounded to fp16 once, at the store. Triton turns
# the loop into a software pipeline of num_stages slabs in flight (cp.async
# into shared memory) feeding the tensor cores (wgmma on the H200).
#
# The configurations: BM in {64, 128}, BN in {64, 128, 256}, BK in {32, 64}:
# 12 builds, each checked on every test and timed on every benchmark shape,
# the fastest kept per shape. num_warps follows the tile (4 warps, 8 for
# 128 x 256). num_stages is 4, or fewer when 4 slabs of (BM + BN) x BK halves
# would not fit in 144 KiB of shared memory (3 stages for 128 x 256 x 64 and
# 64 x 256 x 64). Small tiles win where there are few of them (M = 128;
# 1024 x 1024), large ones on the big squares.
#
# The 1-D grid is walked in grouped order (GROUP_M tile rows at a time, column
# by column; problem 22) so that the programs running together share slabs of
# A and B in L2. Row offsets are int64 (M*K can pass 2^31 in general).
#
# @tune BM=(64, 128)
# @tune BN=(64, 128, 256)
# @tune BK=(32, 64)
# @const STAGES=4
# @const SMEM=147456
# @const GROUP_M=8
# @launch matmul grid=(cdiv(M, BM) * cdiv(N, BN)) num_warps=max(4, BM * BN / 4096) num_stages=min(STAGES, SMEM / ((BM + BN) * BK * 2)) args=(A, B, C, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M)
import triton
import triton.language as tl


@triton.jit
def matmul(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           GROUP_M: tl.constexpr):
    # grouped order: GROUP_M tile rows at a time, walked column by column
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    in_group = pid % (GROUP_M * num_n)
    first_m = (pid // (GROUP_M * num_n)) * GROUP_M
    rows = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + in_group % rows
    pid_n = in_group // rows

    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = A + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    b_ptrs = B + offs_k[:, None].to(tl.int64) * N + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        k_left = K - k * BK  # the last slab may be partial
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    c_ptrs = C + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
