from .jit import JITFunction, KernelParam  # noqa: F401
from .autotuner import Autotuner, Heuristics  # noqa: F401
from . import jit, autotuner  # noqa: F401
