"""Oracle for problems/matmul-bias-relu (P16): Y = relu(X W^T + b), all fp16.

Computed in fp64 on the GPU with torch.nn.functional.linear on upcast inputs
(every fp16 product is exact in fp64), before any rounding to fp16, as the
judge's reference is. "Y_scale" is the accumulation scale
S_ij = sum_k |X_ik W_jk| + |b_j| that the tolerance multiplies.
"""
import torch
import torch.nn.functional as F


def compute(inputs, scalars, sizes):
    x = inputs["X"].to(torch.float64)
    w = inputs["W"].to(torch.float64)
    b = inputs["b"].to(torch.float64)
    assert x.shape == (sizes["M"], sizes["K"]) and w.shape == (sizes["N"], sizes["K"])
    y = torch.relu(F.linear(x, w, b))
    scale = F.linear(x.abs(), w.abs(), b.abs())
    return {"Y": y, "Y_scale": scale}
