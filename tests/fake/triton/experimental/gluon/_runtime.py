"""GluonASTSource and GluonJITFunction, as triton.experimental.gluon._runtime
defines them in Triton 3.6: the same constructor as ASTSource, a JITFunction
subclass whose is_gluon() is True."""
from ...compiler.compiler import ASTSource
from ...runtime.jit import JITFunction, constexpr_function  # noqa: F401


class GluonASTSource(ASTSource):
    def __init__(self, fn, signature, constexprs=None, attrs=None):
        super().__init__(fn, signature, constexprs, attrs)
        self.ext = "ttgir"


class GluonJITFunction(JITFunction):
    def is_gluon(self):
        return True


def jit(fn=None, *, do_not_specialize=None, do_not_specialize_on_alignment=None, **kwargs):
    def decorator(f):
        return GluonJITFunction(f, do_not_specialize, do_not_specialize_on_alignment, **kwargs)
    return decorator(fn) if fn is not None else decorator
