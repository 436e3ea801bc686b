"""Oracle for problems/transpose (P13): Y = X^T, X: [R, C] fp32, Y: [C, R]."""
import torch


def compute(inputs, scalars, sizes):
    x = inputs["X"]
    assert x.shape == (sizes["R"], sizes["C"])
    return {"Y": x.t().contiguous().to(torch.float64)}
