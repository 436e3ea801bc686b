"""P28: rotate-half RoPE (GPT-NeoX / Hugging Face apply_rotary_pos_emb) in fp64 from the
bf16 inputs, with the cos/sin rows gathered by position as HF does (cos[position_ids])."""
import torch


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def compute(inputs, scalars, sizes):
    pos = inputs["positions"].long()
    cos = inputs["cos_table"].double()[pos]  # [T, D/2]
    sin = inputs["sin_table"].double()[pos]
    cos = torch.cat((cos, cos), dim=-1).unsqueeze(1)  # [T, 1, D], as HF's emb = cat(freqs, freqs)
    sin = torch.cat((sin, sin), dim=-1).unsqueeze(1)
    out = {}
    for name in ("q", "k"):
        x = inputs[name].double()
        out[name + "_out"] = x * cos + rotate_half(x) * sin
    return out
