# Autotuned fp16 matmul in Triton: C = A B with fp32 accumulation on the
# tensor cores, the tile shape left to @triton.autotune.
#
# One program computes a BM x BN tile of C: it walks K in slabs of BK,
# loading a BM x BK tile of A and a BK x BN tile of B and accumulating
# tl.dot(a, b, acc) into an fp32 accumulator; the tile is rounded to fp16
# once, at the masked store. The tiles come in through the TMA: a tensor
# descriptor per operand (tl.make_tensor_descriptor: A as [M, K] with strides
# [K, 1], B as [K, N] with strides [N, 1]) and a_desc.load([m0, k0]), one bulk
# copy of the whole box into shared memory in the swizzled layout wgmma reads;
# what lies past M, N or K arrives as zeros, so the loop has no masks and no
# pointer tensors. The TMA needs row strides that are multiples of 16 bytes:
# N and K are multiples of 8 here, so 2N and 2K bytes are. Triton turns the
# loop into a software pipeline of num_stages slabs in flight (mbarriers)
# feeding the tensor cores (wgmma on the H200). Compared with per-thread
# cp.async copies, a TMA copy frees the address registers and the issue
# slots of every thread, which matters most where the loop is load-bound.
#
# The configurations: BM in {64, 128}, BN in {64, 128, 256}, BK in {32, 64}:
# 12 builds, each checked on every test and timed on every benchmark shape,
# the fastest kept per shape. num_warps follows the tile (4 warps, 8 for
# 128 x 256).
#
# Why the TMA and deep pipelines (against per-thread cp.async copies, 4
# stages at most, this kernel went from 1.29-1.36x PyTorch's time on the
# skinny shapes to 1.09-1.15x on the H200): the TMA loads above, and the
# pipeline depth. num_stages is as deep as 144 KiB of
# shared memory allows, up to 6 (it was capped at 4): 6 stages for the small
# tiles (64 x 64, 128 x 64, 64 x 128 at BK = 64; every BK = 32 tile up to
# 128 x 128), 4 for 128 x 128 x 64, 3 for the x256 x64 tiles as before. Why:
# the skinny shapes are memory-latency bound, not bandwidth bound. On
# 128 x 8192 x 8192 the 128 programs of a 128 x 64 tile cover all of C, so
# each SM streams its own 1 MiB column of B from DRAM (A, 2 MiB, is shared
# through L2). By Little's law the GPU needs about bandwidth x latency =
# 4.2 TB/s x ~1 us = ~4 MiB of loads in flight, ~32 KiB per SM; with 4
# stages only 3 slabs of B (3 x 8 KiB) are in flight behind the one being
# multiplied, with 6 stages 5 (40 KiB). 1024 x 1024 x 16384 has the same
# problem with 64-128 programs and a 256-slab loop. The big squares keep the
# builds they were won by (128 x 256 x 64, 3 stages, is unchanged).
#
# The 1-D grid is walked in grouped order (GROUP_M tile rows at a time, column
# by column; problem 22) so that the programs running together share slabs of
# A and B in L2. Row offsets are int64 (M*K can pass 2^31 in general).
#
# The judge calls solve(A, B, C, M, N, K) for every test and benchmark shape
# (once per config), with the problem's tensors, and runs what it launches
# (docs/submission-format.md).
import triton
import triton.language as tl

GROUP_M = 8
STAGES = 6  # the deepest pipeline
SMEM = 147456  # bytes of shared memory the stages may take


def config(bm, bn, bk):
    # 4 warps (8 for 128 x 256), and as many stages as SMEM holds, STAGES at most
    return triton.Config({"BM": bm, "BN": bn, "BK": bk}, num_warps=max(4, bm * bn // 4096),
                         num_stages=min(STAGES, SMEM // ((bm + bn) * bk * 2)))


@triton.autotune(configs=[config(bm, bn, bk) for bm in (64, 128) for bn in (64, 128, 256)
                          for bk in (32, 64)],
                 key=["M", "N", "K"])
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
    m0 = pid_m * BM
    n0 = pid_n * BN

    a_desc = tl.make_tensor_descriptor(A, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(B, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = a_desc.load([m0, k0])  # zeros past M and K
        b = b_desc.load([k0, n0])  # zeros past K and N
        acc = tl.dot(a, b, acc)
    offs_m = m0 + tl.arange(0, BM)
    offs_n = n0 + tl.arange(0, BN)
    c_ptrs = C + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def solve(A, B, C, M, N, K):
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    matmul[grid](A, B, C, M, N, K, GROUP_M=GROUP_M)
