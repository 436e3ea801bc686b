"""PyTorch's fused multiply-add: torch.addcmul, one kernel computing C + A * B (A * B + C would be two)."""
import torch


def baseline(A, B, C, **_):
    return torch.addcmul(C, A, B)
