from .jit import JITFunction, KernelParam, KernelInterface  # noqa: F401
from .autotuner import Autotuner, Heuristics, Config  # noqa: F401
from .driver import driver  # noqa: F401
from . import jit, autotuner  # noqa: F401
