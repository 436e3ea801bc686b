# Negative control: solution.py (64 x 64 tiles) whose K loop stops at the last
# whole BK-wide step, range(0, K - BK + 1, BK): the last K % 32 terms of every
# dot product are missing (with K < 32, all of them: C = 0 on 1 x 1 x 1).
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BM, BN, BK = 64, 64, 32
STAGES = 3
GROUP_M = 8


@triton.jit
def sgemm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_m = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    am = rm % M  # wrapped onto real rows: no mask on M or N in the loop
    bn = rn % N
    a_ptrs = A + am.to(tl.int64)[:, None] * K + rk[None, :]
    b_ptrs = B + rk.to(tl.int64)[:, None] * N + bn[None, :]

    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K - BK + 1, BK):  # BUG: drops the K tail
        k_ok = rk < K - k0
        a = tl.load(a_ptrs, mask=k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BK
        b_ptrs += BK * N

    c_ptrs = C + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def solve(A, B, C, M, N, K):
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    sgemm[grid](A, B, C, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M,
                num_warps=BM * BN // 2048, num_stages=STAGES)
