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
# The tile code is problem 21's: masked BM x BK and BK x BN loads (zeros
# outside the matrices), tl.dot into an fp32 accumulator, one fp16 rounding at
# the masked store; Triton pipelines the K loop (num_stages=4). BK and the
# number of warps are tuned. GROUP_M = 1 arrives as a constant (the judge
# specialises an integer argument equal to 1, as Triton's JIT does): that
# build is the row-major one of the benchmark pair, the same code.
#
# @tune BK=(32, 64)
# @tune WARPS=(4, 8)
# @launch matmul grid=(cdiv(M, 128) * cdiv(N, 128)) num_warps=WARPS num_stages=4 args=(A, B, C, tile_order, M, N, K, GROUP_M, BM=128, BN=128, BK=BK)
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

    offs_m = tile_m * BM + tl.arange(0, BM)
    offs_n = tile_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = A + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    b_ptrs = B + offs_k[:, None].to(tl.int64) * N + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        k_left = K - k * BK
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    c_ptrs = C + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
