"""PyTorch's LayerNorm forward with its saved statistics: torch.native_layer_norm, the op behind
F.layer_norm, returns Y and the row mean and rstd in one kernel (F.layer_norm alone would drop the
statistics the problem also asks for)."""
import torch


def baseline(X, gamma, beta, N, eps, **_):
    y, mean, rstd = torch.native_layer_norm(X, (N,), gamma, beta, float(eps))
    return {"Y": y, "mean": mean.reshape(-1), "rstd": rstd.reshape(-1)}
