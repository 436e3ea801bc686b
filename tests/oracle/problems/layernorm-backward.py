"""Oracle for problems/layernorm-backward (P20), by autograd.

The judge generates mean and rstd as independent inputs, so they are not the
statistics of X; the problem defines dX with the given values (the formula of
its statement.md, Triton tutorial 05's). This oracle gets that dX from autograd:
y = xhat * gamma + beta with

    mu(X)   = mean + (X.mean(-1) - X.mean(-1).detach())        value: mean
    rho(X)  = rstd + (q(X) - q(X).detach()),                   value: rstd
    q(X)    = -(rstd^3 / (2N)) * sum_j (x_j - mean)^2           d rho / d x_j = -rstd^2 xhat_j / N
    xhat    = (X - mu(X)) * rho(X)

whose derivatives are those of the true statistics evaluated at the given
values; backpropagating dY gives dX = rstd (g - xhat c1 - c2), and gamma's and
beta's gradients are dgamma and dbeta. Before that, it checks the construction
against torch.nn.functional.layer_norm's own autograd on the same X with its
true statistics (a self-test that does not depend on the judge's inputs).
Everything is fp64 on the GPU. "*_scale" are the accumulation scales of the
dgamma / dbeta tolerances.
"""
import torch
import torch.nn.functional as F


def _grads(x, dy, gamma, mean, rstd):
    n = x.shape[-1]
    x = x.clone().requires_grad_(True)
    g = gamma.clone().requires_grad_(True)
    b = torch.zeros_like(gamma, requires_grad=True)
    m = x.mean(dim=-1, keepdim=True)
    mu = mean[:, None] + (m - m.detach())
    q = -(rstd[:, None] ** 3 / (2 * n)) * ((x - mean[:, None]) ** 2).sum(dim=-1, keepdim=True)
    rho = rstd[:, None] + (q - q.detach())
    y = (x - mu) * rho * g + b
    y.backward(dy)
    return x.grad, g.grad, b.grad


def _self_test(device):
    gen = torch.Generator(device="cpu").manual_seed(5)
    x = (-2.3 + 0.5 * torch.randn(7, 33, generator=gen, dtype=torch.float64)).to(device)
    dy = (0.1 * torch.randn(7, 33, generator=gen, dtype=torch.float64)).to(device)
    gamma = (2 * torch.rand(33, generator=gen, dtype=torch.float64)).to(device)
    eps = 1e-5
    mean = x.mean(dim=-1)
    rstd = torch.rsqrt(x.var(dim=-1, unbiased=False) + eps)
    xr = x.clone().requires_grad_(True)
    gr = gamma.clone().requires_grad_(True)
    br = torch.zeros_like(gamma, requires_grad=True)
    F.layer_norm(xr, (33,), gr, br, eps).backward(dy)
    dx, dg, db = _grads(x, dy, gamma, mean, rstd)
    for got, want in ((dx, xr.grad), (dg, gr.grad), (db, br.grad)):
        assert torch.allclose(got, want, rtol=1e-10, atol=1e-12)


def compute(inputs, scalars, sizes):
    # tests/oracle/run.py calls compute() under torch.no_grad(); autograd needs it back on.
    with torch.enable_grad():
        return _compute(inputs, sizes)


def _compute(inputs, sizes):
    x = inputs["X"].to(torch.float64)
    dy = inputs["dY"].to(torch.float64)
    gamma = inputs["gamma"].to(torch.float64)
    mean = inputs["mean"].to(torch.float64)
    rstd = inputs["rstd"].to(torch.float64)
    assert x.shape == (sizes["M"], sizes["N"])
    _self_test(x.device)
    dx, dgamma, dbeta = _grads(x, dy, gamma, mean, rstd)
    xhat = (x - mean[:, None]) * rstd[:, None]
    return {
        "dX": dx,
        "dgamma": dgamma,
        "dbeta": dbeta,
        "dgamma_scale": (dy * xhat).abs().sum(dim=0),
        "dbeta_scale": dy.abs().sum(dim=0),
    }
