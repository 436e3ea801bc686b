# Negative control: solution.py (128 x 128 tiles) with the bias broadcast along
# the wrong axis: b indexed by the tile's rows i (bias[:, None], loaded at
# b + rm) instead of its columns j. It compiles (both are 128 long), reads only
# inside b (masked to rm < N), and adds b[i] where b[j] belongs: right only on
# the diagonal.
# Expected verdict: Wrong Answer.
import triton
import triton.language as tl

BM, BN, BK = 128, 128, 64
STAGES = 3
GROUP_M = 8


@triton.jit
def matmul_bias_relu(X, W, b, Y, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     GROUP_M: tl.constexpr):
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
    xm = rm % M  # wrapped onto real rows: no mask on M or N in the loop
    wn = rn % N
    x_ptrs = X + xm.to(tl.int64)[:, None] * K + rk[None, :]
    w_ptrs = W + wn.to(tl.int64)[:, None] * K + rk[None, :]

    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        k_ok = rk[None, :] < K - k0
        x = tl.load(x_ptrs, mask=k_ok, other=0.0)
        w = tl.load(w_ptrs, mask=k_ok, other=0.0)
        acc = tl.dot(x, tl.trans(w), acc)
        x_ptrs += BK
        w_ptrs += BK

    bias = tl.load(b + rm, mask=rm < N, other=0.0).to(tl.float32)  # BUG: by row
    out = tl.maximum(acc + bias[:, None], 0.0)  # BUG: along the rows
    y_ptrs = Y + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(y_ptrs, out.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def solve(X, W, b, Y, M, N, K):
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul_bias_relu[grid](X, W, b, Y, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M,
                           num_warps=BN // 32, num_stages=STAGES)
