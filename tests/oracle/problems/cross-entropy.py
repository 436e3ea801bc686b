"""Oracle for problems/cross-entropy (P19).

loss = F.cross_entropy(Z, t, ignore_index=ignore_index, reduction="mean") in
fp64 on the GPU from the bf16 logits (int64 targets, as PyTorch requires).
When every row is ignored PyTorch returns NaN (0 / 0), as the judge's
reference does; that case is computed explicitly so the result does not
depend on the PyTorch version.
"""
import torch
import torch.nn.functional as F


def compute(inputs, scalars, sizes):
    z = inputs["Z"].to(torch.float64)
    t = inputs["t"].to(torch.int64)
    assert z.shape == (sizes["M"], sizes["V"]) and t.shape == (sizes["M"],)
    ignore = int(scalars["ignore_index"])
    valid = t != ignore
    if not bool(valid.any()):
        return {"loss": torch.full((1,), float("nan"), dtype=torch.float64, device=z.device)}
    loss = F.cross_entropy(z, t, ignore_index=ignore, reduction="mean")
    # the same by hand: log-sum-exp minus the target logit, over the valid rows
    lse = torch.logsumexp(z[valid], dim=-1)
    by_hand = (lse - z[valid].gather(1, t[valid][:, None]).squeeze(1)).mean()
    assert torch.allclose(loss, by_hand, rtol=1e-12, atol=1e-12)
    return {"loss": loss.reshape(1)}
