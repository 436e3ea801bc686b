# WRONG (Wrong Answer): solution.py with the causal mask off by one: key j
# visible to row i only when j < i, so the diagonal is hidden. Row 0 then sees
# no key at all (its maximum stays -inf and its output is NaN); every other
# row misses its own key. The first causal test fails.
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=3),
                          triton.Config({"BLOCK_M": 64, "BLOCK_N": 128}, num_warps=4, num_stages=2),
                          triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3),
                          triton.Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_warps=8, num_stages=2)],
                 key=["Sq", "Skv", "HEAD_D", "causal"])
@triton.jit
def attn_fwd(Q, K, V, O, LSE, scale, causal, Sq, Skv,
             HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
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
    for start_n in range(0, full_end, BLOCK_N):
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
        visible = (rows[None, :] < Skv) & ((causal == 0) | (rows[None, :] < offs_m[:, None]))
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
    grid = lambda meta: (triton.cdiv(Sq, meta["BLOCK_M"]), B * H)
    attn_fwd[grid](Q, K, V, O, LSE, scale, causal, Sq, Skv, HEAD_D=D)
