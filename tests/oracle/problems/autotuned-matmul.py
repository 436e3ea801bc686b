"""Oracle for autotuned-matmul (P21): C = A @ B from the fp16 inputs, in fp64.

compute() returns the exact product (the judge's reference rounds nothing
either); scales() returns S = |A| @ |B|, the accumulation scale the tolerance
|C - ref| <= 1e-6 + 2^-10 |ref| + 1e-4 S multiplies.
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
