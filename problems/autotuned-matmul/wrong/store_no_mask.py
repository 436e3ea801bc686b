# WRONG (Memory Violation): solution.py storing the whole tile without the
# row mask: the rows of a tile that hang below C are written too. On the first
# test (M = 1) a 64-row tile writes 63 rows past the end of C, into the guard
# band.
import triton
import triton.language as tl

GROUP_M = 8
STAGES = 4  # the deepest pipeline
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
    tl.store(c_ptrs, acc.to(tl.float16), mask=offs_n[None, :] < N)


def solve(A, B, C, M, N, K):
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    matmul[grid](A, B, C, M, N, K, GROUP_M=GROUP_M)
