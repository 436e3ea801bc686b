"""A FAKE triton package: just enough of Triton 3.6's surface for the judge's
driver (judge/triton/driver.py) to be tested on a machine without Triton or a
GPU (tests/unit/test_triton_compile.c). It never generates code.

It is also a contract test: ASTSource and compile() check that the driver
hands them what Triton 3.3-3.6 expect (a signature naming every parameter in
order, "constexpr" entries with their values keyed (index,), divisibility
attributes only on kept parameters, only the num_warps, num_stages and
maxnreg options, a GluonASTSource for a @gluon.jit kernel), and the fake
cubin records what it was given, so a test can read the specialisation back.
triton.experimental.gluon fakes Gluon (tests/fake/triton/experimental/). See
tests/fake/triton/compiler/compiler.py for what its "compile" does (ptxas
--version through a subprocess, name checks, a few magic calls that fail the
way Triton does).
"""
__version__ = "3.6.0+fake"

from . import language  # noqa: F401
from .runtime.jit import jit, JITFunction, constexpr_function  # noqa: F401
from .runtime.autotuner import autotune, heuristics, Config  # noqa: F401
from .compiler import compile, ASTSource, CompilationError  # noqa: F401
from . import runtime, compiler, backends  # noqa: F401


def cdiv(a, b):
    return (a + b - 1) // b


def next_power_of_2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()
