"""triton.language.math (stand-in)."""
from tsim.lang import (abs, cdiv, ceil, clamp, cos, div_rn, erf, exp, exp2, fdiv,  # noqa: F401
                       floor, fma, log, log2, maximum, minimum, rsqrt, sigmoid, sin, softmax,
                       sqrt, sqrt_rn, umulhi)
