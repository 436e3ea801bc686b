# Scaled dot-product attention in Triton, fused: O = softmax(scale * Q K^T) V
# without the score matrix in memory (the scratch this problem allows is not
# needed). This is problem 30's kernel, without the log-sum-exp output.
# BLOCK_M is tuned with BLOCK_N (64-row blocks too), and the pipeline is as
# deep as each tile allows.
#
# One program owns BLOCK_M query rows of one (b, h) (grid axis 1 is
# b * H + h), 16 rows per warp. Its Q tile stays on chip; the keys and
# values stream through in tiles of BLOCK_N rows. For each tile: the scores
# qk = tl.dot(q, k^T) in fp32, then the online softmax of problem 26 per
# row, in base 2 (the scale and log2(e) folded into one multiply, exp2):
#   m_new = max(m, rowmax(qk)),  p = exp2(qk - m_new),  alpha = exp2(m - m_new)
#   l = l * alpha + rowsum(p),   acc = acc * alpha + tl.dot(p.to(fp16), v)
# and at the end O = acc / l, rounded once to fp16. P rounded to fp16 for the
# second product costs at most 2^-11 of sum_j p_ij |V_jd|: a quarter of the
# tolerance's allowance. The scores themselves stay fp32.
#
# The keys are walked in two loops. The first covers whole tiles that every
# row of the block sees: no mask at all (all of [0, Skv) rounded down to a
# tile; when causal, only the keys before the block's first row). The second
# covers the rest: the ragged last tile of keys (masked past Skv, zeros
# loaded so that 0 * V stays 0) and, when causal, the diagonal tiles (key j
# visible to row i when j <= i); tiles above the diagonal are never loaded.
# The first tile a row sees always holds a visible key (key 0 or a whole
# unmasked tile), so its running maximum is finite from then on and a fully
# masked later tile gives p = exp2(-inf) = 0, never NaN.
#
# causal is an i32 argument: 1 is compiled in as a constant (the judge
# specialises an integer equal to 1, as Triton's JIT does), 0 is a run-time
# value; either way it only sets the loop bounds and the diagonal mask, with
# tl.where rather than an `if` (a run-time `if` must give its variables the
# same types on both sides, and a size equal to 1 is a constant, not an i32).
# The programs run in reverse order of their query blocks, so in causal
# attention the longest ones start first. HEAD_D = D is a constexpr (one
# build per head dimension: 16, 32, 64, 128). Offsets of (b, h) are int64.
#
# Why BLOCK_M is tuned too. The benchmarks are short: 1024
# programs of 128 rows on 132 SMs, each walking only 8 (d128) or 16 (d64) key
# tiles, so a program's fixed costs (loading Q, filling the pipeline, the
# epilogue) are a large share, and with one 8-warp program per SM nothing
# hides them (with BLOCK_M fixed at 128, the d64 full shape took 1.45x
# PyTorch's time on the H200; 1.20x with this tuning). So BLOCK_M is tuned, as in problem 30 and Triton's tutorial 06 (num_warps =
# BLOCK_M / 16: 64 rows on 4 warps, one warpgroup): twice the programs, each
# with half the registers and shared memory (64 x 64 tiles: about 72 KiB at
# d64, 112 KiB at d128 with the depths below), so two can share an SM and
# one's start overlaps the other's loop. And the depth of the unmasked loop's
# pipeline now follows the tile size, through tl.range(..., num_stages=NS)
# with NS a keyword argument of D and BLOCK_N (the kernel's num_stages may not
# depend on sizes): 2 stages when a K + V tile pair is 64 KiB (D = 128, 128
# keys), 3 at 32 KiB, 4 below, every build under about 160 KiB; the launch's
# num_stages=2 applies to the masked loop (one or two tiles).
#
# What did not help on the 8x16x1024 d128 full shape (H200, 2026-12-03,
# each configuration launched through Triton's JIT, L2 flushed, against
# PyTorch's 0.122 ms): this kernel takes 0.172 ms at 64 x 64 (1.41x), 0.173
# at 128 x 64, 0.210 at 128 x 128, 0.264 at 64 x 128; problem 30's
# hand-pipelined loop with Q in registers (under HEAD_D >= 64) 0.176-0.253
# (1.44x at best; judged, 1.44x against this file's 1.40x); K, V and Q through
# tensor descriptors (TMA) 0.216 ms, and with Triton's automatic warp
# specialisation of the key loop 0.223 ms on 8 warps, while no 4-warp build
# compiled (Triton 3.6: "PassManager::run failed").
#
# @tune BLOCK_M=(64, 128)
# @tune BLOCK_N=(64, 128)
# @launch attn_fwd grid=(cdiv(Sq, BLOCK_M), B * H) num_warps=BLOCK_M/16 num_stages=2 args=(Q, K, V, O, scale, causal, Sq, Skv, HEAD_D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, NS=min(4, 1+16384/(D*BLOCK_N)))
import triton
import triton.language as tl


@triton.jit
def attn_fwd(Q, K, V, O, scale, causal, Sq, Skv,
             HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             NS: tl.constexpr):
    start_m = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M
    bh = tl.program_id(1).to(tl.int64)
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    k_base = K + bh * Skv * HEAD_D
    v_base = V + bh * Skv * HEAD_D
    q = tl.load(Q + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
                mask=offs_m[:, None] < Sq, other=0.0)
    qk_scale = scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x * log2(e))

    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)

    # causal: the block's rows start_m .. start_m + BLOCK_M - 1 see keys up to
    # their own index, so every key before start_m (whole tiles of them go to
    # the unmasked loop), none after the block
    is_causal = causal != 0
    full_end = tl.minimum((Skv // BLOCK_N) * BLOCK_N,
                          tl.where(is_causal, (start_m // BLOCK_N) * BLOCK_N, Skv))
    tail_end = tl.minimum(Skv, tl.where(is_causal, start_m + BLOCK_M, Skv))

    # whole tiles that every row of the block sees: no mask
    for start_n in tl.range(0, full_end, BLOCK_N, num_stages=NS):
        rows = start_n + offs_n
        k = tl.load(k_base + rows[:, None] * HEAD_D + offs_d[None, :])
        qk = tl.dot(q, tl.trans(k))
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.exp2(qk * qk_scale - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + rows[:, None] * HEAD_D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new

    # the ragged last tile and the diagonal tiles: masked
    for start_n in range(full_end, tail_end, BLOCK_N):
        rows = start_n + offs_n
        k = tl.load(k_base + rows[:, None] * HEAD_D + offs_d[None, :],
                    mask=rows[:, None] < Skv, other=0.0)
        visible = (rows[None, :] < Skv) & ((causal == 0) | (rows[None, :] <= offs_m[:, None]))
        qk = tl.where(visible, tl.dot(q, tl.trans(k)) * qk_scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + rows[:, None] * HEAD_D + offs_d[None, :],
                    mask=rows[:, None] < Skv, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new

    in_q = offs_m < Sq
    o = acc / l_i[:, None]
    tl.store(O + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
             o.to(tl.float16), mask=in_q[:, None])
