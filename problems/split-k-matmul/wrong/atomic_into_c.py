# WRONG (Wrong Answer): solution.py adding the partial tiles straight into C
# (launch 1 given C instead of the scratch buffer, no copy launch). C is not
# zeroed before a run but filled with NaN, and NaN + x is NaN: every output is
# NaN. Only scratch buffers (torch.zeros / torch.empty in solve) start at zero.
import triton
import triton.language as tl

BN, BK = 128, 64


@triton.autotune(configs=[triton.Config({"SPLIT_K": split_k, "BM": bm}, num_warps=4, num_stages=4)
                          for split_k in (8, 16, 64, 256) for bm in (64, 128)],
                 key=["M", "N", "K"])
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


def solve(A, B, C, M, N, K):
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]), meta["SPLIT_K"])
    matmul_split[grid](A, B, C, M, N, K, BN=BN, BK=BK)  # BUG: adds into C, which is NaN
