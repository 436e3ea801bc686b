# driver.py - the trusted Python half of blockwise-triton-compile.
#
# Embedded in the blockwise-triton-compile binary (Makefile: triton_driver_blob.o)
# and run as `python3 -I -B -X utf8 -c <this file> MODE [--no-sandbox]` once the
# C half has locked the process down (judge/triton/triton_compile_main.c). Two modes:
#
#   --serve  imports triton, compiles one trusted kernel (warm_up: the first
#            compile of a process is the slow one), says "ready", reads ONE
#            request record from fd 3
#            (until EOF), says "accepted", imports the learner's module and
#            compiles each requested kernel variant with
#              triton.compile(ASTSource(fn, signature, constexprs, attrs),
#                             target=GPUTarget("cuda", CC, 32),
#                             options={"num_warps": W, "num_stages": S})
#            (plus "maxnreg": R when the @launch gives maxnreg=; a @gluon.jit
#            kernel's source is Gluon's GluonASTSource, same arguments)
#            and answers builds (cubin, PTX, metadata, kept parameters) and
#            diagnostics at the learner's lines on fd 4, then exits.
#   --probe  (trusted, unsandboxed) imports triton, compiles one small kernel
#            the same way, and lists every path of the installation that this
#            needed: the sandbox's root is built from that list.
#
# The wire format (judge/worker/compile.h): fields "KEY LEN\n" + LEN bytes + "\n",
# ending with "end 0\n\n". Field meanings: judge/worker/triton_compile.h.
#
# Nothing here trusts the learner: after "accepted" the learner's code runs in
# this very process and may rewrite anything, including this driver's output;
# the C side checks every answer as untrusted input. The driver's job is to
# give an honest learner exact diagnostics and the specialisation Triton's own
# launcher (kernel[grid](...)) would give.
#
# Specialisation, as in Triton 3.3-3.6's runtime/jit.py (create_function_from_
# signature, specialize_impl) and backends (parse_attr, get_arg_specialization):
# the signature names EVERY parameter in order; a tl.constexpr parameter, and
# an integer argument equal to 1 (unless do_not_specialize), has the type
# "constexpr" and its value in constexprs, keyed (index,); a pointer (unless
# do_not_specialize or do_not_specialize_on_alignment) and an integer
# divisible by 16 get attrs[(index,)] = [["tt.divisibility", 16]]; a
# parameter's type annotation (tl.int64, "fp32", ...) replaces the argument's
# type, and floats and bools so annotated are not specialised; "const"
# pointers become "*k...". The cubin takes the parameters whose type is not
# "constexpr", then Triton's global and profile scratch pointers.

import os
import re
import sys
import time
import types

ERR_NOTFOUND = -5
ERR_SANDBOX = -10
ERR_PROTOCOL = -11
EXIT_CPU_LIMIT = 152  # SANDBOX_EXIT_CPU_LIMIT of judge/sandbox/sandbox.h
REQUEST_FD = 3
RESULT_FD = 4
MAX_REQUEST = 16 << 20
WARM_UP_CC = 90  # the warm-up compile's target: H100/H200, the judge's default
DIAG_BYTES = 1900  # under BW_TRITON_DIAG_BYTES, which the C side enforces

POINTEE_TYPES = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp8e4nv", "fp8e5",
                 "fp8e4b15", "fp16", "bf16", "fp32", "fp64"}
INT_TYPES = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}


# ---- the wire format ---------------------------------------------------------------------

def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]


def field(key, value=b""):
    if isinstance(value, str):
        value = value.encode("utf-8", "replace")
    return b"%s %d\n" % (key.encode(), len(value)) + value + b"\n"


OUT_FD = RESULT_FD  # where put() writes: the result pipe, or a compile worker's file


def put(key, value=b""):
    write_all(OUT_FD, field(key, value))


def end():
    put("end")


def read_all(fd, cap):
    chunks, total = [], 0
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > cap:
            raise ValueError("the request is over %d bytes" % cap)
        chunks.append(chunk)


def parse_record(data):
    """[(key, bytes)] of one record; ValueError when malformed."""
    fields, pos = [], 0
    while True:
        m = re.compile(rb"([a-z_]{1,32}) ([0-9]{1,12})\n").match(data, pos)
        if not m:
            raise ValueError("malformed field at byte %d" % pos)
        key, n = m.group(1).decode(), int(m.group(2))
        start = m.end()
        if start + n + 1 > len(data) or data[start + n:start + n + 1] != b"\n":
            raise ValueError("field %s is truncated" % key)
        if key == "end":
            return fields
        fields.append((key, data[start:start + n]))
        pos = start + n + 1


# Directories an unsandboxed run made and must remove before it exits: the
# driver leaves through os._exit, which runs no atexit handler.
OWN_DIRS = []


def leave(status):
    import shutil
    for d in OWN_DIRS:
        os.chdir("/")
        shutil.rmtree(d, True)
    os._exit(status)


def fail_setup(step, code, message):
    put("error_step", step)
    put("error_code", str(code))
    put("error", message)
    end()
    sys.stderr.write("blockwise-triton-compile: %s: %s\n" % (step, message))
    sys.stderr.flush()
    leave(3)


def one_line(e):
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    return text[:DIAG_BYTES]


# ---- the request -------------------------------------------------------------------------

class KernelRequest:
    def __init__(self, name):
        self.name = name
        self.line = 0
        self.num_warps = 4
        self.num_stages = 3
        self.maxnreg = None   # Triton's default: no cap on registers per thread
        self.args = []        # [(type, flags)]
        self.constexprs = []  # [(name, int)]


def decode_request(data):
    fields = parse_record(data)
    rq = {"filename": None, "source": None, "cc": None, "jobs": "1", "kernels": [],
          "launch_fields": []}
    k = None
    for key, value in fields:
        if key in LAUNCH_FIELDS:  # a launcher request (launcher.py reads these)
            rq["launch_fields"].append((key, value))
        elif key in ("filename", "cc", "jobs"):
            rq[key] = value.decode()
        elif key == "source":
            rq["source"] = value
        elif key == "kernel":
            k = KernelRequest(value.decode())
            rq["kernels"].append(k)
        elif k is None:
            raise ValueError("field %s before any kernel" % key)
        elif key == "line":
            k.line = int(value)
        elif key == "num_warps":
            k.num_warps = int(value)
        elif key == "num_stages":
            k.num_stages = int(value)
        elif key == "maxnreg":
            k.maxnreg = int(value)
        elif key == "arg":
            ty, _, flags = value.decode().partition(" ")
            k.args.append((ty, flags))
        elif key == "constexpr":
            name, _, v = value.decode().partition("=")
            k.constexprs.append((name, constexpr_literal(v)))
        else:
            raise ValueError("unknown request field %s" % key)
    if rq["filename"] is None or rq["source"] is None or rq["cc"] is None:
        raise ValueError("the request lacks filename, source or cc")
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", rq["filename"]):
        raise ValueError("bad file name %r" % rq["filename"])
    rq["cc"] = int(rq["cc"])
    rq["jobs"] = int(rq["jobs"])
    if len(rq["kernels"]) > 255:  # compile_in_workers' queue holds one byte per index
        raise ValueError("%d kernel variants, over 255" % len(rq["kernels"]))
    rq["launch"] = any(key == "mode" for key, _ in rq["launch_fields"])
    if rq["launch"] == bool(rq["kernels"]):
        raise ValueError("a request names kernels, or is a launcher request (mode launch), not both")
    return rq


def constexpr_literal(text):
    """A constexpr value as the request writes it: an int, True, False, None, 'text' or a
    float (judge/worker/triton_compile.h, triton_request_encode)."""
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)


# The fields of a launcher request (judge/worker/triton_launcher.h), read by launcher.py.
LAUNCH_FIELDS = ("mode", "record_only", "tests_only", "device", "limit", "tensor", "scalar",
                 "size", "case", "shape", "value", "scratch_limit", "compile_source", "have")
LAUNCHER_SOURCE = ""  # launcher.py's text: the arguments after each --launcher, joined


def load_launcher():
    """launcher.py (embedded beside this driver, given as an argument) as a module."""
    mod = types.ModuleType("blockwise_launcher")
    mod.__file__ = "<blockwise launcher.py>"
    exec(compile(LAUNCHER_SOURCE, mod.__file__, "exec", dont_inherit=True), mod.__dict__)
    return mod


# ---- diagnostics ---------------------------------------------------------------------------

class Diags:
    def __init__(self):
        self.items = []
        self.seen = set()

    def add(self, line, col, severity, msg):
        msg = msg.strip() or "error"
        key = (line, col, msg)
        if key in self.seen:
            return
        self.seen.add(key)
        self.items.append((max(0, int(line)), max(0, int(col)), "%s: %s" % (severity, msg[:DIAG_BYTES])))

    def send(self):
        for line, col, msg in self.items:
            put("diag", "%d:%d:%s" % (line, col, msg))


def learner_frame(tb, filename):
    """(line, col) of the innermost traceback frame in the learner's file, or None."""
    best = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            best = (tb.tb_lineno, 0)
        tb = tb.tb_next
    return best


def exception_chain(e):
    out, seen = [], set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(e)
        e = e.__cause__ if e.__cause__ is not None else (None if e.__suppress_context__ else e.__context__)
    return out  # outermost first


# ---- the learner's module -----------------------------------------------------------------

class Learner:
    """The learner's module, imported from a file of the work directory."""

    def __init__(self, triton, filename, source, workdir):
        self.triton = triton
        self.filename = filename
        self.module = None
        self.source = source
        self.workdir = workdir

    def load(self, diags):
        import linecache
        import types
        path = os.path.join(self.workdir, self.filename)
        with open(path, "wb") as f:
            f.write(self.source)
        text = self.source.decode("utf-8", "replace")
        lines = text.splitlines(True)
        linecache.cache[self.filename] = (len(text), None, lines, self.filename)
        try:
            code = compile(self.source, self.filename, "exec", dont_inherit=True)
        except SyntaxError as e:
            col = e.offset or 0
            diags.add(e.lineno or 0, col, "error", "SyntaxError: %s" % (e.msg or "invalid syntax"))
            return False
        except (ValueError, UnicodeError) as e:
            diags.add(0, 0, "error", one_line(e))
            return False
        # Always this name: a file called triton.py or os.py must not replace a real module.
        name = "submission"
        mod = types.ModuleType(name)
        mod.__file__ = self.filename
        sys.modules[name] = mod
        try:
            exec(code, mod.__dict__)
        except SystemExit as e:
            where = learner_frame(e.__traceback__, self.filename) or (0, 0)
            diags.add(where[0], where[1], "error",
                      "the module exited (SystemExit %s) while it was imported" % (e.code,))
            return False
        except BaseException as e:  # the learner's exception, whatever it is
            where = learner_frame(e.__traceback__, self.filename) or (0, 0)
            diags.add(where[0], where[1], "error", one_line(e))
            return False
        self.module = mod
        return True

    def jit_functions(self):
        """Every JITFunction reachable from the module's globals (unwrapping autotune);
        Gluon's GluonJITFunction (@gluon.jit) is one of its subclasses."""
        JIT = self.triton.runtime.jit.JITFunction
        out = []
        for value in list(vars(self.module).values()):
            seen = 0
            while value is not None and not isinstance(value, JIT) and hasattr(value, "fn") and seen < 8:
                value, seen = value.fn, seen + 1
            if isinstance(value, JIT):
                out.append(value)
        return out

    def def_line(self, jf):
        """The line of `def` of a JITFunction, and its indentation."""
        import inspect
        try:
            lines, start = inspect.getsourcelines(jf.fn)
        except (OSError, TypeError):
            return getattr(jf, "starting_line_number", 0) or 0, 0
        for i, text in enumerate(lines):
            stripped = text.lstrip()
            if stripped.startswith("def ") or stripped.startswith("async def "):
                return start + i, len(text) - len(stripped)
        return start, 0

    def locate(self, src, node):
        """(line, col) in the learner's file of an AST node of the function whose src is `src`."""
        if node is None or not hasattr(node, "lineno"):
            return None
        for jf in self.jit_functions():
            if getattr(jf, "src", None) == src and jf.fn.__code__.co_filename == self.filename:
                line, indent = self.def_line(jf)
                return line + node.lineno - 1, indent + getattr(node, "col_offset", 0) + 1
        return None


# ---- binding and specialisation ------------------------------------------------------------

class BindError(Exception):
    pass


def pstr(params):
    return ", ".join(p.name for p in params) or "none"


def find_kernel(learner, name):
    triton = learner.triton
    JIT = triton.runtime.jit.JITFunction
    mod = learner.module
    if name not in vars(mod):
        raise BindError("`%s` is not defined at the top level of %s" % (name, learner.filename))
    obj = vars(mod)[name]
    if not isinstance(obj, JIT):
        inner, depth = obj, 0
        while hasattr(inner, "fn") and not isinstance(inner, JIT) and depth < 8:
            inner, depth = inner.fn, depth + 1
        if isinstance(inner, JIT):
            raise BindError("`%s` is wrapped by %s: the judge compiles the @triton.jit function "
                            "itself; tune with # @tune and give every tl.constexpr in the @launch "
                            "args" % (name, type(obj).__name__))
        raise BindError("`%s` is not a @triton.jit (or @gluon.jit) function (it is a %s)"
                        % (name, type(obj).__name__))
    if obj.fn.__code__.co_filename != learner.filename:
        raise BindError("`%s` is a @triton.jit (or @gluon.jit) function of another module (%s): "
                        "@launch runs kernels defined in %s"
                        % (name, obj.fn.__module__, learner.filename))
    return obj


def is_gluon(fn):
    """A @gluon.jit kernel: Triton 3.6's GluonJITFunction says so with is_gluon()."""
    test = getattr(fn, "is_gluon", None)
    return callable(test) and test() is True


def specialise(fn, k, attr_d):
    """(signature, constexprs, attrs, kept) for one kernel request; BindError on a bad binding."""
    params = list(fn.params)
    positional = [p for p in params if not p.is_constexpr]
    constexpr_params = [p for p in params if p.is_constexpr]
    errors = []
    if len(k.args) != len(positional):
        errors.append("`%s` takes %d positional argument%s (%s) before its tl.constexpr ones "
                      "(%s); the @launch gives %d"
                      % (k.name, len(positional), "" if len(positional) == 1 else "s",
                         pstr(positional), pstr(constexpr_params), len(k.args)))
    given = {}
    for name, value in k.constexprs:
        p = next((q for q in params if q.name == name), None)
        if p is None:
            errors.append("`%s` has no parameter `%s` (its tl.constexpr parameters: %s)"
                          % (k.name, name, pstr(constexpr_params)))
        elif not p.is_constexpr:
            errors.append("`%s` of `%s` is not a tl.constexpr parameter: give it positionally, "
                          "in order" % (name, k.name))
        elif name in given:
            errors.append("`%s` is given twice" % name)
        else:
            given[name] = value
    for p in constexpr_params:
        if p.name not in given and not p.has_default:
            errors.append("the tl.constexpr parameter `%s` of `%s` has no default: give it in "
                          "args as %s=..." % (p.name, k.name, p.name))
    for ty, _ in k.args:
        if ty.startswith("tensordesc"):
            errors.append("host-side tensor descriptors are not supported")
    if errors:
        raise BindError("; ".join(errors))

    signature, constexprs, attrs, kept = {}, {}, {}, []
    position = 0  # index of the next positional argument of the request
    for i, p in enumerate(params):
        if p.is_constexpr:
            signature[p.name] = "constexpr"
            constexprs[(i,)] = given[p.name] if p.name in given else p.default
            continue
        ty, flags = k.args[position]
        specialize = not getattr(p, "do_not_specialize", False)
        align = not getattr(p, "do_not_specialize_on_alignment", False)
        if ty.startswith("*"):
            if getattr(p, "is_const", False) and not ty.startswith("*k"):
                ty = "*k" + ty[1:]
            key = "D" if specialize and align and "D" in flags else None
        elif ty in INT_TYPES:
            if specialize and "1" in flags:
                ty, key = "constexpr", 1
            else:
                key = "D" if specialize and align and "D" in flags else None
        else:
            key = None
        annotation = getattr(p, "annotation_type", "") or ""
        if annotation:
            if annotation == "u1" or annotation[:2] in ("fp", "bf"):
                ty, key = annotation, None
            else:
                # ("annotation",) + specialisation[1:]: a folded 1 stays an argument
                ty = annotation
        signature[p.name] = ty
        if ty == "constexpr":
            constexprs[(i,)] = 1
        else:
            if key == "D":
                attrs[(i,)] = attr_d
            kept.append((position, ty))
        position += 1
    return signature, constexprs, attrs, kept


def ptx_param_count(ptx, name):
    m = re.search(r"\.entry\s+%s\s*\(([^)]*)\)" % re.escape(name), ptx)
    if not m:
        return -1
    return len(re.findall(r"\.param\s", m.group(1)))


# ---- compiling ------------------------------------------------------------------------------

class Compiler:
    def __init__(self, triton, cc):
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        self.triton = triton
        self.ASTSource = ASTSource
        self.GluonASTSource = None  # imported by source_class for the first @gluon.jit kernel
        self.target = GPUTarget("cuda", cc, 32)
        self.attr_d = [["tt.divisibility", 16]]
        try:
            from triton.compiler.compiler import make_backend
            parsed = make_backend(self.target).parse_attr("D")
            if parsed:
                self.attr_d = parsed
        except Exception:
            pass
        self.memo = {}

    def source_class(self, fn):
        """ASTSource, or GluonASTSource (triton.experimental.gluon._runtime) for a @gluon.jit
        kernel; BindError when this Triton has no Gluon compiler."""
        if not is_gluon(fn):
            return self.ASTSource
        if self.GluonASTSource is None:
            try:
                from triton.experimental.gluon._runtime import GluonASTSource
            except Exception as e:  # an installation without Gluon, or another layout of it
                raise BindError("`%s` is a @gluon.jit kernel, and Triton %s here has no Gluon "
                                "compiler (triton.experimental.gluon._runtime.GluonASTSource: %s)"
                                % (fn.__name__, getattr(self.triton, "__version__", "?"),
                                   one_line(e)))
            self.GluonASTSource = GluonASTSource
        return self.GluonASTSource

    def compile(self, fn, k, spec):
        signature, constexprs, attrs, _ = spec
        key = (k.name, tuple(signature.items()), repr(sorted(constexprs.items())),
               repr(sorted(attrs.items())), k.num_warps, k.num_stages, k.maxnreg)
        if key in self.memo:
            return self.memo[key]
        src = self.source_class(fn)(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
        options = {"num_warps": k.num_warps, "num_stages": k.num_stages}
        if k.maxnreg is not None:
            options["maxnreg"] = k.maxnreg
        compiled = self.triton.compile(src, target=self.target, options=options)
        self.memo[key] = compiled
        return compiled


def capture_stderr(run):
    """Runs run() with fd 2 going to a file; returns (result or exception, captured text)."""
    import tempfile
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 2)
        try:
            try:
                result = (run(), None)
            except BaseException as e:  # reported, never raised past the driver
                result = (None, e)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read(1 << 20).decode("utf-8", "replace")
    if text:
        sys.stderr.write(text)
        sys.stderr.flush()
    return result, text


def mlir_diags(text, learner, diags):
    """MLIR's "FILE:LINE:COL: error: MSG" lines about the learner's file."""
    pattern = re.compile(r"^%s:(\d+):(\d+): (error|warning|remark): (.*)$" % re.escape(learner.filename))
    found = False
    for line in text.splitlines():
        m = pattern.match(line.strip())
        if m:
            diags.add(int(m.group(1)), int(m.group(2)), m.group(3), m.group(4))
            found = found or m.group(3) == "error"
    return found


def report_compile_error(e, learner, fn, k, diags):
    """One error at the innermost place of the learner's file that the exception names."""
    from triton.compiler.errors import CompilationError
    chain = exception_chain(e)  # outermost first
    located, message = [], None
    for c in chain:
        if isinstance(c, CompilationError):
            where = learner.locate(getattr(c, "src", None), getattr(c, "node", None))
            if where:
                located.append(where)
            text = getattr(c, "error_message", None)
        else:
            text = one_line(c)
        if text:
            message = text  # the innermost message wins: it is the cause
    if located:
        diags.add(located[-1][0], located[-1][1], "error", message or one_line(chain[-1]))
        for line, col in located[:-1]:
            diags.add(line, col, "remark", "the error above happens in this call")
        return
    where = None
    for c in reversed(chain):
        where = where or learner_frame(c.__traceback__, learner.filename)
    if where is None:
        where = (learner.def_line(fn)[0], 0)
    diags.add(where[0], where[1], "error", "Triton could not compile `%s` (%s): %s"
              % (k.name, options_text(k), message or one_line(chain[-1])))


def options_text(k):
    """num_warps=4, num_stages=3[, maxnreg=168]: the options a build was compiled with."""
    text = "num_warps=%d, num_stages=%d" % (k.num_warps, k.num_stages)
    return text + (", maxnreg=%d" % k.maxnreg if k.maxnreg is not None else "")


def compile_one(compiler, learner, item, given_up, diags):
    """Compiles one bound variant; puts its build or "failed"."""
    from triton.compiler.errors import CompilationError
    i, k, fn, spec = item
    if k.name in given_up:
        put("failed", str(i))
        return
    (compiled, err), text = capture_stderr(lambda: compiler.compile(fn, k, spec))
    if err is not None:
        located = mlir_diags(text, learner, diags)
        if not located or isinstance(err, CompilationError):
            report_compile_error(err, learner, fn, k, diags)
        if isinstance(err, CompilationError):
            given_up.add(k.name)  # its other variants would repeat the same error
        put("failed", str(i))
        return
    send_build(i, compiled, spec)


class Worker:
    """A forked compile worker as the relaying process sees it."""

    def __init__(self, pid, fd):
        self.pid = pid
        self.fd = fd
        self.data = b""    # what it wrote and was not read as whole fields yet
        self.group = None  # the fields of the build it is sending, until its "built"
        self.ended = False  # it sent its "end"
        self.bad = False    # it wrote something that is not a field


def relay(w, diags, reported):
    """Puts every whole build worker w finished since the last call (its fields, once its
    "built" or "failed" came), keeping its diagnostics for the end."""
    while not w.ended and not w.bad:
        m = FIELD.match(w.data)
        if not m:
            if len(w.data) > 48 and not FIELD_START.match(w.data):
                w.bad = True
            return
        key, n = m.group(1).decode(), int(m.group(2))
        start = m.end()
        if len(w.data) < start + n + 1:
            return
        if w.data[start + n:start + n + 1] != b"\n":
            w.bad = True
            return
        value = w.data[start:start + n]
        w.data = w.data[start + n + 1:]
        try:
            relay_field(w, key, value, diags, reported)
        except ValueError:  # a worker the learner's code wrote into
            w.bad = True


def relay_field(w, key, value, diags, reported):
    if key == "end":
        w.ended = True
    elif key == "diag":
        line, col, msg = value.decode("utf-8", "replace").split(":", 2)
        severity, _, text = msg.partition(": ")
        diags.add(int(line), int(col), severity, text)
    elif key == "failed":
        w.group = None
        reported.add(int(value))
        put(key, value)
    elif key == "build":
        int(value)
        w.group = [(key, value)]
    elif w.group is None:
        raise ValueError("a build field outside a build")
    elif key == "built":
        for k, v in w.group + [(key, value)]:
            put(k, v)
        reported.add(int(value))
        w.group = None
    else:
        w.group.append((key, value))


FIELD = re.compile(rb"([a-z_]{1,32}) ([0-9]{1,12})\n")
FIELD_START = re.compile(rb"[a-z_]{1,32}( [0-9]{0,12})?$")


def compile_in_workers(compiler, learner, items, jobs, diags):
    """Compiles items in `jobs` forked processes. The items wait in a queue in the
    request's order (the judge orders the builds by the first test case that needs
    them); each worker takes the next one when it is free and writes its fields to a
    pipe of its own, and this process puts each build on the result as soon as its
    worker finished it, so that the judge can test with it while the others compile.
    Forked after warm_up, every worker is warm. A worker that dies loses the item it
    was compiling (failed, with why as the compile's failure); the others go on."""
    import select
    import signal
    by_index = {item[0]: item for item in items}
    queue_r, queue_w = os.pipe()
    write_all(queue_w, bytes(item[0] for item in items))  # indices < 256: decode_request
    workers = []
    for _ in range(jobs):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: its own pipe; its "end" says it finished
            global OUT_FD
            try:
                os.close(r)
                os.close(queue_w)
                for other in workers:
                    os.close(other.fd)
                OUT_FD = w
                mine, given_up = Diags(), set()
                while True:
                    b = os.read(queue_r, 1)
                    if not b:
                        break
                    compile_one(compiler, learner, by_index[b[0]], given_up, mine)
                mine.send()
                end()
            finally:
                os._exit(0)
        os.close(w)
        workers.append(Worker(pid, r))
    os.close(queue_r)
    os.close(queue_w)
    reported, live = set(), {w.fd: w for w in workers}
    while live:
        ready, _, _ = select.select(list(live), [], [])
        for fd in ready:
            w = live[fd]
            chunk = os.read(fd, 1 << 20)
            if chunk:
                w.data += chunk
                relay(w, diags, reported)
                continue
            os.close(fd)
            del live[fd]
    failure = None
    for w in workers:
        _, status = os.waitpid(w.pid, 0)
        if w.ended and not w.bad:
            continue
        if w.bad:
            why = "it wrote something that is not the compiler's answer"
        elif os.WIFSIGNALED(status):
            why = "signal %d (%s)" % (os.WTERMSIG(status), signal.Signals(os.WTERMSIG(status)).name)
        elif os.WEXITSTATUS(status) == EXIT_CPU_LIMIT:
            why = "its CPU time limit"
        else:
            why = "exit status %d" % os.WEXITSTATUS(status)
        failure = failure or "a Triton compile worker ended early: %s" % why
    for item in items:
        if item[0] not in reported:
            put("failed", str(item[0]))
    if failure:
        put("failure", failure)


def compile_all(triton, rq, workdir):
    diags = Diags()
    learner = Learner(triton, rq["filename"], rq["source"], workdir)
    t0 = time.monotonic()
    if not learner.load(diags):
        for i in range(len(rq["kernels"])):
            put("failed", str(i))
        diags.send()
        return time.monotonic() - t0
    compiler = Compiler(triton, rq["cc"])
    # Binding is cheap and reported once per kernel: here, before any compile.
    items, refused = [], set()
    for i, k in enumerate(rq["kernels"]):
        if k.name in refused:
            put("failed", str(i))
            continue
        try:
            fn = find_kernel(learner, k.name)
            compiler.source_class(fn)  # a @gluon.jit kernel needs Triton's Gluon
            items.append((i, k, fn, specialise(fn, k, compiler.attr_d)))
        except BindError as e:
            diags.add(k.line, 0, "error", str(e))
            refused.add(k.name)
            put("failed", str(i))
    compile_bound(compiler, learner, items, rq["jobs"], diags)
    diags.send()
    return time.monotonic() - t0


def compile_bound(compiler, learner, items, jobs, diags):
    """Compiles bound variants (index, KernelRequest, fn, specialisation) in at most `jobs`
    processes; puts each build or "failed". Shared by kernel requests and launcher.py."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except OSError:
        cpus = 1
    jobs = max(1, min(jobs, cpus, len(items)))
    if jobs == 1:
        given_up = set()
        for item in items:
            compile_one(compiler, learner, item, given_up, diags)
    else:
        compile_in_workers(compiler, learner, items, jobs, diags)


def send_build(i, compiled, spec):
    md = compiled.metadata
    cubin = compiled.asm["cubin"]
    ptx = compiled.asm.get("ptx", "") if hasattr(compiled.asm, "get") else compiled.asm["ptx"]
    _, _, _, kept = spec
    put("build", str(i))
    put("name", md.name)
    put("cubin", bytes(cubin))
    put("ptx", ptx)
    put("num_warps", str(md.num_warps))
    put("num_ctas", str(getattr(md, "num_ctas", 1)))
    put("shared", str(getattr(md, "shared", 0) or 0))
    put("global_scratch_size", str(getattr(md, "global_scratch_size", 0) or 0))
    put("global_scratch_align", str(getattr(md, "global_scratch_align", 1) or 1))
    put("profile_scratch_size", str(getattr(md, "profile_scratch_size", 0) or 0))
    put("params", ",".join(str(idx) for idx, _ in kept))
    put("types", ",".join(ty for _, ty in kept))
    put("ptx_params", str(ptx_param_count(ptx, md.name)))
    put("built", str(i))  # the build is whole: the judge may test with it now


# ---- the two modes -----------------------------------------------------------------------------

def make_workdirs(sandboxed):
    """The work directory; HOME, TMPDIR and TRITON_CACHE_DIR exist (made here unsandboxed)."""
    import tempfile
    if sandboxed:
        base = os.environ.get("TMPDIR", "/tmp")
    else:
        base = tempfile.mkdtemp(prefix="blockwise-triton-")
        OWN_DIRS.append(base)
        os.environ["TMPDIR"] = base
        os.environ["HOME"] = os.path.join(base, "home")
        os.environ["TRITON_CACHE_DIR"] = os.path.join(base, "triton-cache")
    tempfile.tempdir = base
    for name in ("HOME", "TRITON_CACHE_DIR"):
        os.makedirs(os.environ.setdefault(name, os.path.join(base, name.lower())), exist_ok=True)
    work = os.path.join(base, "work")
    os.makedirs(work, exist_ok=True)
    return work


def import_triton(step_code):
    try:
        import triton
        import triton.compiler  # noqa: F401 (ASTSource, compile)
        import triton.compiler.errors  # noqa: F401
        import triton.runtime.jit  # noqa: F401
    except BaseException as e:  # any failure to import is the installation's, not the learner's
        fail_setup("import triton", step_code, one_line(e))
    version = getattr(triton, "__version__", "?")
    m = re.match(r"(\d+)\.(\d+)", version)
    if not m or (int(m.group(1)), int(m.group(2))) < (3, 3):
        fail_setup("import triton", ERR_NOTFOUND,
                   "Triton %s is older than 3.3, whose compile interface the judge speaks" % version)
    return triton


def compile_probe(triton, cc, workdir):
    """Compiles PROBE_SOURCE's kernel for GPUTarget("cuda", cc, 32) in this process: (the
    compiled kernel, None), or (None, why). Trusted code only."""
    k = KernelRequest("blockwise_probe")
    k.args = [("*fp32", "D"), ("i32", "D")]
    k.constexprs = [("BLOCK", 128)]
    diags = Diags()
    learner = Learner(triton, "blockwise_probe.py", PROBE_SOURCE, workdir)
    try:
        if not learner.load(diags):
            return None, ("the probe kernel does not import: %s"
                          % "; ".join(m for _, _, m in diags.items))
        fn = find_kernel(learner, k.name)
        compiler = Compiler(triton, cc)
        spec = specialise(fn, k, compiler.attr_d)
        (compiled, err), text = capture_stderr(lambda: compiler.compile(fn, k, spec))
    finally:
        sys.modules.pop("submission", None)
        try:
            os.unlink(os.path.join(workdir, "blockwise_probe.py"))
        except OSError:
            pass
    if err is not None:
        return None, "Triton cannot compile a small kernel: %s%s" % (
            one_line(err), (": " + text.strip()[-500:]) if text.strip() else "")
    return compiled, None


def warm_up(triton, workdir):
    """One trusted compile before the request. A process's first compile pays for loading
    Triton's backend and initialising MLIR and LLVM (about 1 s for a vector add on the H200,
    against 0.07 s for the same kernel once warm), so that the learner's does not. A failure
    here is left for the learner's compile to meet and report."""
    compile_probe(triton, WARM_UP_CC, workdir)


def serve(sandboxed):
    import signal
    signal.signal(signal.SIGXCPU, lambda *_: os._exit(EXIT_CPU_LIMIT))
    try:
        workdir = make_workdirs(sandboxed)
    except OSError as e:
        fail_setup("work directories", ERR_SANDBOX, one_line(e))
    triton = import_triton(ERR_SANDBOX if sandboxed else ERR_NOTFOUND)
    warm_up(triton, workdir)
    put("ready", getattr(triton, "__version__", "?"))
    try:
        data = read_all(REQUEST_FD, MAX_REQUEST)
        os.close(REQUEST_FD)
        rq = decode_request(data)
    except (OSError, ValueError) as e:
        fail_setup("read request", ERR_PROTOCOL, one_line(e))
    put("accepted")
    os.chdir(workdir)
    if rq["launch"]:
        try:
            launcher = load_launcher()
        except BaseException as e:  # the embedded recorder is trusted: a failure is the judge's
            put("failure", "the launcher recorder failed to load: %s" % one_line(e))
            end()
            leave(3)
        seconds = launcher.serve_launch(globals(), triton, rq, rq["launch_fields"], workdir)
    else:
        seconds = compile_all(triton, rq, workdir)
    put("driver_ms", "%.3f" % (seconds * 1000.0))
    end()
    sys.stdout.flush()
    sys.stderr.flush()
    leave(0)


PROBE_SOURCE = b'''import triton
import triton.language as tl


@triton.jit
def blockwise_probe(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
'''


def elf_interpreter(path):
    """PT_INTERP of a 64-bit little-endian ELF file, or None."""
    import struct
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return None
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            for i in range(phnum):
                p_type, = struct.unpack_from("<I", table, i * phentsize)
                if p_type == 3:
                    offset, = struct.unpack_from("<Q", table, i * phentsize + 8)
                    size, = struct.unpack_from("<Q", table, i * phentsize + 32)
                    f.seek(offset)
                    return f.read(size).rstrip(b"\0").decode()
    except (OSError, ValueError):
        return None
    return None


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def loader_list(interp, obj):
    """The paths the dynamic loader opens for obj (ld.so --list), as it names them."""
    import subprocess
    try:
        out = subprocess.run([interp, "--list", obj], env={}, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=30).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return []
    paths = []
    for line in out.splitlines():
        m = re.match(r"\s*\S+ => (/\S+) \(0x[0-9a-f]+\)", line) or re.match(r"\s*(/\S+) \(0x[0-9a-f]+\)", line)
        if m:
            paths.append(m.group(1))
    return paths


def probe_paths(triton):
    files, dirs = set(), set()
    exe = sys.executable
    files.add(exe)
    files.add(os.path.realpath(exe))
    base = getattr(sys, "_base_executable", None)
    if base and os.path.exists(base):
        files.add(base)
        files.add(os.path.realpath(base))
    cfg = os.path.join(sys.prefix, "pyvenv.cfg")
    if os.path.isfile(cfg):
        files.add(cfg)
    if os.path.isfile("/etc/ld.so.cache"):
        files.add("/etc/ld.so.cache")
    for p in sys.path:
        if p and os.path.isabs(p) and os.path.exists(p):
            (dirs if os.path.isdir(p) else files).add(os.path.normpath(p))
    package = os.path.dirname(os.path.realpath(triton.__file__))
    dirs.add(package)
    objects = {os.path.realpath(exe)}
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/") and not parts[5].endswith(" (deleted)"):
                path = parts[5].strip()
                if os.path.isfile(path):
                    files.add(path)
                    if is_elf(path):
                        objects.add(path)
    backends = os.path.join(package, "backends")
    if os.path.isdir(backends):
        for backend in os.listdir(backends):
            bindir = os.path.join(backends, backend, "bin")
            if os.path.isdir(bindir):
                for tool in os.listdir(bindir):
                    path = os.path.join(bindir, tool)
                    if os.path.isfile(path) and is_elf(path):
                        objects.add(path)
    interps = set()
    for obj in sorted(objects):
        interp = elf_interpreter(obj)
        if interp:
            interps.add(interp)
    interp = elf_interpreter(os.path.realpath(exe))
    for i in interps:
        files.add(i)
    if interp:
        for obj in sorted(objects):
            files.update(loader_list(interp, obj))

    def covered(path, by):
        return any(path == d or path.startswith(d.rstrip("/") + "/") for d in by)

    kept_dirs = sorted(d for d in dirs if not covered(d, dirs - {d}))
    kept_files = sorted(f for f in files if not covered(f, kept_dirs))
    return kept_dirs + kept_files


def probe(cc):
    import shutil
    import tempfile
    for name in list(os.environ):
        if name.startswith("TRITON_"):
            del os.environ[name]
    base = tempfile.mkdtemp(prefix="blockwise-triton-probe-")

    def give_up(step, message):
        os.chdir("/")
        shutil.rmtree(base, True)
        fail_setup(step, ERR_NOTFOUND, message)

    os.environ["TRITON_CACHE_DIR"] = os.path.join(base, "triton-cache")
    tempfile.tempdir = base
    work = os.path.join(base, "work")
    os.makedirs(work)
    try:
        import triton  # noqa: F401 (import_triton reports the failure)
    except BaseException as e:
        give_up("import triton", one_line(e))
    triton = import_triton(ERR_NOTFOUND)
    os.chdir(work)
    compiled, why = compile_probe(triton, cc, work)
    if compiled is None:
        give_up("probe compile", why)
    cubin = compiled.asm["cubin"]
    if not isinstance(cubin, (bytes, bytearray)) or not cubin:
        give_up("probe compile", "Triton compiled no cubin")
    try:
        paths = probe_paths(triton)
    except OSError as e:
        give_up("probe paths", one_line(e))
    os.chdir("/")
    shutil.rmtree(base, True)
    put("version", getattr(triton, "__version__", "?"))
    put("python", sys.executable)
    for p in paths:
        put("path", p)
    end()
    sys.stdout.flush()
    os._exit(0)


def main(argv):
    global LAUNCHER_SOURCE
    sandboxed = "--no-sandbox" not in argv
    # launcher.py comes in pieces, each after --launcher (one argument holds at most 128 KiB)
    LAUNCHER_SOURCE = "".join(argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--launcher")
    if "--probe" in argv:
        cc = 90
        for a in argv:
            if a.startswith("--cc="):
                cc = int(a[5:])
        probe(cc)
    elif "--serve" in argv:
        serve(sandboxed)
    fail_setup("arguments", ERR_PROTOCOL, "expected --serve or --probe, got %r" % (argv,))


main(sys.argv[1:])
