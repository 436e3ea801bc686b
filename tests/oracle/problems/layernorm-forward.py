"""Oracle for problems/layernorm-forward (P17).

Y = layer_norm(X, (N,), gamma, beta, eps) with the biased variance, plus the
row statistics mean and rstd = 1 / sqrt(var + eps), all in fp64 on the GPU from
the fp16 inputs (before rounding Y to fp16, as the judge's reference).
eps is the fp32 value the kernel receives, widened exactly. "mean_scale" is
the scale of the mean's tolerance, mean_j |X_ij|.
"""
import torch
import torch.nn.functional as F


def compute(inputs, scalars, sizes):
    x = inputs["X"].to(torch.float64)
    g = inputs["gamma"].to(torch.float64)
    b = inputs["beta"].to(torch.float64)
    n = sizes["N"]
    assert x.shape == (sizes["M"], n)
    eps = float(torch.tensor(scalars["eps"], dtype=torch.float32).item())
    y = F.layer_norm(x, (n,), g, b, eps)
    mean = x.mean(dim=-1)
    var = x.var(dim=-1, unbiased=False)
    rstd = 1.0 / torch.sqrt(var + eps)
    return {"Y": y, "mean": mean, "rstd": rstd, "mean_scale": x.abs().mean(dim=-1)}
