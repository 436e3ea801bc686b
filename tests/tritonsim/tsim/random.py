"""random.py - triton.language's counter-based random numbers (tl.rand, tl.randint, tl.philox...).

The same integer function as Triton's random.py: Philox4x32-10 with key
(seed & 0xffffffff, seed >> 32) and counter (offset, 0, 0, 0) when the offsets
are 32-bit, Philox4x64-10 with key (seed, 0) when they are 64-bit;
uint_to_uniform_float maps a word to [0, 1) as
(float)(v < 0 ? -v - 1 : v) * 4.6566127342e-10f (two fp32 roundings), v the
word as a signed integer. randn is the Box-Muller pair of Triton's
pair_uniform_to_normal (its log, sqrt, cos and sin correctly rounded here).
problems/dropout/statement.md states the 32-bit case bit for bit.
"""
import numpy as np

from . import core
from . import dtypes as D
from .core import Tensor, to_tensor
from .errors import CompileError

N_ROUNDS_DEFAULT = 10
_K32 = (0x9E3779B9, 0xBB67AE85)
_R32 = (0xD2511F53, 0xCD9E8D57)
_K64 = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)
_R64 = (0xD2E7470EE14C6C93, 0xCA5A826395121157)


def _mulhilo(a, b, bits):
    """(hi, lo) of a * b for uint32 or uint64 arrays."""
    if bits == 32:
        p = a.astype(np.uint64) * b.astype(np.uint64)
        return (p >> np.uint64(32)).astype(np.uint32), p.astype(np.uint32)
    m, s = np.uint64(0xFFFFFFFF), np.uint64(32)
    a0, a1, b0, b1 = a & m, a >> s, b & m, b >> s
    lo0 = a0 * b0
    mid1 = a1 * b0 + (lo0 >> s)
    mid2 = a0 * b1 + (mid1 & m)
    hi = a1 * b1 + (mid1 >> s) + (mid2 >> s)
    return hi, a * b


def philox_words(c0, c1, c2, c3, k0, k1, bits, n_rounds=N_ROUNDS_DEFAULT):
    u = np.uint32 if bits == 32 else np.uint64
    ka, kb = (_K32 if bits == 32 else _K64)
    ra, rb = (_R32 if bits == 32 else _R64)
    c0, c1, c2, c3 = (np.asarray(c, dtype=u) for c in (c0, c1, c2, c3))
    k0, k1 = np.asarray(k0, dtype=u), np.asarray(k1, dtype=u)
    A, B = u(ra), u(rb)
    for _ in range(n_rounds):
        hi_b, lo_b = _mulhilo(np.broadcast_to(B, c2.shape), c2, bits)
        hi_a, lo_a = _mulhilo(np.broadcast_to(A, c0.shape), c0, bits)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = (k0 + u(ka)).astype(u)
        k1 = (k1 + u(kb)).astype(u)
    return c0, c1, c2, c3


def _seed_value(seed):
    seed = to_tensor(seed)
    if not seed.dtype.is_int() or seed.data.ndim:
        raise CompileError("the seed must be an integer scalar, got %s" % seed.type)
    return np.asarray(seed.data).astype(np.uint64)


def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    s = _seed_value(seed)
    cs = [to_tensor(c) for c in (c0, c1, c2, c3)]
    for c in cs:
        if not c.dtype.is_int():
            raise CompileError("philox counters must be integers, got %s" % c.dtype)
    bits = cs[0].dtype.primitive_bitwidth
    if bits not in (32, 64):
        raise CompileError("philox counters must be 32- or 64-bit integers")
    shape = cs[0].data.shape
    for c in cs[1:]:
        shape = np.broadcast_shapes(shape, c.data.shape)
    u = D.uint32 if bits == 32 else D.uint64
    raw = [np.broadcast_to(core.bitcast(core.cast(c, cs[0].dtype), u).data, shape) for c in cs]
    if bits == 32:
        k0 = (s & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        k1 = ((s >> np.uint64(32)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    else:
        k0, k1 = s, np.uint64(0)
    out = philox_words(*raw, k0, k1, bits, n_rounds)
    return tuple(Tensor(w, u) for w in out)


def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    offset = to_tensor(offset)
    zero = core.mul(offset, 0)
    return philox(seed, offset, zero, zero, zero, n_rounds)


def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    return randint4x(seed, offset, n_rounds)[0]


def uint_to_uniform_float(x):
    x = to_tensor(x)
    if x.dtype in (D.uint32, D.int32):
        x = core.bitcast(x, D.int32)
        scale = 4.6566127342e-10
    elif x.dtype in (D.uint64, D.int64):
        x = core.bitcast(x, D.int64)
        scale = 1.0842020432385337e-19
    else:
        raise CompileError("uint_to_uniform_float needs 32- or 64-bit integers, got %s" % x.dtype)
    from . import lang
    x = lang.where(x < 0, -x - 1, x)
    return x * scale


def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    return tuple(uint_to_uniform_float(w) for w in randint4x(seed, offsets, n_rounds))


def pair_uniform_to_normal(u1, u2):
    from . import lang
    u1 = lang.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = lang.sqrt(-2.0 * lang.log(u1))
    return r * lang.cos(th), r * lang.sin(th)


def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    n1, _ = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
