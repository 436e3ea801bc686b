# Fused linear layer, Y = ReLU(X W^T + b): one kernel, the bias and the ReLU
# applied to the fp32 accumulators before the single rounding to fp16.
#
# Each program computes one BM x BN tile of Y. It walks K in BK-wide steps,
# loading a BM x BK block of X and a BN x BK block of W (both contiguous along
# K: 16-byte loads) and accumulating tl.dot(x, tl.trans(w), acc): fp16 inputs,
# an fp32 accumulator, on Hopper's tensor cores (wgmma), with the loads of the
# next num_stages - 1 steps in flight behind the math. Then the epilogue: the
# bias b[j] is added along the columns (bias[None, :]), the ReLU applied, and the
# tile rounded to fp16 once and stored. Y is written once and never read back.
#
# Rows of X and W past the edges are wrapped (% M, % N) onto real rows, so only
# the K tail needs a mask in the loop (other=0.0, which adds nothing); the
# wrapped results fall outside Y and the masked store drops them. Programs run
# in groups of GROUP_M rows of tiles so that the blocks of W they share stay in
# L2. Row offsets are int64.
#
# Tuned: 128 x 128 tiles (4 warps) or 128 x 256 (8 warps), 3 or 4 stages.
#
# @const BM=128
# @tune BN=(128, 256)
# @const BK=64
# @tune STAGES=(3, 4)
# @const GROUP_M=8
# @launch matmul_bias_relu grid=(cdiv(M, BM) * cdiv(N, BN)) num_warps=(BN / 32) num_stages=STAGES args=(X, W, b, Y, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M)
import triton
import triton.language as tl


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

    bias = tl.load(b + rn, mask=rn < N, other=0.0).to(tl.float32)
    out = tl.maximum(acc + bias[None, :], 0.0)
    y_ptrs = Y + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(y_ptrs, out.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))
