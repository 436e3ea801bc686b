"""Oracle for problems/fused-multiply-add (P2): D = A * B + C.

torch.addcmul in fp64 from the fp32 inputs (products of fp32 values are exact
in fp64), compared by the harness with the problem's tolerance
|D - ref| <= 1.2e-7 * (|A*B| + |C|).
"""
import torch


def compute(inputs, scalars, sizes):
    a, b, c = (inputs[k].to(torch.float64) for k in ("A", "B", "C"))
    return {"D": torch.addcmul(c, a, b)}
