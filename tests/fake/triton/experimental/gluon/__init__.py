"""triton.experimental.gluon, faked after Triton 3.6: @gluon.jit and the
language names a test kernel uses. A @gluon.jit function is a
GluonJITFunction (a JITFunction whose is_gluon() is True), which the judge's
driver must compile from a GluonASTSource (_runtime.py); the fake compile()
checks that (tests/fake/triton/compiler/compiler.py)."""
from ._runtime import jit, constexpr_function, GluonJITFunction  # noqa: F401
from . import language  # noqa: F401
