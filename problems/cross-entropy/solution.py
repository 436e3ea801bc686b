# Mean cross-entropy, fused: each logit is read once, the exponentials are cheap.
#
# ce_rows gives each row a program. The row is read as [BLOCK / 8, 8] blocks:
# each group of 8 consecutive logits (one 16-byte load) belongs to one lane,
# which keeps a running maximum m and a running sum s of exp(z - m) for its
# groups (online log-sum-exp). A group costs one maximum over its 8 logits, one
# rescale of s (s * exp(m_old - m_new)) and 8 exponentials: 1.125 exp2 per logit
# instead of the 2 of a per-logit online update, with exp(x) = exp2(x * log2 e)
# and z - m exact for bf16 values. At the end the lanes merge their (m, s) pairs
# (the row maximum M, S = sum of s * exp(m - M)) and the row's loss is
# M + log(S) - z[t]; ignored rows store 0.
#
# 16-byte loads need 16-byte aligned addresses, and a row of V logits starts
# 2 * row * V bytes into Z: with V = 50257 most rows do not. So the row is cut at
# its first 8-aligned logit b0: a masked head block for the (at most 7) logits
# before it, whole blocks from b0 with no mask at all (tl.multiple_of(b0, 8)
# tells Triton that b0 is a multiple of 8, so the loads are vectorised), and a
# masked tail block. Masked lanes load -inf, the neutral value of a maximum,
# whose exponential adds 0; the running maxima start at -1e30, not -inf, so
# that m_old - m_new is never -inf - -inf = NaN.
#
# ce_mean, one program, adds the row losses (in a scratch buffer of M floats)
# and counts the rows whose target is not ignore_index; 0 / 0 = NaN when every
# row is ignored, as PyTorch.
#
# ce_rows's BLOCK (2048 or 4096) and num_warps (4 or 8) are autotuned: the
# judge checks and times the four configs and keeps the fastest per shape.
#
# The judge calls solve(Z, t, loss, ignore_index, M, V) for every test and
# benchmark shape, with the problem's tensors, and runs what it launches
# (docs/submission-format.md).
import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def online_update(m, s, z):
    # m, s: [G] running maximum and sum of exp(z - m) of each lane's groups;
    # z: [G, 8] fp32 logits (-inf where masked)
    m_new = tl.maximum(m, tl.max(z, axis=1))
    s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((z - m_new[:, None]) * LOG2E), axis=1)
    return m_new, s


@triton.autotune(configs=[triton.Config({'BLOCK': 2048}, num_warps=4),
                          triton.Config({'BLOCK': 2048}, num_warps=8),
                          triton.Config({'BLOCK': 4096}, num_warps=4),
                          triton.Config({'BLOCK': 4096}, num_warps=8)],
                 key=['M', 'V'])
@triton.jit
def ce_rows(Z, t, row_loss, ignore_index, M, V, BLOCK: tl.constexpr):
    G: tl.constexpr = BLOCK // 8
    row = tl.program_id(0)
    a0 = row.to(tl.int64) * V  # the row is Z[a0 : a1]
    a1 = a0 + V
    b0 = tl.minimum((a0 + 7) // 8 * 8, a1)  # its first 8-aligned logit
    n_body = (a1 - b0) // BLOCK * BLOCK  # logits in whole aligned blocks
    offs = tl.arange(0, G)[:, None] * 8 + tl.arange(0, 8)[None, :]  # [G, 8], contiguous

    m = tl.full((G,), -1e30, dtype=tl.float32)
    s = tl.zeros((G,), dtype=tl.float32)
    # head: the (at most 7) logits before b0, in the block's first group
    idx = b0 - 8 + offs
    z = tl.load(Z + idx, mask=(idx >= a0) & (idx < b0), other=float("-inf")).to(tl.float32)
    m, s = online_update(m, s, z)
    # body: whole blocks, 16-byte aligned, no mask
    z_body = Z + tl.multiple_of(b0, 8)
    for k in range(0, n_body, BLOCK):
        z = tl.load(z_body + k + offs).to(tl.float32)
        m, s = online_update(m, s, z)
    # tail: the rest of the row
    idx = b0 + n_body + offs
    z = tl.load(Z + idx, mask=idx < a1, other=float("-inf")).to(tl.float32)
    m, s = online_update(m, s, z)

    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp2((m - row_max) * LOG2E), axis=0)
    target = tl.load(t + row)
    valid = target != ignore_index
    zt = tl.load(Z + a0 + target, mask=valid, other=0.0).to(tl.float32)
    tl.store(row_loss + row, tl.where(valid, row_max + tl.log(row_sum) - zt, 0.0))


@triton.jit
def ce_mean(row_loss, t, loss, ignore_index, M, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    cnt = tl.zeros((BLOCK,), dtype=tl.int32)
    for k in range(0, M, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        mask = offs < M
        acc += tl.load(row_loss + offs, mask=mask, other=0.0)
        tv = tl.load(t + offs, mask=mask, other=0)
        cnt += (mask & (tv != ignore_index)).to(tl.int32)
    tl.store(loss, tl.math.div_rn(tl.sum(acc, axis=0), tl.sum(cnt, axis=0).to(tl.float32)))


def solve(Z, t, loss, ignore_index, M, V):
    row_loss = torch.empty(M, dtype=torch.float32, device=Z.device)
    ce_rows[(M,)](Z, t, row_loss, ignore_index, M, V)
    ce_mean[(1,)](row_loss, t, loss, ignore_index, M, BLOCK=1024, num_warps=4)
