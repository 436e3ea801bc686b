# WRONG (Wrong Answer): solution.py giving the last group GROUP_M rows even
# when fewer are left. Its programs compute tiles below the matrix (their
# stores are masked away) and skip real ones, which keep the NaN poison; the
# trace is wrong too. Right only when GROUP_M divides the number of tile rows.
import triton
import triton.language as tl

BM, BN = 128, 128  # the tiles the problem requires


@triton.autotune(configs=[triton.Config({"BK": bk}, num_warps=warps, num_stages=4)
                          for bk in (32, 64) for warps in (4, 8)],
                 key=["M", "N", "K", "GROUP_M"])
@triton.jit
def matmul(A, B, C, tile_order, M, N, K, GROUP_M,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    in_group = pid % (GROUP_M * num_n)
    first_m = (pid // (GROUP_M * num_n)) * GROUP_M
    rows = GROUP_M
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


def solve(A, B, C, tile_order, GROUP_M, M, N, K):
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul[grid](A, B, C, tile_order, M, N, K, GROUP_M, BM=BM, BN=BN)
