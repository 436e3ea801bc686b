# Scaled dot-product attention in Gluon (triton.experimental.gluon, Triton's
# lower-level language: explicit layouts, shared memory, barriers and warp
# specialisation), the FlashAttention-3 shape on Hopper:
#   O = softmax(scale * Q K^T) V, fused, as in solution.py.
#
# Why a second Triton solution. solution.py, in Triton's own language, stays at
# 1.38x PyTorch's time on the 8x16x1024 d128 full shape (docs/speed-of-light.md,
# fifth round): its warpgroups wait at the same barriers, so their softmax and
# their products do not overlap. This kernel is persistent: at most one
# program per SM (solve asks torch.cuda.get_device_properties(0), as Triton's
# persistent tutorials do; the judge answers with its worker GPU's count, 132
# on the H200, so the plan is the one measured below), each walking work
# items item = pid, pid + 132, ..., an item being 2 x BM query rows of one
# (b, h) (within a head, the longest item first: it matters when causal). A
# program runs three partitions at once
# (gl.warp_specialize):
#   - a 1-warp loader issues TMA copies: an item's two Q tiles, then its K and
#     V tiles, BN keys each, into a STAGES-deep ring of shared memory. K and V
#     have their own "ready" barriers, so S = Q K^T starts before V lands; a
#     ring slot is reused once both consumers arrived on its "empty" barrier
#     (count 2), a Q tile once its consumer has done the item's last Q K^T;
#   - two consumer warpgroups (the default partition and a 4-warp worker), each
#     owning BM = 64 rows, with S and O in wgmma accumulators (fp32) and P
#     handed to the P V wgmma from registers (fp16). Each is pipelined by hand
#     (FlashAttention-3's intra-warpgroup overlap): the next tile's Q K^T is
#     issued before this tile's P V, and the next tile's softmax runs while
#     that P V is on the tensor cores. The two warpgroups drift apart freely,
#     so one's softmax overlaps the other's products.
# The loader needs few registers (24); the consumers get 240 each: with
# maxnreg=168 in every config, 12 warps x 168 fit one program an SM.
# Every barrier's phase counts over the program's whole walk (c key tiles and
# j items so far), in the loader and in the consumers alike.
#
# The online softmax, per row, in base 2 (scale and log2(e) folded into one
# multiply; scale > 0, as in every case of this problem, so max(qk) * scale is
# the maximum of the scaled scores):
#   m_new = max(m, rowmax(qk) * qk_scale),  p = exp2(qk * qk_scale - m_new)
#   alpha = exp2(m - m_new),  l = l * alpha + rowsum(p),  acc = acc * alpha + p V
# and O = acc / l, rounded once to fp16.
#
# Ragged sizes. Q, K and V are read through device-side tensor descriptors of
# the whole [B*H*S, D] matrices (made once a program: a descriptor costs a
# write to global memory and a fence, too much for every item). A tile
# crossing the end of a head reads the next head's rows, and TMA fills rows
# past the matrix's end with zeros; so the scores need a mask wherever a key is
# invisible to some row of the warpgroup (keys past Skv, and when causal the
# keys past a row's own index: key j visible to row i when j <= i), and O is
# stored from registers with rows past Sq masked off. A tile needs the mask
# when its last key is past its first row's limit, min(Skv, causal ? r0 + 1 :
# Skv); the loops over the tiles that need none and those that need it are
# separate (a branch between a wgmma and its wait would make ptxas serialise
# the wgmmas). Every row sees key 0, so its running maximum is finite after
# the first tile and a fully masked later tile gives p = exp2(-inf) = 0, never
# NaN. When causal an item walks keys up to its last row; its first
# warpgroup's last tile is then fully masked (the cost of one shared ring).
#
# The autotune: BN (keys per tile) and STAGES, three configs (64 x 3,
# 128 x 2, 128 x 3). BN 128 halves the rescale of acc per key against BN 64;
# three stages need 224 KiB of shared memory at D = 128. On the H200 through
# Triton's JIT (2026-12-04, L2 flushed, median of 20, against
# F.scaled_dot_product_attention in the same run), BN 128 with 3 stages was
# the fastest on every benchmark shape: 8x16x1024 d128 full 0.1373 ms
# (1.14x, against solution.py's 1.38x), 4x16x2048 d64 full 0.1717 ms
# (1.10x), causal 0.1198 ms (1.18x); without the cap on the grid (one
# program an item) 1.39x, 1.35x and 1.48x: each program then pays for its
# descriptors. Judged the same day
# (scripts/triton-speed.py --judge): 0.1382 ms against PyTorch's 0.1220
# (1.13x), 0.1732 / 0.1561 (1.11x), 0.1222 / 0.1020 (1.20x).
#
# The judge calls solve(...) for every test and benchmark shape, once per
# config, with the problem's tensors, and runs what it launches; it
# compiles, checks and times every config and keeps the fastest per
# benchmark shape (docs/submission-format.md).
import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared, mbarrier, tma, warpgroup_mma, warpgroup_mma_wait)

BM = gl.constexpr(64)  # query rows per consumer warpgroup (one wgmma M tile)


@gluon.jit
def _work_item(item, n_m, Sq, Skv, causal, BN: gl.constexpr):
    """(bh, q0, n_tiles) of work item `item`: the 2 x BM query rows of head bh
    from q0, and the key tiles they need (all, or when causal up to their last
    row). Within a head the longest item comes first."""
    bh = item // n_m
    q0 = (n_m - 1 - item % n_m) * (2 * BM)
    n_tiles = gl.cdiv(gl.minimum(Skv, gl.where(causal != 0, q0 + 2 * BM, Skv)), BN)
    return bh, q0, n_tiles


@gluon.jit
def _loader(q_desc, k_desc, v_desc, bufs, bars, sizes, O, qk_scale):
    q_smem, k_bufs, v_bufs = bufs
    q_ready, q_empty, k_ready, v_ready, kv_empty = bars
    n_m, n_items, Sq, Skv, causal = sizes
    BN: gl.constexpr = k_desc.block_type.shape[0]
    STAGES: gl.constexpr = k_bufs.type.shape[0]
    c = 0  # key tiles loaded so far, over all of this program's items
    j = 0  # items so far
    for item in range(gl.program_id(0), n_items, gl.num_programs(0)):
        bh, q0, n_tiles = _work_item(item, n_m, Sq, Skv, causal, BN)
        for w in gl.static_range(2):
            mbarrier.wait(q_empty.index(w), (j & 1) ^ 1)  # free from the start
            mbarrier.expect(q_ready.index(w), q_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(q_desc, [bh * Sq + q0 + w * BM, 0], q_ready.index(w),
                                            q_smem.index(w))
        for i in range(n_tiles):
            s = c % STAGES
            mbarrier.wait(kv_empty.index(s), ((c // STAGES) & 1) ^ 1)
            mbarrier.expect(k_ready.index(s), k_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(k_desc, [bh * Skv + i * BN, 0], k_ready.index(s), k_bufs.index(s))
            mbarrier.expect(v_ready.index(s), v_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(v_desc, [bh * Skv + i * BN, 0], v_ready.index(s), v_bufs.index(s))
            c += 1
        j += 1


@gluon.jit
def _softmax(qk, m_i, l_i, t, r0, Skv, causal, qk_scale, MASK: gl.constexpr, BN: gl.constexpr,
             s_layout: gl.constexpr):
    """Key tile t's online-softmax step: (P in fp32, alpha, m_new, l_new). MASK:
    hide the keys past Skv and, when causal, past each row's own index."""
    if MASK:
        rows = r0 + gl.arange(0, BM, gl.SliceLayout(1, s_layout))
        keys = t * BN + gl.arange(0, BN, gl.SliceLayout(0, s_layout))
        limit = gl.minimum(gl.where(causal != 0, rows + 1, Skv), Skv)
        qk = gl.where(keys[None, :] < limit[:, None], qk, float("-inf"))
    m_new = gl.maximum(m_i, gl.max(qk, axis=1) * qk_scale)
    alpha = gl.exp2(m_i - m_new)
    p = gl.exp2(qk * qk_scale - m_new[:, None])
    return p, alpha, m_new, l_i * alpha + gl.sum(p, axis=1)


@gluon.jit
def _step(q, k_bufs, v_bufs, k_ready, v_ready, kv_empty, acc, p16, alpha, m_i, l_i, t, g, r0, Skv,
          causal, qk_scale, MASK: gl.constexpr, s_layout: gl.constexpr, p_layout: gl.constexpr,
          o_rows: gl.constexpr):
    """Key tile t's (ring slot g's) Q K^T and softmax while tile t-1's P V runs.
    No branch in here: ptxas keeps a wgmma asynchronous only when no branch
    falls between it and its wait."""
    BN: gl.constexpr = k_bufs.type.shape[1]
    STAGES: gl.constexpr = k_bufs.type.shape[0]
    s = g % STAGES
    sp = (g - 1) % STAGES
    mbarrier.wait(k_ready.index(s), (g // STAGES) & 1)
    zero_s = gl.zeros([BM, BN], gl.float32, s_layout)
    qk = warpgroup_mma(q, k_bufs.index(s).permute((1, 0)), zero_s, use_acc=False, is_async=True)
    acc = acc * gl.convert_layout(alpha, o_rows)[:, None]
    mbarrier.wait(v_ready.index(sp), ((g - 1) // STAGES) & 1)
    acc = warpgroup_mma(p16, v_bufs.index(sp), acc, is_async=True)
    qk = warpgroup_mma_wait(1, deps=(qk, ))  # Q K^T done; P V may still run
    p, alpha, m_i, l_i = _softmax(qk, m_i, l_i, t, r0, Skv, causal, qk_scale, MASK, BN, s_layout)
    acc = warpgroup_mma_wait(0, deps=(acc, ))
    mbarrier.arrive(kv_empty.index(sp), count=1)  # slot sp's K and V are read
    return acc, gl.convert_layout(p.to(gl.float16), p_layout), alpha, m_i, l_i


@gluon.jit
def _consumer(q_desc, k_desc, v_desc, bufs, bars, sizes, O, qk_scale, WG: gl.constexpr):
    q_smem, k_bufs, v_bufs = bufs
    q_ready, q_empty, k_ready, v_ready, kv_empty = bars
    n_m, n_items, Sq, Skv, causal = sizes
    HEAD_D: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    STAGES: gl.constexpr = k_bufs.type.shape[0]
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HEAD_D, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    o_rows: gl.constexpr = gl.SliceLayout(1, o_layout)
    q = q_smem.index(WG)
    c = 0  # key tiles consumed so far, over all of this program's items
    j = 0
    for item in range(gl.program_id(0), n_items, gl.num_programs(0)):
        bh, q0, n_tiles = _work_item(item, n_m, Sq, Skv, causal, BN)
        r0 = q0 + WG * BM
        # tiles 0 .. n_full-1 hold no key invisible to any row of this
        # warpgroup: the first row's limit bounds them all
        n_full = gl.minimum(gl.minimum(Skv, gl.where(causal != 0, r0 + 1, Skv)) // BN, n_tiles)
        m_i = gl.full([BM], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
        l_i = gl.full([BM], 0.0, gl.float32, gl.SliceLayout(1, s_layout))
        acc = gl.zeros([BM, HEAD_D], gl.float32, o_layout)
        mbarrier.wait(q_ready.index(WG), j & 1)

        # key tile 0: scores and softmax (nothing in flight: a branch is free)
        s = c % STAGES
        mbarrier.wait(k_ready.index(s), (c // STAGES) & 1)
        qk = warpgroup_mma(q, k_bufs.index(s).permute((1, 0)), gl.zeros([BM, BN], gl.float32, s_layout),
                           use_acc=False, is_async=True)
        qk = warpgroup_mma_wait(0, deps=(qk, ))
        if n_full > 0:
            p, alpha, m_i, l_i = _softmax(qk, m_i, l_i, 0, r0, Skv, causal, qk_scale, False, BN, s_layout)
        else:
            p, alpha, m_i, l_i = _softmax(qk, m_i, l_i, 0, r0, Skv, causal, qk_scale, True, BN, s_layout)
        p16 = gl.convert_layout(p.to(gl.float16), p_layout)
        for t in range(1, n_full):
            acc, p16, alpha, m_i, l_i = _step(q, k_bufs, v_bufs, k_ready, v_ready, kv_empty, acc, p16, alpha,
                                              m_i, l_i, t, c + t, r0, Skv, causal, qk_scale, False, s_layout,
                                              p_layout, o_rows)
        for t in range(gl.maximum(n_full, 1), n_tiles):
            acc, p16, alpha, m_i, l_i = _step(q, k_bufs, v_bufs, k_ready, v_ready, kv_empty, acc, p16, alpha,
                                              m_i, l_i, t, c + t, r0, Skv, causal, qk_scale, True, s_layout,
                                              p_layout, o_rows)
        mbarrier.arrive(q_empty.index(WG), count=1)  # every Q K^T of the item is done
        # the last key tile's P V
        g = c + n_tiles - 1
        acc = acc * gl.convert_layout(alpha, o_rows)[:, None]
        mbarrier.wait(v_ready.index(g % STAGES), (g // STAGES) & 1)
        acc = warpgroup_mma(p16, v_bufs.index(g % STAGES), acc, is_async=True)
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.arrive(kv_empty.index(g % STAGES), count=1)
        c += n_tiles
        j += 1

        # O = acc / l, rows past Sq dropped (they hold the next head's rows)
        o = (acc / gl.convert_layout(l_i, o_rows)[:, None]).to(gl.float16)
        rows = r0 + gl.arange(0, BM, o_rows)
        cols = gl.arange(0, HEAD_D, gl.SliceLayout(0, o_layout))
        ptrs = O + (bh * Sq + rows).to(gl.int64)[:, None] * HEAD_D + cols[None, :]
        gl.store(ptrs, o, mask=(rows < Sq)[:, None])


@gluon.jit
def _consumer0(q_desc, k_desc, v_desc, bufs, bars, sizes, O, qk_scale):
    _consumer(q_desc, k_desc, v_desc, bufs, bars, sizes, O, qk_scale, 0)


@gluon.jit
def _consumer1(q_desc, k_desc, v_desc, bufs, bars, sizes, O, qk_scale):
    _consumer(q_desc, k_desc, v_desc, bufs, bars, sizes, O, qk_scale, 1)


@triton.autotune(configs=[triton.Config({"BN": 64, "STAGES": 3}, num_warps=4, maxnreg=168),
                          triton.Config({"BN": 128, "STAGES": 2}, num_warps=4, maxnreg=168),
                          triton.Config({"BN": 128, "STAGES": 3}, num_warps=4, maxnreg=168)],
                 key=["Sq", "Skv", "HEAD_D", "causal"])
@gluon.jit
def attn_fwd(Q, K, V, O, scale, causal, Sq, Skv, BH,
             HEAD_D: gl.constexpr, BN: gl.constexpr, STAGES: gl.constexpr):
    # Q, K and V as [BH * S, D] matrices: one descriptor each for every item
    q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BM, HEAD_D], gl.float16)
    kv_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BN, HEAD_D], gl.float16)
    q_desc = tma.make_tensor_descriptor(Q, [BH * Sq, HEAD_D], [HEAD_D, 1], [BM, HEAD_D], q_layout)
    k_desc = tma.make_tensor_descriptor(K, [BH * Skv, HEAD_D], [HEAD_D, 1], [BN, HEAD_D], kv_layout)
    v_desc = tma.make_tensor_descriptor(V, [BH * Skv, HEAD_D], [HEAD_D, 1], [BN, HEAD_D], kv_layout)
    n_m = gl.cdiv(Sq, 2 * BM)
    qk_scale = scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x * log2(e))

    q_smem = gl.allocate_shared_memory(gl.float16, [2, BM, HEAD_D], q_layout)
    k_bufs = gl.allocate_shared_memory(gl.float16, [STAGES, BN, HEAD_D], kv_layout)
    v_bufs = gl.allocate_shared_memory(gl.float16, [STAGES, BN, HEAD_D], kv_layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    kv_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for w in gl.static_range(2):
        mbarrier.init(q_ready.index(w), count=1)
        mbarrier.init(q_empty.index(w), count=1)
    for s in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(s), count=1)
        mbarrier.init(v_ready.index(s), count=1)
        mbarrier.init(kv_empty.index(s), count=2)  # both consumer warpgroups release a slot
    fence_async_shared()

    args = (q_desc, k_desc, v_desc, (q_smem, k_bufs, v_bufs), (q_ready, q_empty, k_ready, v_ready, kv_empty),
            (n_m, n_m * BH, Sq, Skv, causal), O, qk_scale)
    gl.warp_specialize([(_consumer0, args), (_consumer1, args), (_loader, args)], [4, 1], [240, 24])


def solve(Q, K, V, O, scale, causal, B, H, Sq, Skv, D):
    items = triton.cdiv(Sq, 2 * 64) * B * H  # work items of 2 x BM = 128 query rows
    num_sms = torch.cuda.get_device_properties(0).multi_processor_count  # 132 on the H200
    attn_fwd[(min(items, num_sms),)](Q, K, V, O, scale, causal, Sq, Skv, B * H, HEAD_D=D)
