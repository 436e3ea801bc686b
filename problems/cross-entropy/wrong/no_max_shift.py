# Negative control: solution.py (BLOCK=4096) without the running maximum: the
# exponentials are taken of the raw logits (m stays 0). On the offset rows
# (logits 100 to 150) exp(z) overflows fp32 (its largest value is e^88.7): the
# sum becomes inf and so does the loss.
# Expected verdict: Wrong Answer.
import torch
import triton
import triton.language as tl

BLOCK = 4096
WARPS = 8
LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def online_update(m, s, z):
    # m, s: [G] running maximum and sum of exp(z - m) of each lane's groups;
    # z: [G, 8] fp32 logits (-inf where masked)
    m_new = m  # BUG: no running maximum, exp(z) of the raw logits
    s = s * tl.exp2((m - m_new) * LOG2E) + tl.sum(tl.exp2((z - m_new[:, None]) * LOG2E), axis=1)
    return m_new, s


@triton.jit
def ce_rows(Z, t, row_loss, ignore_index, M, V, BLOCK: tl.constexpr):
    G: tl.constexpr = BLOCK // 8
    row = tl.program_id(0)
    a0 = row.to(tl.int64) * V  # the row is Z[a0 : a1]
    a1 = a0 + V
    b0 = tl.minimum((a0 + 7) // 8 * 8, a1)  # its first 8-aligned logit
    n_body = (a1 - b0) // BLOCK * BLOCK  # logits in whole aligned blocks
    offs = tl.arange(0, G)[:, None] * 8 + tl.arange(0, 8)[None, :]  # [G, 8], contiguous

    m = tl.zeros((G,), dtype=tl.float32)
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
    ce_rows[(M,)](Z, t, row_loss, ignore_index, M, V, BLOCK=BLOCK, num_warps=WARPS)
    ce_mean[(1,)](row_loss, t, loss, ignore_index, M, BLOCK=1024, num_warps=4)
