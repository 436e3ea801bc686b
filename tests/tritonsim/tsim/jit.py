"""jit.py - @triton.jit on the CPU: kernels rewritten once, launched program after program.

A JITFunction keeps the learner's function. On first use its source is parsed
and rewritten the way Triton's code generator reads it, then compiled under
the same file name and line numbers (so a traceback points at the learner's
line):
- `a and b`, `a or b` evaluate both sides and combine tensors element-wise
  (logical_and / logical_or), `not a` is logical_not; a chain of three is an
  error, as is `a < b < c`;
- a variable defined before a `for` (over range / tl.range) or `while` loop
  and assigned in it must keep its type (dtype and shape) from iteration to
  iteration, as Triton requires of loop-carried values; a Python number
  counts as Triton types it (0 is int32, 0.0 is fp32); likewise a variable
  defined before an `if` whose condition is a tensor and assigned in the
  branch taken (the branch not taken is not seen);
- inside the function, `range`, `min`, `max` and `print` are Triton's (a
  loop over tensors with a tensor induction variable, tl.minimum,
  tl.maximum, device_print).

A launch binds the arguments as Triton's launcher types them (see bind()),
then runs the grid sequentially, x fastest, each program with its own
program_id; a program sees the stores of the programs before it (on a GPU
they run concurrently: a kernel that depends on their order is racy there).
"""
import ast
import inspect
import signal
import textwrap

import numpy as np

from . import core
from . import dtypes as D
from . import lang
from . import state
from .core import Tensor
from .errors import CompileError, SimError, TimeLimit
from .memory import Buffer, View


class Scalar:
    """A kernel argument with the type the judge's plan gives it ("i32", "i64", "u64", "fp32")."""

    def __init__(self, value, type):
        self.value = value
        self.type = type


class _Rewriter(ast.NodeTransformer):
    def __init__(self, filename):
        self.filename = filename

    def _error(self, node, msg):
        return CompileError("%s:%d:%d: %s" % (self.filename, node.lineno, node.col_offset + 1,
                                              msg))

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if len(node.values) != 2:
            raise self._error(node, "chained boolean operators (A or B or C) are not supported; "
                              "use parentheses to split the chain.")
        fn = "__tsim_and" if isinstance(node.op, ast.And) else "__tsim_or"
        return ast.copy_location(ast.Call(func=ast.Name(id=fn, ctx=ast.Load()),
                                          args=node.values, keywords=[]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(ast.Call(func=ast.Name(id="__tsim_not", ctx=ast.Load()),
                                              args=[node.operand], keywords=[]), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) > 1:
            raise self._error(node, "simultaneous multiple comparison is not supported")
        return node

    # Loops: a variable defined before the loop and assigned in it is loop-carried, and Triton
    # requires its type to stay the same. Before the loop its types are captured; at the end
    # of every iteration (and before a `continue`) they are compared.
    _count = 0

    def _loop(self, node, targets):
        self.generic_visit(node)
        names = sorted(_assigned(node.body) - targets)
        if not names:
            return [node]
        _Rewriter._count += 1
        pre = "__tsim_pre_%d" % _Rewriter._count
        it = "__tsim_it_%d" % _Rewriter._count

        def check():
            return ast.Expr(ast.Call(func=ast.Name(id="__tsim_check", ctx=ast.Load()),
                                     args=[ast.Name(id=pre, ctx=ast.Load()),
                                           ast.Call(func=ast.Name(id="locals", ctx=ast.Load()),
                                                    args=[], keywords=[]),
                                           ast.Constant(node.lineno)], keywords=[]))
        node.body = _before_continue(node.body, check) + [check()]
        capture_args = [ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[],
                                 keywords=[]),
                        ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())]
        out = []
        if isinstance(node, ast.For):
            out.append(ast.Assign(targets=[ast.Name(id=it, ctx=ast.Store())], value=node.iter))
            node.iter = ast.Name(id=it, ctx=ast.Load())
            capture_args.append(ast.Name(id=it, ctx=ast.Load()))
        else:
            capture_args.append(ast.Constant(None))
        out.append(ast.Assign(targets=[ast.Name(id=pre, ctx=ast.Store())],
                              value=ast.Call(func=ast.Name(id="__tsim_types", ctx=ast.Load()),
                                             args=capture_args, keywords=[])))
        out.append(node)
        for o in out:
            ast.copy_location(o, node)
        return out

    def visit_For(self, node):
        return self._loop(node, _assigned([node.target]))

    def visit_If(self, node):
        """A runtime `if` (its condition a tensor): a variable defined before it and assigned in
        the branch taken must keep its type, as Triton requires of an scf.if's results (only
        the branch taken is checked here)."""
        self.generic_visit(node)
        names = sorted(_assigned(node.body) | _assigned(node.orelse))
        if not names:
            return [node]
        _Rewriter._count += 1
        pre = "__tsim_pre_%d" % _Rewriter._count
        cond = "__tsim_cond_%d" % _Rewriter._count

        def check():
            return ast.Expr(ast.Call(func=ast.Name(id="__tsim_if_check", ctx=ast.Load()),
                                     args=[ast.Name(id=pre, ctx=ast.Load()),
                                           ast.Call(func=ast.Name(id="locals", ctx=ast.Load()),
                                                    args=[], keywords=[]),
                                           ast.Constant(node.lineno)], keywords=[]))
        out = [ast.Assign(targets=[ast.Name(id=cond, ctx=ast.Store())], value=node.test),
               ast.Assign(targets=[ast.Name(id=pre, ctx=ast.Store())],
                          value=ast.Call(func=ast.Name(id="__tsim_if_types", ctx=ast.Load()),
                                         args=[ast.Call(func=ast.Name(id="locals",
                                                                      ctx=ast.Load()),
                                                        args=[], keywords=[]),
                                               ast.Tuple(elts=[ast.Constant(n) for n in names],
                                                         ctx=ast.Load()),
                                               ast.Name(id=cond, ctx=ast.Load())],
                                         keywords=[]))]
        node.test = ast.Name(id=cond, ctx=ast.Load())
        node.body = node.body + [check()]
        node.orelse = (node.orelse or []) + [check()]
        out.append(node)
        for o in out:
            ast.copy_location(o, node)
        return out

    def visit_While(self, node):
        return self._loop(node, set())


def _assigned(nodes):
    """Names stored to in these statements (not inside nested function definitions)."""
    out = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    return out


def _before_continue(body, check):
    """body with check() inserted before each `continue` of this loop (not of nested ones)."""
    out = []
    for st in body:
        if isinstance(st, ast.Continue):
            out.append(check())
        elif isinstance(st, (ast.If, ast.With, ast.Try)):
            for field in ("body", "orelse", "finalbody"):
                if hasattr(st, field):
                    setattr(st, field, _before_continue(getattr(st, field), check))
            if isinstance(st, ast.Try):
                for h in st.handlers:
                    h.body = _before_continue(h.body, check)
        out.append(st)
    return out


def _carried_type(v):
    """The Triton type a loop-carried value has, as (name, shape); None when not checked."""
    if isinstance(v, Tensor):
        return (v.dtype.name, tuple(v.data.shape))
    if isinstance(v, (bool, int, float)):
        return (core.pyscalar_type(v).name, ())
    return None


def loop_types(local_vars, names, iterable):
    """The types of the loop-carried candidates defined before a loop (none for a static_range
    or a tuple, which Triton unrolls)."""
    if iterable is not None and not isinstance(iterable, lang.range):
        return None
    return {n: _carried_type(local_vars[n]) for n in names if n in local_vars}


def if_types(local_vars, names, cond):
    """The types before a runtime `if` of the variables its branches assign (none when the
    condition is a constexpr: Triton then compiles one branch only)."""
    if not isinstance(cond, Tensor):
        return None
    return {n: _carried_type(local_vars[n]) for n in names if n in local_vars}


def if_check(pre, local_vars, line):
    if not pre:
        return
    for n, t in pre.items():
        if t is None or n not in local_vars:
            continue
        now = _carried_type(local_vars[n])
        if now is not None and now != t:
            def show(x):
                return x[0] if not x[1] else "<%s, %s>" % (list(x[1]), x[0])
            raise CompileError("Mismatched type for %s between then block (%s) and else block "
                               "(%s): the `if` of line %d has a condition known only when the "
                               "kernel runs, so both branches must leave %s with one type"
                               % (n, show(now), show(t), line, n))


def loop_check(pre, local_vars, line):
    if not pre:
        return
    for n, t in pre.items():
        if t is None or n not in local_vars:
            continue
        now = _carried_type(local_vars[n])
        if now is not None and now != t:
            def show(x):
                return x[0] if not x[1] else "<%s, %s>" % (list(x[1]), x[0])
            raise CompileError("Loop-carried variable %s has initial type %s but is "
                               "re-assigned to %s in loop! Please make sure that the type stays "
                               "consistent (the loop of line %d)." % (n, show(t), show(now), line))


_OVERRIDES = {
    "range": lang.range,
    "min": lang.builtin_min,
    "max": lang.builtin_max,
    "print": lang.builtin_print,
    "__tsim_and": lang.logical_and,
    "__tsim_or": lang.logical_or,
    "__tsim_not": lang.logical_not,
    "__tsim_types": None,  # set below: the checks are defined after the rewriter
    "__tsim_check": None,
    "__tsim_if_types": None,
    "__tsim_if_check": None,
}


_OVERRIDES["__tsim_types"] = loop_types
_OVERRIDES["__tsim_check"] = loop_check
_OVERRIDES["__tsim_if_types"] = if_types
_OVERRIDES["__tsim_if_check"] = if_check


def _is_constexpr(param):
    return D.is_constexpr_annotation(param.annotation)


class JITFunction:
    def __init__(self, fn, do_not_specialize=(), do_not_specialize_on_alignment=(), debug=None,
                 noinline=None, repr=None, launch_metadata=None):
        if not inspect.isfunction(fn):
            raise TypeError("@triton.jit decorates a function, got %r" % (fn,))
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.signature = inspect.signature(fn)
        self.params = list(self.signature.parameters.values())
        self.arg_names = [p.name for p in self.params]
        self.constexprs = [i for i, p in enumerate(self.params) if _is_constexpr(p)]
        names = set()
        for d in do_not_specialize:
            names.add(self.arg_names[d] if isinstance(d, int) else d)
        self.do_not_specialize = names
        self._code = None

    def __repr__(self):
        return "JITFunction(%s)" % self.__name__

    def _compiled(self):
        if self._code is not None:
            return self._code
        fn = self.fn
        filename = fn.__code__.co_filename
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise CompileError("cannot read the source of %s: %s" % (fn.__name__, e))
        src = textwrap.dedent("".join(lines))
        tree = ast.parse(src)
        ast.increment_lineno(tree, first - 1)
        fdef = tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            raise CompileError("%s is not a plain function definition" % fn.__name__)
        fdef.decorator_list = []
        tree = _Rewriter(filename).visit(tree)
        ast.fix_missing_locations(tree)
        glb = dict(fn.__globals__)
        glb.update(_OVERRIDES)
        if fn.__closure__:
            raise CompileError("%s uses variables of an enclosing function: a @triton.jit "
                               "function may use only globals and its arguments" % fn.__name__)
        exec(compile(tree, filename, "exec"), glb)
        self._code = glb[fn.__name__]
        return self._code

    def __call__(self, *args, **kwargs):
        if state.depth == 0:
            raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")
        return self._compiled()(*args, **kwargs)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: launch(self, grid, args, kwargs)


def constexpr_function(fn):
    return fn


class SpecialisedOne(int):
    """An integer argument equal to 1, which Triton's launcher turns into the constant 1 (a
    constexpr): arithmetic works, tensor attributes (x.to, x.dtype) do not, as in Triton."""

    def __new__(cls, name):
        self = int.__new__(cls, 1)
        self.arg_name = name
        return self

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise CompileError(
            "argument %s is 1 in this case, so Triton specialises it into the constant 1, which "
            "has no attribute %r (it is not a tensor); annotate the parameter (%s: tl.int64), "
            "or exclude it: @triton.jit(do_not_specialize=[\"%s\"])"
            % (self.arg_name, attr, self.arg_name, self.arg_name))


def _arg_value(jf, name, v, specialize):
    """A launch argument as the kernel sees it."""
    if isinstance(v, (Buffer, View)):
        return Tensor(np.array(v.base, dtype=np.int64), D.pointer_type(v.dtype))
    if isinstance(v, Scalar):
        t = D.BY_NAME.get(v.type)
        if t is None:
            raise CompileError("argument %s: unknown type %r" % (name, v.type))
        if t.is_int():
            iv = int(v.value)
            if specialize and iv == 1 and name not in jf.do_not_specialize:
                return SpecialisedOne(name)
            return core.const(iv & ((1 << 64) - 1) if t.is_int_unsigned() else iv, t)
        return core.const(float(v.value), t)
    if isinstance(v, bool):
        return core.const(v, D.int1)
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if specialize and v == 1 and name not in jf.do_not_specialize:
            return SpecialisedOne(name)
        if -2**31 <= v <= 2**31 - 1:
            return core.const(v, D.int32)
        if 2**63 <= v <= 2**64 - 1:
            return core.const(v, D.uint64)
        return core.const(v, D.int64)
    if isinstance(v, (float, np.floating)):
        return core.const(float(v), D.float32)
    if v is None:
        return None
    raise CompileError("argument %s: cannot pass %r to a kernel" % (name, v))


def _pstr(names):
    return ", ".join(names) or "none"


def check_plan_binding(jf, n_args, kwargs):
    """The judge's binding rules for a @launch (judge/triton/driver.py's specialise()): the
    positional arguments are exactly the parameters that are not tl.constexpr, keywords name
    tl.constexpr parameters, and a tl.constexpr without a default is given."""
    positional = [p.name for i, p in enumerate(jf.params) if i not in jf.constexprs]
    cparams = [p for i, p in enumerate(jf.params) if i in jf.constexprs]
    errors = []
    if n_args != len(positional):
        errors.append("`%s` takes %d positional argument%s (%s) before its tl.constexpr ones "
                      "(%s); the @launch gives %d" % (
                          jf.__name__, len(positional), "" if len(positional) == 1 else "s",
                          _pstr(positional), _pstr([p.name for p in cparams]), n_args))
    for k in kwargs:
        if k not in jf.arg_names:
            errors.append("`%s` has no parameter `%s` (its tl.constexpr parameters: %s)"
                          % (jf.__name__, k, _pstr([p.name for p in cparams])))
        elif k in positional:
            errors.append("`%s` of `%s` is not a tl.constexpr parameter: give it positionally, "
                          "in order" % (k, jf.__name__))
    for p in cparams:
        if p.name not in kwargs and p.default is inspect.Parameter.empty:
            errors.append("the tl.constexpr parameter `%s` of `%s` has no default: give it in "
                          "args as %s=..." % (p.name, jf.__name__, p.name))
    if errors:
        raise CompileError("; ".join(errors))


def annotation_type(ann):
    """The Triton type a parameter's annotation names (tl.int64, "i64", "tl.float32", ...), or
    None: the judge passes the argument with that type (an annotated integer is not folded
    into the constant 1)."""
    if isinstance(ann, D.dtype) and not ann.is_ptr():
        return ann
    if isinstance(ann, str):
        name = ann.replace(" ", "").split(".")[-1]
        long_names = {t.long_name: t for t in D.SCALARS}
        return long_names.get(name) or D.BY_NAME.get(name)
    return None


def bind(jf, args, kwargs, plan=False):
    """(values by parameter name, the memory) for a launch of jf with args / kwargs (plan=True:
    a launch of the judge's plan, bound by its rules, see check_plan_binding)."""
    if plan:
        check_plan_binding(jf, len(args), kwargs)
    try:
        ba = jf.signature.bind(*args, **kwargs)
    except TypeError as e:
        raise CompileError("%s: %s (the @launch args: first every parameter that is not a "
                           "tl.constexpr, in order, then NAME=value for the tl.constexpr ones)"
                           % (jf.__name__, e))
    ba.apply_defaults()
    values, memory = {}, None
    for i, p in enumerate(jf.params):
        v = ba.arguments[p.name]
        if i in jf.constexprs:
            if isinstance(v, (Buffer, View, Tensor, Scalar)):
                raise CompileError("%s: parameter %s is a tl.constexpr: give it by keyword in "
                                   "the @launch args (%s=value), after the positional ones"
                                   % (jf.__name__, p.name, p.name))
            values[p.name] = v
            continue
        if isinstance(v, (Buffer, View)):
            if memory is None:
                memory = v.memory
            elif memory is not v.memory:
                raise CompileError("%s: buffers of two different memories" % jf.__name__)
        ann = annotation_type(p.annotation)
        if ann is not None and not isinstance(v, (Buffer, View)) and v is not None:
            value = v.value if isinstance(v, Scalar) else v
            v = Scalar(value, ann.name)
            values[p.name] = _arg_value(jf, p.name, v, False)
            continue
        values[p.name] = _arg_value(jf, p.name, v, True)
    return values, memory


_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
            "launch_cooperative_grid", "grid_timeout")


def _alarm(signum, frame):
    raise TimeLimit("the launch ran past the simulator's time limit")


def launch(jf, grid, args, kwargs, time_limit=None, plan=False):
    """Runs jf over `grid` (a tuple, or a function of the bound arguments, as in Triton);
    plan=True for a launch of the judge's plan (see bind)."""
    kwargs = dict(kwargs)
    opts = {k: kwargs.pop(k) for k in list(kwargs) if k in _OPTIONS}
    nw = opts.get("num_warps", 4)
    if nw not in (1, 2, 4, 8, 16, 32):
        raise CompileError("num_warps must be 1, 2, 4, 8, 16 or 32, got %r" % (nw,))
    if opts.get("num_ctas", 1) != 1:
        raise CompileError("num_ctas > 1 (thread-block clusters) is refused by the judge")
    time_limit = opts.get("grid_timeout", time_limit)
    values, memory = bind(jf, args, kwargs, plan)
    if callable(grid):
        grid = grid(dict(values))
    if isinstance(grid, (int, np.integer)):
        grid = (grid,)
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    if len(grid) != 3:
        raise CompileError("grid has %d dimensions (at most 3)" % len(grid))
    if any(g < 0 for g in grid):
        raise CompileError("grid %s has a negative dimension" % (grid,))
    fn = jf._compiled()
    saved = (state.pid, state.grid, state.memory, state.depth, state.prints)
    state.grid, state.memory, state.prints = grid, memory, 0
    old = None
    if time_limit:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        state.depth = 1
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    state.pid = (x, y, z)
                    fn(**values)
    except SimError:
        raise
    except RecursionError as e:
        raise CompileError("recursion: %s" % e)
    finally:
        if time_limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        state.pid, state.grid, state.memory, state.depth, state.prints = saved


def jit(fn=None, **kwargs):
    """@triton.jit and @triton.jit(...)."""
    if fn is None:
        return lambda f: JITFunction(f, **kwargs)
    return JITFunction(fn, **kwargs)
