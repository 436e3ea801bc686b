"""Oracle for problems/dropout (P6): inverted dropout with Triton's tl.rand stream.

An independent implementation of Philox4x32-10 (Salmon et al. 2011, as in
Triton's tl.rand(seed, offsets)) in torch int64 arithmetic, one counter
(i, 0, 0, 0) per element, key (seed & 0xffffffff, seed >> 32). 32 x 32-bit
products are formed from 16-bit limbs so that no int64 operation overflows.
u = float32(v') * float32(4.6566127342e-10) with v = int32(word 0),
v' = v if v >= 0 else -v - 1; keep iff u > p; y = x * float32(1 / (1 - p))
for kept elements (the product in fp64), 0 for dropped ones.
"""
import torch

M32 = 0xFFFFFFFF
PHILOX_A = 0xD2511F53
PHILOX_B = 0xCD9E8D57
KEY_A = 0x9E3779B9
KEY_B = 0xBB67AE85


def _mulhilo(a, c):
    """(hi, lo) 32-bit halves of the 64-bit product of constant a and tensor c (both < 2^32)."""
    a1, a0 = a >> 16, a & 0xFFFF
    c1, c0 = c >> 16, c & 0xFFFF
    low = a0 * c0
    mid = a1 * c0 + a0 * c1
    lo_full = low + ((mid & 0xFFFF) << 16)
    lo = lo_full & M32
    hi = (a1 * c1 + (mid >> 16) + (lo_full >> 32)) & M32
    return hi, lo


def philox_word0(seed, idx):
    """First output word of Philox4x32-10 for counter (idx, 0, 0, 0), key from seed."""
    c0 = idx.to(torch.int64) & M32
    c1 = torch.zeros_like(c0)
    c2 = torch.zeros_like(c0)
    c3 = torch.zeros_like(c0)
    k0, k1 = seed & M32, (seed >> 32) & M32
    for _ in range(10):
        hi_a, lo_a = _mulhilo(PHILOX_A, c0)
        hi_b, lo_b = _mulhilo(PHILOX_B, c2)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = (k0 + KEY_A) & M32
        k1 = (k1 + KEY_B) & M32
    return c0


def uniform(seed, idx):
    r = philox_word0(seed, idx)
    v = torch.where(r >= 2**31, r - 2**32, r)  # as int32
    v = torch.where(v < 0, -v - 1, v)
    scale = torch.tensor(4.6566127342e-10, dtype=torch.float32, device=idx.device)
    return v.to(torch.float32) * scale


def compute(inputs, scalars, sizes):
    x = inputs["x"]
    n = sizes["N"]
    seed = int(scalars["seed"])
    p = torch.tensor(float(scalars["p"]), dtype=torch.float32, device=x.device)
    one = torch.tensor(1.0, dtype=torch.float32, device=x.device)
    s = one / (one - p)
    u = uniform(seed, torch.arange(n, device=x.device, dtype=torch.int64))
    keep = u > p
    y = torch.where(keep, x.to(torch.float64) * s.to(torch.float64),
                    torch.zeros((), dtype=torch.float64, device=x.device))
    return {"y": y}
