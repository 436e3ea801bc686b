# Naive but correct: one program per row, two passes over the row in global
# memory (the maximum, then the sum of exp(z - max)), the row's loss into a
# scratch slot; then one program adds the row losses and divides by the number
# of rows whose target is not ignore_index (0/0 = NaN when all are ignored, as
# PyTorch). It reads the logits twice. Control: must be Accepted; it brackets
# the "fused" goal from below (at most about half of the copy bandwidth).
import torch
import triton
import triton.language as tl


@triton.jit
def ce_rows(Z, t, row_loss, ignore_index, M, V, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    z_row = Z + row.to(tl.int64) * V
    cols = tl.arange(0, BLOCK)
    target = tl.load(t + row)
    valid = target != ignore_index

    mx = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for k in range(0, V, BLOCK):
        z = tl.load(z_row + k + cols, mask=k + cols < V, other=float("-inf")).to(tl.float32)
        mx = tl.maximum(mx, z)
    m = tl.max(mx, axis=0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, V, BLOCK):
        z = tl.load(z_row + k + cols, mask=k + cols < V, other=float("-inf")).to(tl.float32)
        acc += tl.exp(z - m)
    zt = tl.load(z_row + target, mask=valid, other=0.0).to(tl.float32)
    tl.store(row_loss + row, tl.where(valid, m + tl.log(tl.sum(acc, axis=0)) - zt, 0.0))


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
    ce_rows[(M,)](Z, t, row_loss, ignore_index, M, V, BLOCK=1024, num_warps=4)
    ce_mean[(1,)](row_loss, t, loss, ignore_index, M, BLOCK=1024, num_warps=4)
