"""Rotary embedding in the rotate-half form as Hugging Face's Llama writes it in PyTorch: the
table rows gathered by position, q * cos + rotate_half(q) * sin in fp32, rounded once to bf16."""
import torch


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def baseline(q, k, positions, cos_table, sin_table, **_):
    pos = positions.long()
    cos = cos_table[pos]
    sin = sin_table[pos]
    cos = torch.cat((cos, cos), dim=-1).unsqueeze(1)
    sin = torch.cat((sin, sin), dim=-1).unsqueeze(1)
    return {name + "_out": (x.float() * cos + rotate_half(x.float()) * sin).to(x.dtype)
            for name, x in (("q", q), ("k", k))}
