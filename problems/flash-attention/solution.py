# FlashAttention forward in Triton: O = softmax(scale * Q K^T) V and the row
# log-sum-exp, without storing the scores, with the key loop pipelined by
# hand so that the tensor cores and the softmax overlap, the programs run
# longest first a group of heads at a time, and Q optionally in registers.
#
# On the H200 (2026-12-02, PyTorch's F.scaled_dot_product_attention timed in
# the same run): 4x32x8192 d128 full 8.96 ms (1.24x PyTorch's), causal 4.55
# ms (1.29x: over the 1.25x bar), 16x16x4096 d64 full 2.57 ms (1.15x) and
# causal 1.39 ms (1.09x), 1x32x32768 d128 causal 18.2 ms (1.17x). On
# 2026-12-03 the tune gained BLOCK_M 128, BLOCK_N 64, the textbook loop
# (TEXTBOOK = 1: not pipelined by hand, Q in shared memory, NS = 3), which
# Triton's JIT timed at 4.41 ms on the causal 4x32x8192 shape against 4.78-
# 5.10 ms for the hand-pipelined builds (PyTorch 4.08 ms in that run). Judged
# the same day: 9.14 ms full (1.23x), causal 4.42 ms (1.19x, was 1.29x),
# 2.57 / 1.36 ms d64 (1.08x / 1.05x), 32768 causal 17.9 ms (1.17x). The
# previous version (each head's blocks in turn, Q in shared memory) gave
# 9.16, 4.88, 2.63, 1.40 and 18.6 ms. A variant walking all the keys in one
# loop, the diagonal tiles under a run-time `if`, was Wrong Answer there.
#
# One program owns BLOCK_M query rows of one (b, h) (see "The order of the
# programs" for which), 16 rows per warp. Its Q tile stays on chip; the keys and
# values stream through in tiles of BLOCK_N rows. For each tile: the scores
# qk = tl.dot(q, k^T) in fp32, then the online softmax of problem 26 per
# row, in base 2 (the scale and log2(e) folded into one multiply, exp2):
#   m_new = max(m, rowmax(qk)),  p = exp2(qk - m_new),  alpha = exp2(m - m_new)
#   l = l * alpha + rowsum(p),   acc = acc * alpha + tl.dot(p.to(fp16), v)
# At the end O = acc / l (one fp16 rounding) and LSE = (m + log2 l) * ln 2.
#
# Why the loop is pipelined by hand. The unmasked loop is
# software-pipelined so that the second product of one tile runs on
# the tensor cores while the CUDA cores do the softmax of the next
# (FlashAttention-3's "intra-warpgroup overlap"). In the textbook loop each
# iteration is QK (tensor cores) -> softmax (CUDA cores)
# -> PV (tensor cores), and Triton waits for QK right after issuing it, so
# within a warpgroup the tensor cores idle during the softmax: at D = 128
# the exp2/max/sum/rescale work of a 128 x 128 tile is about half the time
# of its two products, which is where the textbook loop lost to PyTorch on
# the d128 full shape (1.37x on the H200; 1.20x with this loop). Here
# iteration j does:
#   qk = Q K_j^T                        (Triton waits for it: wait 0)
#   m_new = max(m, rowmax(qk)), alpha = exp2(m - m_new)
#   acc = acc * alpha + (P_{j-1} * alpha) V_{j-1}      (issued, NOT waited)
#   P_j = exp2(qk - m_new), l = l * alpha + rowsum(P_j)  (overlaps the PV)
# P_{j-1}, kept from the previous iteration relative to the old maximum, is
# rescaled to m_new with the rest of the row: acc and P_{j-1} V_{j-1} are
# then both relative to m_new. Triton keeps the PV wgmma in flight because
# its result is used, in the next iteration, only after that iteration's
# wait 0 (the rule "dotCanBeProperlyAsync", 3b, of its Hopper pipeliner),
# exactly as it does for the textbook loop's PV; what is new is that the
# softmax now sits between the PV's issue and that wait. The rescale of
# P_{j-1} is also what makes this safe: the wgmma's register operand
# (P_{j-1} * alpha) is computed from this iteration's maximum, so it is
# written only after the wait that retired the previous PV, never while a
# wgmma still reads it (carrying P and feeding it directly would make the
# next iteration's P overwrite the registers of an in-flight wgmma, which
# ptxas answers by serialising every wgmma). Cost: BLOCK_N/2 more fp16
# multiplies a row-thread per tile (one HMUL2 per two), and, where a row's
# maximum moved, P rounded to fp16 up to three times (p, alpha, p * alpha)
# instead of once; where it did not move alpha = exp2(0) = 1 exactly and the
# product is exact, which after the first few tiles is almost every row.
# In the first iteration P_{-1} = 0 and the V tile loaded is tile 0 (the
# row index is clamped at 0: any finite V times 0 is 0); after the loop the
# last pending P is flushed with one more PV (masked past Skv, for the case
# where the loop did not run). The loads are pointer loads (cp.async, 16
# bytes a thread): with TMA loads (tensor descriptors) instead, the same loop
# was slower on the H200 (9.31 against 9.09 ms on the d128 full shape).
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
# The order of the programs. The grid is one axis of
# cdiv(Sq, BLOCK_M) * B * H programs; program p maps to (query block, bh)
# so that GROUP = 8 heads are walked together, longest query block first
# within the group (all 8 heads' last blocks, then their second-to-last, ...).
# The hardware starts programs in index order, so this is longest-first
# scheduling within each group: a simulation of greedy dispatch on 132 SMs
# puts the previous order (each head's blocks, longest first, one head after
# another) at 1.4 % over the ideal on the causal 4x32x8192 shape (the last
# head's long blocks start late) and this one at 0.1-0.2 %; on the causal
# 16x16x4096 d64 shape 1.6 % against 0.3 %. Keeping a group to 8 heads keeps
# the K and V that the running programs read (8 x 4 MiB at 8192 x d128)
# within L2; ordering all heads' blocks longest first would make the 132
# running programs read 132 different heads' K and V from DRAM.
#
# Q in registers (QREG). Triton's AccelerateMatmul puts
# the A operand of a Hopper wgmma in shared memory when it comes straight
# from a load (comesFromLoadOrBlockArg) and in registers otherwise
# (convertDotOperandForMMA), so `q = q + 0.0` (not folded: MLIR folds only
# x + -0.0) moves Q to registers: the QK product becomes an RS wgmma like
# the PV one. What it buys: (1) the QK wgmma reads only K from shared
# memory. An SS m64nNk16 wgmma reads 2 KiB of A and N/8 KiB of B per
# 64 * N * 16 * 2 flops; at the SM's 4096 fp16 flops and 128 shared-memory
# bytes per clock, N = 64 (BLOCK_N = 64) needs 128 B a clock, all of the
# bandwidth, before the cp.async writes of the next tiles, which is why
# 64-key tiles lose at D = 128 today; RS at N = 64 needs 64 B. (2) The 32 KiB
# of Q (BM 128, D 128) leave shared memory, so the K/V pipeline gets deeper:
# NS = min(4, 1 + (16384 + 64 * QREG * BLOCK_M) / (D * BLOCK_N)) gives 4
# stages at BLOCK_N = 64 and D = 128 (128 KiB, against 3 stages + Q =
# 128 KiB) and keeps 2 at BLOCK_N = 128 (128 KiB). What it costs: 32 more
# registers a thread at BM = 128 on 8 warps (64 halves of Q). At BLOCK_N =
# 64 a thread holds acc 64 + qk 32 + two P tiles 16 + 16 + Q 32, well under
# 255; at BLOCK_N = 128 it is 64 + 64 + 32 + 32 + 32 and may spill, which is
# why both QREG = 0 and 1 stay in the tune. Only BM = 128 gets QREG = 1.
# The autotune lists whole configs, not a product of values, so that only
# these 7 are built (per config the tests' build of each HEAD_D and the
# benchmark shapes' 4: 42 builds of the 128 a file may have; a Run's 14); the
# loop is the hand-pipelined one with Q in shared memory, or with QREG,
# or TEXTBOOK (problem 27's plain loop, Q in shared memory):
#   BM 64,  BN 64                BM 64,  BN 128
#   BM 128, BN 64                BM 128, BN 128
#   BM 128, BN 64, QREG          BM 128, BN 128, QREG
#   BM 128, BN 64, TEXTBOOK
#
# causal is an i32 argument: on a benchmark shape 1 is compiled in as a
# constant (the judge specialises an integer equal to 1 there, as Triton's JIT
# does), otherwise it is a run-time value; either way it only sets the loop
# bounds and the diagonal mask, with tl.where rather than an `if` (a run-time
# `if` must give its variables the same types on both sides, and a size equal
# to 1 is a constant, not an i32).
# BLOCK_M (64 or 128 rows: 4 or 8 warps) and BLOCK_N are autotuned (with
# QREG and TEXTBOOK: the configs above). The unmasked loop is tl.range(...,
# num_stages=NS), with NS a constexpr that a @triton.heuristics computes
# from D and the config (a config's num_stages cannot depend on sizes): 2
# stages of K and V tiles when a tile pair is 64 KiB (D = 128 with 128-key
# tiles), 3 at 32 KiB, 4 below, so every build stays under about 160 KiB
# of shared memory (Q + NS x (K + V); the QREG builds NS x (K + V) <= 128
# KiB plus the 32 KiB scratch of Q's conversion before the loop); the
# configs' num_stages=2 applies to the masked loop. HEAD_D = D is a
# constexpr (one build per head dimension). Offsets of (b, h) are int64.
#
# The judge calls solve(...) for every test and benchmark shape, once per
# config, with the problem's tensors, and runs what it launches; it
# compiles, checks and times every config and keeps the fastest per
# benchmark shape (docs/submission-format.md).
import triton
import triton.language as tl

GROUP = 8  # heads walked together (see "The order of the programs")


def _stages(args):
    """NS, the unmasked loop's pipeline depth, from the head dimension and the config."""
    tile_pair = args["HEAD_D"] * args["BLOCK_N"]  # a K + V tile pair is 4x this many bytes
    return min(4, 1 + (16384 + 64 * args["QREG"] * args["BLOCK_M"]) // tile_pair)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "QREG": 0, "TEXTBOOK": 0}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "QREG": 0, "TEXTBOOK": 0}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "QREG": 0, "TEXTBOOK": 0}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "QREG": 0, "TEXTBOOK": 0}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "QREG": 1, "TEXTBOOK": 0}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "QREG": 1, "TEXTBOOK": 0}, num_warps=8, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "QREG": 0, "TEXTBOOK": 1}, num_warps=8, num_stages=2),
    ],
    key=["Sq", "Skv", "HEAD_D", "causal"])
@triton.heuristics({"NS": _stages})
@triton.jit
def attn_fwd(Q, K, V, O, LSE, scale, causal, Sq, Skv,
             HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             NS: tl.constexpr, QREG: tl.constexpr, TEXTBOOK: tl.constexpr,
             GROUP: tl.constexpr):
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

    if TEXTBOOK:  # whole tiles that every row sees, the loop not pipelined by hand
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
        # whole tiles that every row of the block sees: no mask. p16 is the
        # previous tile's P (fp16, relative to m_i), not yet multiplied by V
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
    tl.store(LSE + bh * Sq + offs_m, (m_i + tl.log2(l_i)) * 0.6931471805599453, mask=in_q)


def solve(Q, K, V, O, LSE, scale, causal, B, H, Sq, Skv, D):
    # one axis of cdiv(Sq, BLOCK_M) query blocks x B*H heads: the kernel maps a
    # program to its (query block, head), GROUP heads at a time, longest first
    def grid(META):
        return (triton.cdiv(Sq, META["BLOCK_M"]) * B * H,)

    attn_fwd[grid](Q, K, V, O, LSE, scale, causal, Sq, Skv, HEAD_D=D, GROUP=GROUP)
