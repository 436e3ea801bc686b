"""Oracle for problems/rmsnorm-forward (P18).

rstd = 1 / sqrt(mean(x^2) + eps) and Y = x * rstd * w, in fp64 on the GPU from
the bf16 inputs, before rounding Y to bf16 (as the judge's reference). eps is
the fp32 value the kernel receives, widened exactly. Cross-checked against
torch.nn.functional.rms_norm where this PyTorch has it.
"""
import torch
import torch.nn.functional as F


def compute(inputs, scalars, sizes):
    x = inputs["X"].to(torch.float64)
    w = inputs["w"].to(torch.float64)
    n = sizes["N"]
    assert x.shape == (sizes["M"], n)
    eps = float(torch.tensor(scalars["eps"], dtype=torch.float32).item())
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1) + eps)
    y = x * rstd[:, None] * w
    if hasattr(F, "rms_norm"):
        y_torch = F.rms_norm(x, (n,), w, eps)
        assert torch.allclose(y, y_torch, rtol=1e-12, atol=1e-12)
    return {"Y": y, "rstd": rstd}
