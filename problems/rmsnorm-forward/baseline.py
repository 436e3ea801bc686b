"""PyTorch's RMSNorm of bf16 rows and the rows' rstd: F.rms_norm gives Y but not rstd, so these
are the few fp32 lines a learner writes (rstd from the mean of squares, Y rounded once to bf16)."""
import torch


def baseline(X, w, eps, **_):
    x = X.float()
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1) + float(eps))
    y = (x * rstd[:, None] * w.float()).to(X.dtype)
    return {"Y": y, "rstd": rstd}
