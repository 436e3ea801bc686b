"""PyTorch's softmax over each (long) row: the same call as problem softmax."""
import torch


def baseline(X, **_):
    return torch.softmax(X, dim=-1)
