"""tsim - a CPU interpreter of the Triton language subset Blockwise's problems use.

A development aid, not the judge (tests/tritonsim/README.md): the stand-in
package tests/tritonsim/triton/ maps `triton` and `triton.language` onto these
modules, so a problem's Triton file imports and runs unchanged on numpy.

  dtypes.py  Triton's types and how values of each are held
  core.py    the Tensor and the typing rules of its operators
  lang.py    the tl operations (loads, stores, dot, reductions, math, ...)
  random.py  tl.rand / tl.randint / tl.philox
  libdevice.py  tl.extra.cuda.libdevice
  memory.py  buffers with guard bands; checked loads, stores and atomics
  jit.py     @triton.jit, argument binding, the grid loop
  runner.py  one control on one plan case: buffers, launches, verdict
"""
from .errors import CompileError, Fault, SimError, TimeLimit  # noqa: F401
from .jit import JITFunction, Scalar, jit, launch  # noqa: F401
from .memory import Buffer, Memory  # noqa: F401
