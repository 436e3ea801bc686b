"""PyTorch's mean and population variance of a vector, in one call (torch.var_mean, correction=0)."""
import torch


def baseline(x, **_):
    var, mean = torch.var_mean(x, correction=0)
    return torch.stack([mean, var])
