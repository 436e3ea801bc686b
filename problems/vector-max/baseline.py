"""PyTorch's maximum of a vector."""
import torch


def baseline(x, **_):
    return torch.max(x).reshape(1)
