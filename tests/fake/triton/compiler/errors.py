"""CompilationError as Triton 3.6 defines it: the @jit function's source, the
AST node (lineno is relative to that source, whose line 1 is `def`), and a
message (None when it only wraps a callee's error, its __cause__)."""


class TritonError(Exception):
    pass


class CompilationError(TritonError):
    def __init__(self, src, node, error_message=None):
        self.src = src
        self.node = node
        self.error_message = error_message
        where = "at %d:%d:" % (node.lineno, node.col_offset) if hasattr(node, "lineno") else ""
        self.message = where + ("\n" + error_message if error_message else "")
        super().__init__(self.message)

    def __str__(self):
        return self.message


class CompileTimeAssertionFailure(CompilationError):
    pass


class PTXASError(TritonError):
    pass
