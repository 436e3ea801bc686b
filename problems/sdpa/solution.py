# Scaled dot-product attention in Triton, fused: O = softmax(scale * Q K^T) V
# without the score matrix in memory (the scratch this problem allows is not
# needed). This is problem 30's kernel, without the log-sum-exp output.
# BLOCK_M is tuned with BLOCK_N (64 to 256 rows), the pipeline is as deep
# as each tile allows, and the tune also holds problem 30's hand-pipelined
# loop.
#
# One program owns BLOCK_M query rows of one (b, h) (see "The order of the
# programs" for which), 16 rows per warp. Its Q tile stays on chip; the keys and
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
# causal is an i32 argument: on a benchmark shape 1 is compiled in as a
# constant (the judge specialises an integer equal to 1 there, as Triton's JIT
# does), otherwise it is a run-time value; either way it only sets the loop
# bounds and the diagonal mask, with tl.where rather than an `if` (a run-time
# `if` must give its variables the same types on both sides, and a size equal
# to 1 is a constant, not an i32).
# HEAD_D = D is a constexpr (one build per head dimension: 16, 32, 64, 128).
# Offsets of (b, h) are int64.
#
# The order of the programs, as in problem 30: the grid is one axis of
# cdiv(Sq, BLOCK_M) * B * H programs, walked GROUP = 8 heads at a time,
# longest query block first within the group (in causal attention the
# longest programs start first, and the running programs share 8 heads'
# K and V in L2).
#
# Why BLOCK_M is tuned. The benchmarks are short: at 128 rows, 1024
# programs on 132 SMs, each walking only 8 (d128) or 16 (d64) key tiles, so
# a program's fixed costs (loading Q, filling the pipeline, the epilogue)
# are a large share, and with one 8-warp program per SM nothing hides them
# (with BLOCK_M fixed at 128, the d64 full shape took 1.45x PyTorch's time
# on the H200; 1.20x with this tuning). With 64 rows (4 warps, one
# warpgroup) there are twice the programs, each with half the registers and
# shared memory, so two share an SM and one's softmax overlaps the other's
# products; with 256 rows (16 warps) a program reads its head's K and V
# once for four times the rows of a 64-row one. num_warps = BLOCK_M / 16.
# The depth of the unmasked loop's pipeline follows the tile size, through
# tl.range(..., num_stages=NS), NS a constexpr of D and BLOCK_N that the
# kernel's @triton.heuristics computes (a config's num_stages cannot depend
# on sizes): 2 stages when a K + V tile pair is 64 KiB (D = 128, 128 keys),
# 3 at 32 KiB, 4 below; every build stays within 160 KiB of shared memory
# (Q, 64 KiB at BM 256 and D 128, plus NS x (K + V)). The configs'
# num_stages=2 applies to the masked loop.
#
# The loop. TEXTBOOK = 1: the loop above. QREG = 1 (TEXTBOOK = 0): problem
# 30's loop, pipelined by hand (the PV product of one tile in flight on the
# tensor cores while the CUDA cores do the next tile's softmax; see problem
# 30's solution.py for why it is safe) with Q in registers (q + 0.0 is not a
# load, so Triton gives the QK wgmma its A operand from registers). The
# autotune lists whole configs, not a product of values, so that only these
# 6 are built:
#   BM 64,  BN 64           BM 64,  BN 128
#   BM 128, BN 64           BM 128, BN 128
#   BM 256, BN 64           BM 64,  BN 64, pipelined, Q in registers
#
# The 8x16x1024 d128 full shape stays over issue 11's bar of 1.25x
# PyTorch's time. Judged on the H200 (2026-12-03): 0.1655 ms against
# PyTorch's 0.1203 (1.38x; 1.40x with the previous tune), the d64 shapes
# 1.21x full and 1.12x causal. Through Triton's JIT the same day (L2
# flushed, median of 20, PyTorch 0.121 ms in the same run), 146 builds
# (two sweeps) of BLOCK_M (64-256), BLOCK_N (32-128), NS (2-4), both
# loops, Q in shared memory or registers, pointer or TMA loads, and maxnreg
# (128 at BM 128 for two programs an SM, 168 at BM 64 for three) all took
# 0.167 ms or more: 0.1667-0.1677 for BM 256 BN 64, 0.1686 for the
# pipelined BM 64 BN 64 build. Nsight Compute says why: the three best
# builds issue 1.37-1.65 instructions a cycle, PyTorch's cuDNN kernel 1.67,
# but they execute 24-43 % more of them (383-442 thousand an SM against 309
# thousand); its tensor pipe is busy 65 % of the time, ours 43-47 %. The
# key loop is 333 instructions a warp for 64 keys, 64 of them the rescale
# of acc; 128-key tiles would halve that share (505 for 128 keys), but on 8
# warps they run slower (0.178 ms at best), spilled or not (TMA loads: 200
# registers, no spills, 0.184 ms): with one program an SM its two
# warpgroups do their softmax and their products at the same time. cuDNN's
# kernel ("..._flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1") is one
# persistent program an SM of three warpgroups (384 threads, 232 KiB of
# shared memory), the FlashAttention-3 shape: a producer and two consumers
# taking turns on the tensor cores, which Triton 3.6 expresses only through
# its warp specialisation, slower here. Rescaling acc only when some row's
# maximum rose by more than 8 (FlashAttention-4's lazy rescale, a
# block-uniform `if`) was slower too: 0.176 ms at BM 256 (the block-wide
# maximum costs a barrier every tile). See docs/speed-of-light.md. That shape
# is within the bar in Gluon, Triton's lower-level language, where the
# warpgroups can take turns: solution_gluon.py (1.13x, judged 2026-12-04).
#
# The judge calls solve(...) for every test and benchmark shape, once per
# config, with the problem's tensors, and runs what it launches; it
# compiles, checks and times every config and keeps the fastest per
# benchmark shape (docs/submission-format.md).
import triton
import triton.language as tl

GROUP = 8  # heads walked together (see "The order of the programs")


def _stages(args):
    """NS, the unmasked loop's pipeline depth, from the head dimension and BLOCK_N."""
    return min(4, 1 + 16384 // (args["HEAD_D"] * args["BLOCK_N"]))


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "QREG": 0, "TEXTBOOK": 1}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "QREG": 0, "TEXTBOOK": 1}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "QREG": 0, "TEXTBOOK": 1}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "QREG": 0, "TEXTBOOK": 1}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 64, "QREG": 0, "TEXTBOOK": 1}, num_warps=16, num_stages=2),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "QREG": 1, "TEXTBOOK": 0}, num_warps=4, num_stages=2),
    ],
    key=["Sq", "Skv", "HEAD_D", "causal"])
@triton.heuristics({"NS": _stages})
@triton.jit
def attn_fwd(Q, K, V, O, scale, causal, Sq, Skv,
             HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             NS: tl.constexpr, QREG: tl.constexpr, TEXTBOOK: tl.constexpr, GROUP: tl.constexpr):
    # program -> (query block, bh): GROUP heads at a time, longest block first
    pid = tl.program_id(0)
    n_m = tl.cdiv(Sq, BLOCK_M)
    n_bh = tl.num_programs(0) // n_m
    group = pid // (GROUP * n_m)
    first_bh = group * GROUP
    gsize = tl.minimum(n_bh - first_bh, GROUP)
    r = pid - group * (GROUP * n_m)
    start_m = (n_m - 1 - r // gsize) * BLOCK_M
    bh = (first_bh + r % gsize).to(tl.int64)
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    k_base = K + bh * Skv * HEAD_D
    v_base = V + bh * Skv * HEAD_D
    q = tl.load(Q + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
                mask=offs_m[:, None] < Sq, other=0.0)
    if QREG:
        q = q + 0.0  # not a load any more: the QK wgmma takes Q from registers
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

    if TEXTBOOK:  # whole tiles that every row of the block sees: no mask
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
    else:
        # the same tiles, pipelined by hand: p16 is the previous tile's P
        # (fp16, relative to m_i), not yet multiplied by V
        p16 = tl.zeros((BLOCK_M, BLOCK_N), tl.float16)
        for start_n in tl.range(0, full_end, BLOCK_N, num_stages=NS):
            rows = start_n + offs_n
            k = tl.load(k_base + rows[:, None] * HEAD_D + offs_d[None, :])
            qk = tl.dot(q, tl.trans(k))
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            alpha = tl.exp2(m_i - m_new)
            # the previous tile's PV, rescaled to m_new: issued, not waited for
            vrows = tl.maximum(start_n - BLOCK_N, 0) + offs_n
            v = tl.load(v_base + vrows[:, None] * HEAD_D + offs_d[None, :])
            acc = tl.dot(p16 * alpha.to(tl.float16)[:, None], v, acc * alpha[:, None])
            # this tile's softmax, while the tensor cores do that PV
            p = tl.exp2(qk * qk_scale - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, 1)
            p16 = p.to(tl.float16)
            m_i = m_new
        # the last pending tile (none if the loop did not run: then p16 = 0)
        vrows = tl.maximum(full_end - BLOCK_N, 0) + offs_n
        v = tl.load(v_base + vrows[:, None] * HEAD_D + offs_d[None, :],
                    mask=vrows[:, None] < Skv, other=0.0)
        acc = tl.dot(p16, v, acc)

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


def solve(Q, K, V, O, scale, causal, B, H, Sq, Skv, D):
    # one axis of cdiv(Sq, BLOCK_M) query blocks x B*H heads: the kernel maps a
    # program to its (query block, head), GROUP heads at a time, longest first
    def grid(META):
        return (triton.cdiv(Sq, META["BLOCK_M"]) * B * H,)

    attn_fwd[grid](Q, K, V, O, scale, causal, Sq, Skv, HEAD_D=D, GROUP=GROUP)
