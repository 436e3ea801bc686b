"""PyTorch's softmax over each row."""
import torch


def baseline(X, **_):
    return torch.softmax(X, dim=-1)
