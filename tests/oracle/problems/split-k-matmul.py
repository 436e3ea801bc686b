"""Oracle for split-k-matmul (P23): C = A @ B from the fp16 inputs, in fp64.

compute() returns the exact product; scales() returns S = |A| @ |B|, the
accumulation scale of the tolerance |C - ref| <= 1e-6 + 2e-5 S.
"""
import torch


def compute(inputs, scalars, sizes):
    a = inputs["A"].to(torch.float64)
    b = inputs["B"].to(torch.float64)
    return {"C": torch.matmul(a, b)}


def scales(inputs, scalars, sizes):
    a = inputs["A"].to(torch.float64).abs()
    b = inputs["B"].to(torch.float64).abs()
    return {"C": torch.matmul(a, b)}
