# Mean cross-entropy of the rows of Z (M x V logits, bf16, row-major) with
# integer targets t (M, int32):
#   loss_i = log(sum_j exp(Z[i][j])) - Z[i][t[i]]      for rows with t[i] != ignore_index
#   loss   = (sum of loss_i over those rows) / (number of those rows)
# Compute in fp32 (subtract the row maximum before exp); loss is one fp32 value.
#
# solve, at the end, makes a zeroed scratch buffer row_loss of M floats; its
# first launch gives each row a program and a slot in row_loss; the second
# launch, one program, combines them.
import torch
import triton
import triton.language as tl


@triton.jit
def ce_rows(Z, t, row_loss, ignore_index, M, V, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    z_row = Z + row.to(tl.int64) * V
    cols = tl.arange(0, BLOCK)

    # TODO: if t[row] != ignore_index, compute the row's loss and store it in
    # row_loss[row]: the maximum of the row (for k in range(0, V, BLOCK): load
    # z_row + k + cols masked to k + cols < V, .to(tl.float32); which other= leaves
    # a maximum unchanged?), then the sum of tl.exp(z - max) (again: what must a
    # masked lane add?), then max + tl.log(sum) - z[t[row]].


@triton.jit
def ce_mean(row_loss, t, loss, ignore_index, M, BLOCK: tl.constexpr):
    # TODO: loss[0] = (sum of row_loss over the rows not ignored) / (their number).
    pass


def solve(Z, t, loss, ignore_index, M, V):
    row_loss = torch.zeros(M, dtype=torch.float32, device=Z.device)
    ce_rows[(M,)](Z, t, row_loss, ignore_index, M, V, BLOCK=1024, num_warps=4)
    ce_mean[(1,)](row_loss, t, loss, ignore_index, M, BLOCK=1024, num_warps=4)
