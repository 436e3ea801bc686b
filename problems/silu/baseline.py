"""PyTorch's SiLU."""
import torch.nn.functional as F


def baseline(x, **_):
    return F.silu(x)
