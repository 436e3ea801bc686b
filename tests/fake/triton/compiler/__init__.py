from .compiler import compile, ASTSource, CompiledKernel, make_backend  # noqa: F401
from .errors import CompilationError  # noqa: F401
from . import errors, compiler  # noqa: F401
