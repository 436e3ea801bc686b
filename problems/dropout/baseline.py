"""PyTorch's dropout: F.dropout in training mode, inverted scaling, a Philox4x32-10 per element
(cuRAND's, in PyTorch's CUDA kernel) -- the same work as the problem's. Its random numbers are
PyTorch's own stream, not the judge's tl.rand(seed, i): the mask cannot equal the reference's, so
`judged validate` checks the form of y instead (NOT_COMPARED)."""
import torch.nn.functional as F

# Outputs `judged validate` does not hold against the reference, and why.
NOT_COMPARED = {"y": "PyTorch's dropout draws its own random numbers: its mask is not the judge's"}


def baseline(x, p, **_):
    return F.dropout(x, p=float(p), training=True)
