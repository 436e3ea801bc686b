"""PyTorch's GELU, the exact (erf) form the problem asks for."""
import torch.nn.functional as F


def baseline(x, **_):
    return F.gelu(x, approximate="none")
