"""triton (stand-in) - the CPU simulator's `triton`, for tests/tritonsim only.

Loaded instead of the real Triton when tests/tritonsim is first on sys.path
(run.py and the unit tests put it there): @triton.jit kernels run on numpy
through tsim. Never install it where the real Triton is wanted.
"""
from tsim.errors import CompileError as _CompileError
from tsim.jit import JITFunction, constexpr_function, jit  # noqa: F401

from . import language  # noqa: F401

__version__ = "3.6.0+tritonsim"


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages


def _refused(what):
    def deco(*args, **kwargs):
        raise _CompileError("triton.%s: the judge launches the @triton.jit function itself; tune "
                            "with # @tune NAME=(...) and pass the values in # @launch args=()"
                            % what)
    return deco


autotune = _refused("autotune")
heuristics = _refused("heuristics")
