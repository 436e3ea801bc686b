"""PyTorch's fused attention: F.scaled_dot_product_attention (its flash or memory-efficient kernel),
top-left causal mask when causal. scripts/triton-speed.py times the same call."""
import torch.nn.functional as F


def baseline(Q, K, V, scale, causal, **_):
    return F.scaled_dot_product_attention(Q, K, V, is_causal=bool(causal), scale=float(scale))
