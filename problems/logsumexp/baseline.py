"""PyTorch's log-sum-exp of each row."""
import torch


def baseline(X, **_):
    return torch.logsumexp(X, dim=1)
