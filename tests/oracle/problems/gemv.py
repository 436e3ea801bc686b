"""Oracle for problems/gemv (P14): y = A x, A: [M, K] fp32, x: [K] fp32.

Computed in fp64 on the GPU (torch.mv on upcast inputs: every product of two
fp32 values is exact in fp64). "y_scale" is the accumulation scale
S_i = sum_k |A_ik x_k| that the tolerance multiplies (same name as the
reference's scale buffer).
"""
import torch


def compute(inputs, scalars, sizes):
    a = inputs["A"].to(torch.float64)
    x = inputs["x"].to(torch.float64)
    assert a.shape == (sizes["M"], sizes["K"]) and x.shape == (sizes["K"],)
    return {"y": torch.mv(a, x), "y_scale": torch.mv(a.abs(), x.abs())}
