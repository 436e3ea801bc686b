"""libdevice.py - tl.extra.cuda.libdevice on the CPU: fp32 and fp64 functions, correctly rounded.

CUDA's libdevice takes fp32 or fp64 arguments (its __nv_*f and __nv_*
functions); Triton refuses others, and so does this. Each result is computed
in fp64 and rounded once to the argument's type, so it is at least as
accurate as libdevice (whose functions are within a few ulp); the fast_*
functions, approximate on the GPU, are computed the same way here. A name not
listed is reported as not modelled.
"""
import math as _math

import numpy as np

from . import core
from . import dtypes as D
from .core import Tensor
from .errors import CompileError


def _args(name, xs):
    ts = [core.to_tensor(x) for x in xs]
    t = None
    for x in ts:
        if x.dtype.is_floating():
            t = x.dtype if t is None or x.dtype.primitive_bitwidth > t.primitive_bitwidth else t
    if t is None or not (t.is_fp32() or t.is_fp64()):
        raise CompileError("libdevice.%s: input arg type does not match: expected fp32 or fp64, "
                           "got %s" % (name, ", ".join(str(x.dtype) for x in ts)))
    shape = []
    for x in ts:
        shape = core.broadcast_shape(shape, x.data.shape)
    return t, [np.broadcast_to(core.cast(x, t).data.astype(np.float64), shape) for x in ts]


def _f(name, fn, result=None):
    def op(*xs):
        t, vs = _args(name, xs)
        r = fn(*vs)
        if result == "bool":
            return Tensor(np.asarray(r, dtype=bool), D.int1)
        if result == "int":
            return Tensor(np.asarray(r).astype(np.int32), D.int32)
        return Tensor(D.to_register(t, np.asarray(r, dtype=np.float64)), t)
    op.__name__ = name
    return op


def _vec(f):
    u = np.frompyfunc(f, 1, 1)
    return lambda v: u(v).astype(np.float64)


def _safe(f, bad=np.nan):
    def g(v):
        try:
            return f(v)
        except (OverflowError, ValueError):
            return bad
    return g


_erf = _vec(_math.erf)
_erfc = _vec(_math.erfc)
_lgamma = _vec(_safe(_math.lgamma, np.inf))
_tgamma = _vec(_safe(_math.gamma))

_TABLE = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda v: np.power(10.0, v), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda v: 1.0 / np.sqrt(v), "cbrt": np.cbrt,
    "rcbrt": lambda v: 1.0 / np.cbrt(v),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "sinpi": lambda v: np.sin(np.pi * v),
    "cospi": lambda v: np.cos(np.pi * v),
    "erf": _erf, "erfc": _erfc, "lgamma": _lgamma, "tgamma": _tgamma,
    "fabs": np.abs, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "round": lambda v: np.where(v >= 0, np.floor(v + 0.5), np.ceil(v - 0.5)),
    "rint": np.rint, "nearbyint": np.rint, "saturatef": lambda v: np.clip(v, 0.0, 1.0),
    "rcp_rn": lambda v: 1.0 / v,
    "fast_expf": np.exp, "fast_exp10f": lambda v: np.power(10.0, v), "fast_logf": np.log,
    "fast_log2f": np.log2, "fast_log10f": np.log10, "fast_sinf": np.sin, "fast_cosf": np.cos,
    "fast_tanf": np.tan, "sqrt_rn": np.sqrt, "sqrt_rz": np.sqrt, "sqrt_rd": np.sqrt,
    "sqrt_ru": np.sqrt,
}
_TABLE2 = {
    "pow": np.power, "powf": np.power, "fast_powf": np.power, "atan2": np.arctan2,
    "fmod": np.fmod, "remainder": np.remainder, "fmin": np.fmin, "fmax": np.fmax,
    "copysign": np.copysign, "hypot": np.hypot, "fdim": lambda a, b: np.maximum(a - b, 0.0),
    "nextafter": np.nextafter, "div_rn": np.divide, "div_rz": np.divide, "div_rd": np.divide,
    "div_ru": np.divide, "fast_dividef": np.divide, "mul_rn": np.multiply, "add_rn": np.add,
    "sub_rn": np.subtract,
}
_PRED = {"isnan": np.isnan, "isinf": np.isinf, "isfinited": np.isfinite, "finitef": np.isfinite,
         "signbit": np.signbit}

for _n, _fn in _TABLE.items():
    globals()[_n] = _f(_n, _fn)
for _n, _fn in _TABLE2.items():
    globals()[_n] = _f(_n, _fn)
for _n, _fn in _PRED.items():
    globals()[_n] = _f(_n, _fn, "bool")


def fma(x, y, z):
    t, (a, b, c) = _args("fma", (x, y, z))
    return Tensor(D.to_register(t, a * b + c), t)


fma_rn = fma


def ldexp(x, e):
    t, (a,) = _args("ldexp", (x,))
    ee = core.to_tensor(e).data.astype(np.int64)
    return Tensor(D.to_register(t, np.ldexp(a, ee)), t)


def ilogb(x):
    t, (a,) = _args("ilogb", (x,))
    return Tensor(np.where(a == 0, -2**31, np.frexp(a)[1] - 1).astype(np.int32), D.int32)


__all__ = sorted(list(_TABLE) + list(_TABLE2) + list(_PRED) + ["fma", "fma_rn", "ldexp", "ilogb"])


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise CompileError("libdevice.%s is not modelled by the CPU simulator (tests/tritonsim)"
                       % name)
