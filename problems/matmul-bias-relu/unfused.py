# Unfused, for calibration: solution.py's tensor-core matmul (128 x 128 tiles)
# writes the fp32 pre-activation X W^T to a scratch buffer (4MN bytes), and a
# second kernel reads it back, adds the bias, applies the ReLU and rounds to
# fp16. As correct as the fused kernel (the intermediate stays fp32: still one
# rounding to fp16), but it moves 4MN + 4MN + 2MN bytes for the output instead
# of 2MN: on 16384 x 16384 x 256 about 2.5 GB instead of 0.5 GB. It brackets
# the "fused-epilogue" goal from below (the Triton twin of unfused.cu).
# Control: must be Accepted.
import torch
import triton
import triton.language as tl

BM, BN, BK = 128, 128, 64
STAGES = 3
GROUP_M = 8
BLOCK = 1024  # bias_relu


@triton.jit
def matmul_bias_relu(X, W, pre, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
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

    p_ptrs = pre + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(p_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bias_relu(pre, b, Y, MN, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN  # M * N, passed as i64 when it does not fit in 32 bits
    s = tl.load(pre + offs, mask=mask, other=0.0)
    bias = tl.load(b + offs % N, mask=mask, other=0.0).to(tl.float32)
    tl.store(Y + offs, tl.maximum(s + bias, 0.0).to(tl.float16), mask=mask)


def solve(X, W, b, Y, M, N, K):
    pre = torch.empty(M * N, dtype=torch.float32, device=X.device)  # X W^T, in fp32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul_bias_relu[grid](X, W, pre, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M,
                           num_warps=BN // 32, num_stages=STAGES)
    bias_relu[(triton.cdiv(M * N, BLOCK),)](pre, b, Y, M * N, N, BLOCK=BLOCK, num_warps=4)
