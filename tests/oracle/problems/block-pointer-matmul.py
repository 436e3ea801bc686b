"""Oracle for block-pointer-matmul (P24): C = A @ B over strided views, in fp64.

A, B and C are 1-D buffers; the views are torch.as_strided with the per-case
offsets and strides (scalars offA, sAm, sAk, offB, sBk, sBn, offC, sCm, sCn).
C is an inout tensor: compute() returns the whole buffer, its initial values
(as the kernel received them, in fp16, widened) everywhere outside the view
and the exact product inside it; scales() returns |A| @ |B| inside the view
and 0 outside (the tolerance is |C - ref| <= 1e-6 + 2^-10 |ref| + 1e-4 S).
"""
import torch


def _views(inputs, scalars, sizes, absolute=False):
    m, n, k = int(sizes["M"]), int(sizes["N"]), int(sizes["K"])
    s = {key: int(v) for key, v in scalars.items()}
    a = inputs["A"].to(torch.float64)
    b = inputs["B"].to(torch.float64)
    if absolute:
        a, b = a.abs(), b.abs()
    av = torch.as_strided(a, (m, k), (s["sAm"], s["sAk"]), s["offA"])
    bv = torch.as_strided(b, (k, n), (s["sBk"], s["sBn"]), s["offB"])
    return av, bv, (m, n), (s["sCm"], s["sCn"]), s["offC"]


def compute(inputs, scalars, sizes):
    av, bv, shape, strides, off = _views(inputs, scalars, sizes)
    c = inputs["C"].to(torch.float64).clone()
    torch.as_strided(c, shape, strides, off).copy_(torch.matmul(av, bv))
    return {"C": c}


def scales(inputs, scalars, sizes):
    av, bv, shape, strides, off = _views(inputs, scalars, sizes, absolute=True)
    s = torch.zeros_like(inputs["C"], dtype=torch.float64)
    torch.as_strided(s, shape, strides, off).copy_(torch.matmul(av, bv))
    return {"C": s}
