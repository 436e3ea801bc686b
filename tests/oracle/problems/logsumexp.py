"""Oracle for problems/logsumexp (P12): lse = torch.logsumexp(X, dim=1) in fp64.

torch.logsumexp gives -inf for a row whose entries are all -inf.
"""
import torch


def compute(inputs, scalars, sizes):
    return {"lse": torch.logsumexp(inputs["X"].to(torch.float64), dim=1)}
