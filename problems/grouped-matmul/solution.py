# Grouped program-id matmul in Triton: C = A B (fp16, fp32 accumulation), one
# program per 128 x 128 tile of C on a 1-D grid, visiting the tiles in the
# grouped order GROUP_M (a kernel argument, set by each test) gives, and
# recording in tile_order which tile each program computed.
#
# The mapping: groups of GROUP_M tile rows; inside a group the programs walk
# the tiles column by column (rows fastest); the last group has only the
# num_m - first_m rows that are left. So a wave of resident programs covers
# GROUP_M rows of A and a few columns of B, which fit in L2 together, instead
# of (row-major, GROUP_M = 1) about two rows of tiles and *all* of B.
#
# The tile code is problem 21's, with the loads done by the TMA: a tensor
# descriptor per operand (tl.make_tensor_descriptor, A as [M, K] with strides
# [K, 1], B as [K, N] with strides [N, 1]) and a_desc.load([m0, k0]), one bulk
# copy of a whole BM x BK (BK x BN) box into shared memory, in the swizzled
# layout wgmma reads, completed on an mbarrier; the hardware fills the parts
# past M, N or K with zeros (which add nothing), so the loop has no masks and
# no pointer tensors. tl.dot accumulates in fp32, the tile is rounded to fp16
# once at the masked store; Triton pipelines the K loop. GROUP_M = 1 arrives
# as a constant (the judge specialises an integer argument equal to 1, as
# Triton's JIT does): that build is the row-major one of the benchmark pair,
# the same code.
#
# Why the TMA: the cp.async loads of problem 21 make every thread
# compute and carry the addresses of its 16-byte chunks and issue its share
# of the copies, in the warps that also feed the tensor cores; a TMA copy is
# one instruction per box and frees those registers and issue slots (the
# loads of Triton's fastest Hopper matmuls, tutorial 09). The TMA needs row
# strides that are multiples of 16 bytes: N and K are multiples of 8 here, so
# 2N and 2K bytes are; the box's inner side is at least 64 bytes. The
# descriptors live in a small global scratch that Triton asks for. Also new:
# the pipeline depth is tuned (3 or 4 stages): at 3 stages a 128 x 128 x 64
# build needs 96 KiB of shared memory and two programs can share an SM, one's
# epilogue overlapping the other's main loop.
#
# @tune BK=(32, 64)
# @tune WARPS=(4, 8)
# @tune STAGES=(3, 4)
# @launch matmul grid=(cdiv(M, 128) * cdiv(N, 128)) num_warps=WARPS num_stages=STAGES args=(A, B, C, tile_order, M, N, K, GROUP_M, BM=128, BN=128, BK=BK)
import triton
import triton.language as tl


@triton.jit
def matmul(A, B, C, tile_order, M, N, K, GROUP_M,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    in_group = pid % (GROUP_M * num_n)
    first_m = (pid // (GROUP_M * num_n)) * GROUP_M
    rows = tl.minimum(num_m - first_m, GROUP_M)  # the last group may be shorter
    tile_m = first_m + in_group % rows
    tile_n = in_group // rows
    tl.store(tile_order + pid, tile_m * num_n + tile_n)

    m0 = tile_m * BM
    n0 = tile_n * BN
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
