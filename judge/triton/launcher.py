# launcher.py - the trusted recorder of a Triton submission's launcher, `solve(...)`.
#
# Embedded in blockwise-triton-compile beside driver.py (Makefile:
# triton_launcher_blob.o) and loaded by the driver as a module when a request
# has "mode launch" (judge/worker/triton_launcher.h). It runs inside the
# Triton compile sandbox, in the same Python as the compiler: one start, one
# `import triton`, for recording and compiling.
#
# What it does, in order (serve_launch):
#   1. installs a STAND-IN `torch` (sys.modules["torch"]: tensors with a shape,
#      a dtype, strides, an element offset into one of the problem's buffers
#      and a fake 256-byte-aligned address, but no data; the GPU's properties)
#      and a stand-in `triton.runtime.driver.active` (the worker's GPU), and
#      replaces the launch entry points of Triton's JITFunction, Autotuner,
#      Heuristics (and Gluon's JITFunction) with the recorder's;
#   2. per case, in a forked child (up to `jobs` at once), imports the
#      learner's module (driver.py's Learner), finds its @triton.autotune
#      kernels (the program's configurations: every combination of their
#      configs, like @tune), binds `solve` to the problem's tensors, scalars and
#      sizes (by name, or in the canonical order: tensors, then scalars, then
#      sizes), and calls solve once per configuration with that case's
#      stand-ins, recording what it launches;
#   3. kills every process that ran the learner's code and empties the
#      sandbox's tmpfs (end_learner_code);
#   4. answers the recorded plans, then the distinct kernel variants they need
#      (Triton's specialisation of the recorded values), each with its variant
#      key, in the order the test cases need them, marks those judged already
#      holds ("cached"), and compiles the others in one more child, which
#      imports the module as judged keyed it (`compile_source`: the launch
#      code blanked, judge/worker/triton_key.h) and compiles each variant from
#      its key, answering each build as soon as it exists.
#
# Who runs the learner's code, and why: this process (the driver, pid 1 of the
# sandbox's pid namespace) never does. Each case's child imports the whole file
# and runs solve; it writes its recording to a pipe of its own and has no
# result pipe (fd 4 is /dev/null there), so it can neither forge the answer
# nor kill the driver (a signal to pid 1 from inside its namespace is
# ignored). The compile child imports only the keyed text, and only once every
# process that ran the whole file is dead and the tmpfs they wrote is gone:
# so each build is a function of its cache key (the keyed text and the
# variant), whatever the learner's launcher did, and a build judged caches for
# one learner is one that any module with the same keyed text would build.
#
# Nothing here is trusted by the judge: judged validates every recorded
# launch (buffer names, offsets and extents, grids, scratch, counts) and
# computes each launch's variant with its own rules (plan/triton_variant.c).
# The recorder's job is to give an honest learner exact answers and errors at
# their own lines; a learner who rewrites it gains nothing judged accepts
# without checking.
#
# The launch API mirrored is Triton 3.6's (runtime/jit.py, runtime/autotuner.py,
# compiler/compiler.py): kernel[grid](*args, **kwargs) binds the arguments to
# the @triton.jit signature, the grid is a tuple or a callable given the bound
# arguments (`meta`), num_warps / num_stages / maxnreg are options; an
# Autotuner adds one config's kwargs and options, sets its best_config to
# that config and runs its .fn; a
# Heuristics computes each value from {**bound positional args, **kwargs} and
# runs its .fn; kernel.warmup(*args, grid=..., **kwargs) compiles and returns
# the compiled kernel, whose [grid](*args) launches it.

import inspect
import os
import re
import select
import signal
import struct
import sys
import time
import types

# ---- limits and constants (the request overrides the limits) ----------------------------

LIMITS = {
    "case_ms": 10000,        # wall time of one case's recording, every configuration
    "max_launches": 8,       # BW_MAX_LAUNCHES
    "max_scratch": 8,        # BW_MAX_SCRATCH: buffers a launcher allocates
    "max_configs": 64,       # BW_MAX_TUNE_CONFIGS
    "max_launch_args": 32,   # BW_MAX_LAUNCH_ARGS
    "max_dims": 8,           # views of at most this many dimensions
    "max_builds": 128,       # BW_TRITON_MAX_KERNELS: kernel variants compiled
}
GRID_X_MAX = 2147483647
GRID_YZ_MAX = 65535
ADDRESS_BASE = 0x7F0000000000  # the stand-ins' fake device addresses: 256-byte aligned
ADDRESS_STEP = 1 << 36
STRING_CONSTEXPR = re.compile(r"[A-Za-z0-9_ .:+\-/]{0,64}")
TRITON_OPTIONS = ("num_warps", "num_stages", "maxnreg", "num_ctas")
# Triton 3.6's other launch options (backend options and runtime knobs): refused by name.
REFUSED_OPTIONS = ("enable_fp_fusion", "launch_cooperative_grid", "launch_pdl", "debug",
                   "sanitize_overflow", "extern_libs", "ir_override", "instrumentation_mode",
                   "supported_fp8_dtypes", "deprecated_fp8_dot_operand_dtypes", "default_dot_input_precision",
                   "allowed_dot_input_precisions", "max_num_imprecise_acc_default", "arch", "ptx_version",
                   "stream", "device", "device_type", "num_buffers_warp_spec", "num_consumer_groups",
                   "reg_dec_producer", "reg_inc_consumer")


class LauncherError(Exception):
    """A launcher did something the judge cannot record; its message says what and why."""


class StandInMissing(LauncherError, AttributeError):
    """A name the stand-ins do not have: an AttributeError too, so that getattr(x, name,
    default) and hasattr() work on them as on the real objects."""


class LauncherTimeout(BaseException):
    """The case's time ran out (SIGALRM): a BaseException, so `except Exception` keeps it."""


# ---- dtypes, devices, sizes --------------------------------------------------------------

class DType:
    """torch.dtype, as the stand-in has it: a name, a size and the judge's name."""

    def __init__(self, name, itemsize, judge, triton, floating):
        self.name = name
        self.itemsize = itemsize
        self.judge = judge      # the judge's dtype name ("fp32"), None: not a judge dtype
        self.triton = triton    # Triton's pointee name ("fp32", "i32")
        self.is_floating_point = floating
        self.is_signed = floating or not name.startswith("uint")
        self.is_complex = False

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (getattr, (sys.modules.get("torch"), self.name))


DTYPES = [DType("float64", 8, "fp64", "fp64", True), DType("float32", 4, "fp32", "fp32", True),
          DType("float16", 2, "fp16", "fp16", True), DType("bfloat16", 2, "bf16", "bf16", True),
          DType("int8", 1, "int8", "i8", False), DType("uint8", 1, "uint8", "u8", False),
          DType("int16", 2, None, "i16", False), DType("uint16", 2, None, "u16", False),
          DType("int32", 4, "int32", "i32", False), DType("uint32", 4, "uint32", "u32", False),
          DType("int64", 8, "int64", "i64", False), DType("uint64", 8, "uint64", "u64", False),
          DType("bool", 1, None, "i1", False), DType("float8_e4m3fn", 1, None, "fp8e4nv", True),
          DType("float8_e5m2", 1, None, "fp8e5", True)]
BY_NAME = {d.name: d for d in DTYPES}
BY_JUDGE = {d.judge: d for d in DTYPES if d.judge}
ALIASES = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
           "long": "int64", "short": "int16"}


class Device:
    """torch.device: "cuda" with index 0 (the worker's GPU), or anything the learner names."""

    def __init__(self, type="cuda", index=None):
        if isinstance(type, Device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            type, index = "cuda", type
        elif isinstance(type, str) and ":" in type:
            type, _, i = type.partition(":")
            index = int(i)
        self.type = str(type)
        self.index = index

    def _norm(self):
        return (self.type, 0 if self.index is None and self.type == "cuda" else self.index)

    def __eq__(self, other):
        try:
            return self._norm() == Device(other)._norm()
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash(self._norm())

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __repr__(self):
        return "device(type=%r%s)" % (self.type, "" if self.index is None else ", index=%d" % self.index)


CUDA0 = Device("cuda", 0)


class Size(tuple):
    """torch.Size."""

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __repr__(self):
        return "torch.Size(%s)" % list(self)


def as_int(v, what):
    """An int argument of a tensor method (a Python int, not a tensor or a float)."""
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, Tensor):
            raise LauncherError("%s is a tensor: a launcher cannot read tensor values" % what)
        raise LauncherError("%s must be an int, not %s" % (what, type(v).__name__))
    return int(v)


def shape_args(args, what):
    """(d0, d1, ...) from f(d0, d1, ...) or f((d0, d1, ...))."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(as_int(a, what) for a in args)


def contiguous_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(strides))


def numel_of(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def norm_dim(d, ndim, what="dim"):
    d = as_int(d, what)
    lo, hi = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    if d < lo or d > hi:
        raise LauncherError("%s %d is out of range for a tensor of %d dimension%s"
                            % (what, d, ndim, "" if ndim == 1 else "s"))
    return d + ndim if d < 0 and ndim > 0 else (0 if d < 0 else d)


def view_strides(shape, strides, new_shape):
    """Torch's rule for view(): the strides of new_shape over the same memory, or None when
    it is not expressible without a copy (at::detail::computeStride)."""
    if numel_of(shape) == 0:
        return contiguous_strides(new_shape)
    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1] if strides else 1
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and
                             strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(out)


# ---- the stand-in tensor -----------------------------------------------------------------

class Buffer:
    """One device buffer of the plan: a problem tensor or a scratch buffer the launcher made."""

    def __init__(self, name, dtype, count, address, scratch=False, line=0):
        self.name, self.dtype, self.count, self.address = name, dtype, count, address
        self.scratch, self.line = scratch, line


VALUE_READERS = {"item", "tolist", "cpu", "numpy", "sum", "mean", "max", "min", "amax", "amin",
                 "argmax", "argmin", "all", "any", "abs", "norm", "std", "var", "prod", "cumsum",
                 "sort", "topk", "nonzero", "unique", "equal", "allclose", "isnan", "isinf",
                 "isfinite", "exp", "log", "sqrt", "softmax", "relu", "sigmoid", "tanh", "matmul",
                 "mm", "bmm", "dot", "add", "sub", "mul", "div", "clone", "detach", "float", "half",
                 "double", "int", "long", "bfloat16", "bool", "byte", "char", "short", "clamp",
                 "where", "masked_fill", "gather", "scatter", "index_select", "to_dense", "tolist",
                 "__array__", "__dlpack__", "__cuda_array_interface__", "storage",
                 "untyped_storage", "pin_memory", "share_memory_", "record_stream"}
VALUE_WRITERS = {"zero_", "fill_", "copy_", "normal_", "uniform_", "random_", "add_", "sub_",
                 "mul_", "div_", "clamp_", "masked_fill_", "index_fill_", "scatter_", "set_",
                 "resize_", "exponential_", "bernoulli_", "requires_grad_"}


def refuse_values(what):
    raise LauncherError(
        "%s reads tensor values: a launcher sees only shapes, dtypes and strides (the judge's "
        "tensors hold no data while solve runs); compute in a kernel instead" % what)


class Tensor:
    """torch.Tensor, stood in for: a strided window of one Buffer, with no data."""

    __slots__ = ("_buf", "_shape", "_strides", "_offset")

    def __init__(self, buf, shape, strides, offset):
        if len(shape) > LIMITS["max_dims"]:
            raise LauncherError("a view of %d dimensions: at most %d" % (len(shape), LIMITS["max_dims"]))
        self._buf = buf
        self._shape = tuple(shape)
        self._strides = tuple(strides)
        self._offset = offset

    # -- what a tensor is ------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._shape)
        return self._shape[norm_dim(dim, len(self._shape))]

    def stride(self, dim=None):
        if dim is None:
            return tuple(self._strides)
        return self._strides[norm_dim(dim, len(self._shape))]

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def numel(self):
        return numel_of(self._shape)

    nelement = numel

    def element_size(self):
        return self._buf.dtype.itemsize

    @property
    def itemsize(self):
        return self._buf.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self._buf.dtype.itemsize

    @property
    def dtype(self):
        return self._buf.dtype

    @property
    def device(self):
        return CUDA0

    @property
    def is_cuda(self):
        return True

    is_leaf = True
    requires_grad = False
    is_sparse = False
    is_quantized = False
    is_meta = False
    layout = "torch.strided"

    def get_device(self):
        return 0

    def storage_offset(self):
        return self._offset

    def data_ptr(self):
        return self._buf.address + self._offset * self._buf.dtype.itemsize

    def is_contiguous(self, memory_format=None):
        expected = 1
        for d, s in zip(reversed(self._shape), reversed(self._strides)):
            if d != 1 and s != expected:
                return False
            expected *= d
        return True

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __repr__(self):
        return ("tensor(<no data: the judge's stand-in>, shape=%s, dtype=%r, device='cuda:0', "
                "buffer=%s, offset=%d, strides=%s)" % (list(self._shape), self.dtype,
                                                      self._buf.name, self._offset,
                                                      list(self._strides)))

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    # -- views -----------------------------------------------------------------------------
    def _view(self, shape, strides, offset):
        return Tensor(self._buf, shape, strides, offset)

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], DType):
            raise LauncherError("view(dtype) reinterprets the bytes of %s: the judge binds each "
                                "buffer with its own dtype" % self._buf.name)
        new = self._infer(shape_args(shape, "a view size"))
        strides = view_strides(self._shape, self._strides, new)
        if strides is None:
            raise LauncherError("view(%s) is not possible on a tensor of shape %s and strides %s "
                                "(a view must keep the memory layout; use reshape only where it "
                                "would not copy)" % (", ".join(map(str, new)), list(self._shape),
                                                     list(self._strides)))
        return self._view(new, strides, self._offset)

    def reshape(self, *shape):
        new = self._infer(shape_args(shape, "a reshape size"))
        strides = view_strides(self._shape, self._strides, new)
        if strides is None:
            raise LauncherError("reshape(%s) of a tensor of shape %s and strides %s would copy "
                                "it: the judge can bind only views of the problem's buffers"
                                % (", ".join(map(str, new)), list(self._shape), list(self._strides)))
        return self._view(new, strides, self._offset)

    def _infer(self, shape):
        n = self.numel()
        if sum(1 for d in shape if d == -1) > 1:
            raise LauncherError("only one dimension can be inferred (-1)")
        known = 1
        for d in shape:
            if d < -1:
                raise LauncherError("invalid shape dimension %d" % d)
            if d != -1:
                known *= d
        if -1 in shape:
            if known == 0 or n % known:
                raise LauncherError("shape %s is invalid for a tensor of %d elements" % (list(shape), n))
            shape = tuple(n // known if d == -1 else d for d in shape)
        if numel_of(shape) != n:
            raise LauncherError("shape %s is invalid for a tensor of %d elements" % (list(shape), n))
        return shape

    def flatten(self, start_dim=0, end_dim=-1):
        nd = len(self._shape)
        if nd == 0:
            return self.reshape(1)
        s, e = norm_dim(start_dim, nd), norm_dim(end_dim, nd)
        if s > e:
            raise LauncherError("flatten: start_dim %d is after end_dim %d" % (s, e))
        return self.reshape(self._shape[:s] + (numel_of(self._shape[s:e + 1]),) + self._shape[e + 1:])

    def unsqueeze(self, dim):
        nd = len(self._shape)
        d = norm_dim(dim, nd + 1)
        stride = self._strides[d] * self._shape[d] if d < nd else 1
        return self._view(self._shape[:d] + (1,) + self._shape[d:],
                          self._strides[:d] + (stride,) + self._strides[d:], self._offset)

    def squeeze(self, dim=None):
        nd = len(self._shape)
        if dim is None:
            dims = [i for i in range(nd) if self._shape[i] == 1]
        else:
            dims = [norm_dim(d, nd) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))]
            dims = [d for d in dims if self._shape[d] == 1]
        keep = [i for i in range(nd) if i not in dims]
        return self._view(tuple(self._shape[i] for i in keep), tuple(self._strides[i] for i in keep),
                          self._offset)

    def transpose(self, dim0, dim1):
        nd = len(self._shape)
        a, b = norm_dim(dim0, nd), norm_dim(dim1, nd)
        shape, strides = list(self._shape), list(self._strides)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return self._view(tuple(shape), tuple(strides), self._offset)

    swapaxes = transpose
    swapdims = transpose

    def t(self):
        if len(self._shape) > 2:
            raise LauncherError("t() expects a tensor of at most 2 dimensions, this one has %d"
                                % len(self._shape))
        return self if len(self._shape) < 2 else self.transpose(0, 1)

    @property
    def T(self):
        return self.permute(*reversed(range(len(self._shape))))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    def permute(self, *dims):
        nd = len(self._shape)
        dims = tuple(norm_dim(d, nd) for d in shape_args(dims, "a permute dimension"))
        if sorted(dims) != list(range(nd)):
            raise LauncherError("permute(%s) is not a permutation of %d dimensions" % (list(dims), nd))
        return self._view(tuple(self._shape[d] for d in dims), tuple(self._strides[d] for d in dims),
                          self._offset)

    def expand(self, *sizes):
        sizes = shape_args(sizes, "an expand size")
        nd = len(self._shape)
        if len(sizes) < nd:
            raise LauncherError("expand: %d sizes for a tensor of %d dimensions" % (len(sizes), nd))
        lead = len(sizes) - nd
        shape, strides = [], []
        for i, want in enumerate(sizes):
            if i < lead:
                if want < 0:
                    raise LauncherError("expand: -1 is not allowed for a new dimension")
                shape.append(want)
                strides.append(0)
                continue
            have, st = self._shape[i - lead], self._strides[i - lead]
            if want == -1 or want == have:
                shape.append(have)
                strides.append(st)
            elif have == 1:
                shape.append(want)
                strides.append(0)
            else:
                raise LauncherError("expand: size %d of dimension %d is not 1" % (have, i - lead))
        return self._view(tuple(shape), tuple(strides), self._offset)

    def narrow(self, dim, start, length):
        nd = len(self._shape)
        d = norm_dim(dim, nd)
        start, length = as_int(start, "narrow's start"), as_int(length, "narrow's length")
        if start < 0:
            start += self._shape[d]
        if start < 0 or length < 0 or start + length > self._shape[d]:
            raise LauncherError("narrow(%d, %d, %d) is out of range for size %d"
                                % (d, start, length, self._shape[d]))
        shape = list(self._shape)
        shape[d] = length
        return self._view(tuple(shape), self._strides, self._offset + start * self._strides[d])

    def select(self, dim, index):
        nd = len(self._shape)
        d = norm_dim(dim, nd)
        i = as_int(index, "select's index")
        if i < -self._shape[d] or i >= self._shape[d]:
            raise LauncherError("index %d is out of range for dimension %d of size %d"
                                % (i, d, self._shape[d]))
        i %= self._shape[d]
        return self._view(self._shape[:d] + self._shape[d + 1:], self._strides[:d] + self._strides[d + 1:],
                          self._offset + i * self._strides[d])

    def split(self, split_size, dim=0):
        d = norm_dim(dim, len(self._shape))
        out, start = [], 0
        sizes = [as_int(s, "a split size") for s in split_size] if isinstance(split_size, (list, tuple)) else None
        step = None if sizes else as_int(split_size, "split's size")
        if step is not None and step <= 0:
            raise LauncherError("split: size %d is not positive" % step)
        while start < self._shape[d] or (sizes and len(out) < len(sizes)):
            n = sizes[len(out)] if sizes else min(step, self._shape[d] - start)
            out.append(self.narrow(d, start, n))
            start += n
        return tuple(out)

    def chunk(self, chunks, dim=0):
        d = norm_dim(dim, len(self._shape))
        chunks = as_int(chunks, "chunk's count")
        if chunks <= 0:
            raise LauncherError("chunk: %d chunks" % chunks)
        return self.split(max(1, -(-self._shape[d] // chunks)), d)

    def unbind(self, dim=0):
        d = norm_dim(dim, len(self._shape))
        return tuple(self.select(d, i) for i in range(self._shape[d]))

    def as_strided(self, size, stride, storage_offset=None):
        size = shape_args((size,), "an as_strided size")
        stride = shape_args((stride,), "an as_strided stride")
        if len(size) != len(stride) or any(s < 0 for s in stride):
            raise LauncherError("as_strided: %d sizes and %d strides" % (len(size), len(stride)))
        off = self._offset if storage_offset is None else as_int(storage_offset, "storage_offset")
        return self._view(size, stride, off).checked_window("as_strided")

    def checked_window(self, what):
        lo, hi = self.window()
        if lo < 0 or hi > self._buf.count:
            raise LauncherError("%s makes a view past the end of %s (elements %d to %d of %d)"
                                % (what, self._buf.name, lo, hi, self._buf.count))
        return self

    def window(self):
        """[first, last + 1) elements of the buffer the view reaches (empty: offset, offset)."""
        if self.numel() == 0:
            return self._offset, self._offset
        return self._offset, self._offset + sum((d - 1) * s for d, s in zip(self._shape, self._strides)) + 1

    def contiguous(self, memory_format=None):
        if self.is_contiguous():
            return self
        raise LauncherError("contiguous() of a non-contiguous view of %s (shape %s, strides %s) "
                            "would copy it: the judge can bind only views of the problem's buffers; "
                            "pass the strides to the kernel instead" % (self._buf.name, list(self._shape),
                                                                       list(self._strides)))

    def to(self, *args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, DType) and a is not self.dtype:
                raise LauncherError("to(%r) converts %s: that computes new values" % (a, self._buf.name))
            if isinstance(a, (Device, str)) and Device(a).type != "cuda":
                refuse_values("to(%r)" % (a,))
        return self

    def cuda(self, *args, **kwargs):
        return self

    def type_as(self, other):
        return self.to(other.dtype)

    def new_empty(self, *size, dtype=None, device=None, **kwargs):
        return current().allocate(shape_args(size, "a size"), dtype or self.dtype, "new_empty")

    def new_zeros(self, *size, dtype=None, device=None, **kwargs):
        return current().allocate(shape_args(size, "a size"), dtype or self.dtype, "new_zeros")

    # -- indexing --------------------------------------------------------------------------
    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        if any(isinstance(i, Tensor) for i in index) or any(isinstance(i, (list, bool)) for i in index):
            raise LauncherError("indexing with a tensor, a list or a bool reads values or copies: a "
                                "launcher may take int, slice, None and ... views only")
        n_ellipsis = sum(1 for i in index if i is Ellipsis)
        if n_ellipsis > 1:
            raise LauncherError("an index can hold one ... only")
        real = sum(1 for i in index if i is not None and i is not Ellipsis)
        if real > len(self._shape):
            raise LauncherError("too many indices (%d) for a tensor of %d dimensions"
                                % (real, len(self._shape)))
        if n_ellipsis:
            at = index.index(Ellipsis)
            index = index[:at] + (slice(None),) * (len(self._shape) - real) + index[at + 1:]
        shape, strides, offset, d = [], [], self._offset, 0
        for i in index:
            if i is None:
                shape.append(1)
                strides.append(self._strides[d] * self._shape[d] if d < len(self._shape) else 1)
                continue
            size, stride = self._shape[d], self._strides[d]
            if isinstance(i, slice):
                start, stop, step = i.indices(size)
                if step <= 0:
                    raise LauncherError("a slice step must be positive")
                n = max(0, -(-(stop - start) // step))
                shape.append(n)
                strides.append(stride * step)
                offset += min(start, size) * stride  # as torch: an empty slice keeps its start
            else:
                if not hasattr(i, "__index__"):
                    raise LauncherError("index %r is not an int, a slice, None or ..." % (i,))
                k = int(i.__index__())
                if k < -size or k >= size:
                    raise LauncherError("index %d is out of range for dimension %d of size %d" % (k, d, size))
                offset += (k % size) * stride
            d += 1
        shape += self._shape[d:]
        strides += self._strides[d:]
        return self._view(tuple(shape), tuple(strides), offset)

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter([self.select(0, i) for i in range(self._shape[0])])

    # -- what a launcher may not do --------------------------------------------------------
    def __getattr__(self, name):
        if name in VALUE_WRITERS:
            raise LauncherError("%s.%s() writes tensor data: a launcher only launches kernels (the "
                                "judge zeroes the buffers torch.zeros / torch.empty make before "
                                "every run)" % (self._buf.name, name))
        if name in VALUE_READERS:
            refuse_values("%s.%s()" % (self._buf.name, name))
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise StandInMissing("%s.%s is not available on the judge's stand-in tensor (it has shape, "
                            "dtype, strides, views and data_ptr, but no data)" % (self._buf.name, name))

    def __bool__(self):
        refuse_values("bool(%s)" % self._buf.name)

    def __float__(self):
        refuse_values("float(%s)" % self._buf.name)

    def __int__(self):
        refuse_values("int(%s)" % self._buf.name)

    def __index__(self):
        refuse_values("using %s as an integer" % self._buf.name)

    def __complex__(self):
        refuse_values("complex(%s)" % self._buf.name)

    def __format__(self, spec):
        if spec:
            refuse_values("formatting %s" % self._buf.name)
        return repr(self)

    def __setitem__(self, key, value):
        raise LauncherError("assigning into %s writes tensor data: a launcher only launches kernels"
                            % self._buf.name)


def _refuse_operator(symbol):
    def op(self, *args):
        raise LauncherError("`%s` on tensor %s computes with its values: a launcher sees only shapes, "
                            "dtypes and strides; compute in a kernel instead" % (symbol, self._buf.name))
    return op


for _name, _sym in (("__eq__", "=="), ("__ne__", "!="), ("__lt__", "<"), ("__le__", "<="),
                    ("__gt__", ">"), ("__ge__", ">="), ("__add__", "+"), ("__radd__", "+"),
                    ("__sub__", "-"), ("__rsub__", "-"), ("__mul__", "*"), ("__rmul__", "*"),
                    ("__truediv__", "/"), ("__rtruediv__", "/"), ("__floordiv__", "//"),
                    ("__rfloordiv__", "//"), ("__mod__", "%"), ("__pow__", "**"),
                    ("__matmul__", "@"), ("__rmatmul__", "@"), ("__neg__", "-"), ("__abs__", "abs"),
                    ("__and__", "&"), ("__or__", "|"), ("__xor__", "^"), ("__invert__", "~"),
                    ("__iadd__", "+="), ("__isub__", "-="), ("__imul__", "*="),
                    ("__itruediv__", "/="), ("__lshift__", "<<"), ("__rshift__", ">>")):
    setattr(Tensor, _name, _refuse_operator(_sym))
Tensor.__hash__ = lambda self: id(self)
del _name, _sym


# ---- the stand-in torch module -----------------------------------------------------------

class DeviceProperties:
    """torch.cuda.get_device_properties(i): the worker GPU's figures."""

    def __init__(self, dev):
        self.name = dev["name"]
        self.major, self.minor = dev["cc_major"], dev["cc_minor"]
        self.total_memory = dev["total_memory"]
        self.multi_processor_count = dev["sm_count"]
        self.L2_cache_size = dev["l2_bytes"]
        self.max_threads_per_multi_processor = dev["max_threads_per_sm"]
        self.regs_per_multiprocessor = dev["max_num_regs"]
        self.warp_size = dev["warp_size"]
        self.shared_memory_per_block = 49152
        self.shared_memory_per_block_optin = dev["max_shared_mem"]
        self.shared_memory_per_multiprocessor = dev["max_shared_mem_sm"]
        self.is_integrated = False
        self.is_multi_gpu_board = False
        self.uuid = "GPU-blockwise-judge"

    def __repr__(self):
        return ("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, "
                "multi_processor_count=%d)" % (self.name, self.major, self.minor,
                                               self.total_memory >> 20, self.multi_processor_count))


class Stopped:
    """A context manager that does nothing (torch.no_grad() and friends)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn=None):
        return fn


def make_torch(dev):
    """The stand-in `torch` module (and torch.cuda) for device figures `dev`."""
    torch = types.ModuleType("torch")
    torch.__version__ = "0.0.0+blockwise.standin"
    torch.__blockwise_standin__ = True
    for d in DTYPES:
        setattr(torch, d.name, d)
    for alias, name in ALIASES.items():
        setattr(torch, alias, BY_NAME[name])
    torch.dtype = DType
    torch.device = Device
    torch.Size = Size
    torch.Tensor = Tensor
    torch.version = types.SimpleNamespace(cuda="12.8", hip=None, git_version="blockwise")
    torch.no_grad = torch.inference_mode = torch.enable_grad = lambda *a, **k: Stopped()
    torch.manual_seed = lambda *a, **k: None
    torch.set_default_device = lambda *a, **k: None
    torch.set_default_dtype = lambda *a, **k: None
    torch.is_tensor = lambda x: isinstance(x, Tensor)
    torch.is_floating_point = lambda x: x.dtype.is_floating_point
    torch.numel = lambda x: x.numel()
    torch.jit = types.SimpleNamespace(script=lambda fn=None, *a, **k: fn)

    def empty(*size, dtype=None, device=None, layout=None, requires_grad=False, pin_memory=False,
              memory_format=None, out=None):
        return current().allocate(shape_args(size, "a size"), dtype, "torch.empty", device)

    def zeros(*size, dtype=None, device=None, layout=None, requires_grad=False, out=None):
        return current().allocate(shape_args(size, "a size"), dtype, "torch.zeros", device)

    def like(what):
        def f(t, dtype=None, device=None, layout=None, requires_grad=False, memory_format=None):
            if not isinstance(t, Tensor):
                raise LauncherError("%s needs a tensor, not %s" % (what, type(t).__name__))
            return current().allocate(t._shape, dtype or t.dtype, what, device)
        return f

    torch.empty, torch.zeros = empty, zeros
    torch.empty_like, torch.zeros_like = like("torch.empty_like"), like("torch.zeros_like")

    def empty_strided(size, stride, dtype=None, device=None, **kwargs):
        size, stride = shape_args((size,), "a size"), shape_args((stride,), "a stride")
        if stride != contiguous_strides(size):
            raise LauncherError("torch.empty_strided with strides %s: the judge allocates contiguous "
                                "buffers (allocate the elements and take a view)" % (list(stride),))
        return current().allocate(size, dtype, "torch.empty_strided", device)

    torch.empty_strided = empty_strided

    def values(what):
        def f(*args, **kwargs):
            raise LauncherError("%s makes a tensor of values: a launcher sees only shapes, dtypes "
                                "and strides (the judge zeroes what torch.zeros / torch.empty make, "
                                "before every run)" % what)
        return f

    for name in ("ones", "full", "rand", "randn", "randint", "arange", "tensor", "as_tensor",
                 "from_numpy", "ones_like", "full_like", "rand_like", "randn_like", "linspace",
                 "eye", "cat", "stack", "allclose", "equal", "softmax", "matmul", "exp", "sum"):
        setattr(torch, name, values("torch." + name))

    cuda = types.ModuleType("torch.cuda")
    cuda.is_available = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.set_device = lambda d: None
    cuda.synchronize = lambda *a, **k: None
    cuda.get_device_name = lambda *a: dev["name"]
    cuda.get_device_capability = lambda *a: (dev["cc_major"], dev["cc_minor"])
    props = DeviceProperties(dev)
    cuda.get_device_properties = lambda *a: props
    cuda.device = lambda *a: Stopped()

    def streams(*args, **kwargs):
        raise LauncherError("CUDA streams and events: the judge runs every launch in order on one "
                            "stream and times them itself")
    for name in ("Stream", "Event", "stream", "current_stream", "default_stream", "set_stream",
                 "graph", "CUDAGraph"):
        setattr(cuda, name, streams)
    torch.cuda = cuda

    def module_getattr(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise StandInMissing("torch.%s is not in the judge's stand-in torch: a launcher has tensors "
                            "with shapes, dtypes and strides but no data (torch.empty, torch.zeros, "
                            "*_like, views, torch.cuda's device queries)" % name)

    def cuda_getattr(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise StandInMissing("torch.cuda.%s is not in the judge's stand-in torch" % name)

    torch.__getattr__ = module_getattr
    cuda.__getattr__ = cuda_getattr
    return torch


def dtype_of(d):
    if d is None:
        return BY_NAME["float32"]
    if isinstance(d, DType):
        return d
    if isinstance(d, str) and d.replace("torch.", "") in BY_NAME:
        return BY_NAME[d.replace("torch.", "")]
    raise LauncherError("dtype %r is not a torch dtype" % (d,))


# ---- the stand-in Triton driver -------------------------------------------------------------

class DeviceUtils:
    def __init__(self, dev):
        self.dev = dev

    def get_device_properties(self, device=0):
        d = self.dev
        return {"max_shared_mem": d["max_shared_mem"], "max_num_regs": d["max_num_regs"],
                "multiprocessor_count": d["sm_count"], "warpSize": d["warp_size"],
                "sm_clock_rate": d["sm_clock_khz"], "mem_clock_rate": d["mem_clock_khz"],
                "mem_bus_width": d["mem_bus_width"]}

    def load_binary(self, *args, **kwargs):
        raise LauncherError("driver.active.utils.load_binary: the judge loads kernels itself")


class StandInDriver:
    """triton.runtime.driver.active while a launcher runs: the worker GPU, no CUDA."""

    def __init__(self, triton, dev, torch):
        self.dev = dev
        self.torch = torch
        self.utils = DeviceUtils(dev)
        self.backend = "cuda"
        try:
            from triton.backends.compiler import GPUTarget
            self.target = GPUTarget("cuda", dev["cc_major"] * 10 + dev["cc_minor"], 32)
        except Exception:
            self.target = types.SimpleNamespace(backend="cuda", arch=dev["cc_major"] * 10 + dev["cc_minor"],
                                                warp_size=32)

    def is_active(self):
        return True

    def get_current_target(self):
        return self.target

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        return None

    def get_current_stream(self, device=None):
        return 0

    def get_active_torch_device(self):
        return Device("cuda", 0)

    def get_device_interface(self):
        return self.torch.cuda

    def get_benchmarker(self):
        def bench(*args, **kwargs):
            raise LauncherError("benchmarking inside solve: the judge times every configuration itself")
        return bench

    def get_empty_cache_for_benchmark(self):
        self.get_benchmarker()()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise StandInMissing("triton.runtime.driver.active.%s is not available while the judge "
                            "records a launcher (it has utils.get_device_properties, "
                            "get_current_device, get_current_target, get_active_torch_device)" % name)


def install_driver(triton, drv):
    """Makes `drv` triton.runtime.driver.active (Triton 3.6: a DriverConfig with set_active)."""
    import triton.runtime as runtime
    config = getattr(runtime, "driver", None)
    if config is None:
        try:
            from triton.runtime import driver as config
        except ImportError:
            config = None
    if config is not None and hasattr(config, "set_active"):
        config.set_active(drv)
    elif config is not None:
        try:
            config.active = drv
        except AttributeError:
            pass
    else:
        runtime.driver = types.SimpleNamespace(active=drv, set_active=lambda d: None)


# ---- recording ------------------------------------------------------------------------------

class Launch:
    def __init__(self, kernel, line, grid, options, args, constexprs):
        self.kernel, self.line, self.grid = kernel, line, grid
        self.options = options        # (num_warps, num_stages, maxnreg or 0)
        self.args = args              # [("buf", Tensor) | ("int", v) | ("float", v)]
        self.constexprs = constexprs  # [(name, value)] in the kernel's parameter order


class Recording:
    """What one call of solve did: its launches and the scratch buffers it made."""

    def __init__(self, ctx, case):
        self.ctx, self.case = ctx, case
        self.launches = []
        self.scratch = []
        self.scratch_bytes = 0

    def allocate(self, shape, dtype, what, device=None):
        dt = dtype_of(dtype)
        if device is not None and Device(device).type != "cuda":
            raise LauncherError("%s(..., device=%r): the judge's buffers live on the GPU" % (what, device))
        if dt.judge is None:
            raise LauncherError("%s with dtype %r: the judge's buffers are %s" % (
                what, dt, ", ".join(repr(d) for d in DTYPES if d.judge)))
        for d in shape:
            if d < 0:
                raise LauncherError("%s with a negative size %d" % (what, d))
        n = numel_of(shape)
        if len(self.scratch) >= LIMITS["max_scratch"]:
            raise LauncherError("%s: more than %d buffers allocated by one solve (BW_MAX_SCRATCH)"
                                % (what, LIMITS["max_scratch"]))
        self.scratch_bytes += max(n, 1) * dt.itemsize
        if self.scratch_bytes > self.case["scratch_limit"]:
            raise LauncherError("%s allocates %d bytes: with the other buffers solve made, more than "
                                "this problem's scratch limit of %d bytes for case %s"
                                % (what, max(n, 1) * dt.itemsize, self.case["scratch_limit"],
                                   self.case["name"]))
        line = self.ctx.caller_line()
        name = self.ctx.scratch_name(len(self.scratch))
        buf = Buffer(name, dt, max(n, 1), ADDRESS_BASE + ADDRESS_STEP * (64 + len(self.scratch)),
                     scratch=True, line=line)
        self.scratch.append(buf)
        return Tensor(buf, shape, contiguous_strides(shape), 0)


CURRENT = [None]


def current():
    r = CURRENT[0]
    if r is None:
        raise LauncherError("tensors can be allocated only while solve runs (not at import)")
    return r


def unwrap(obj, JIT):
    depth = 0
    while obj is not None and not isinstance(obj, JIT) and hasattr(obj, "fn") and depth < 8:
        obj, depth = obj.fn, depth + 1
    return obj if isinstance(obj, JIT) else None


def constexpr_value(v, triton):
    c = getattr(getattr(triton, "language", None), "constexpr", None)
    depth = 0
    while c is not None and isinstance(v, c) and depth < 4:
        v, depth = v.value, depth + 1
    return v


def literal(v):
    """A constexpr value as the request writes it (judge/worker/triton_launcher.h)."""
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        text = "%.17g" % v  # as plan/plan.c's plan_constexpr_literal writes it
        return text if any(c in text for c in ".eEn") else text + ".0"
    return "'%s'" % v


def param_names(fn):
    return ", ".join(p.name for p in fn.params) or "none"


class Context:
    """The learner's module and everything one recording needs; shared by every case."""

    def __init__(self, drv, triton, learner, rq, compiler):
        self.drv = drv                  # driver.py's globals (put, field, Diags, ...)
        self.triton = triton
        self.learner = learner
        self.rq = rq
        self.compiler = compiler
        self.JIT = triton.runtime.jit.JITFunction
        self.filename = learner.filename
        self.module = learner.module
        self.autotuners = []            # [(Autotuner, name, line)] in definition order
        self.configs = [()]             # per configuration: a config index per autotuner
        self.choice = {}                # id(Autotuner) -> config index, for the running one
        self.warmed = {}                # variant key -> CompiledStandIn (per process)
        self.problem_names = set(t["name"] for t in rq["tensors"]) | \
            set(s["name"] for s in rq["scalars"]) | set(rq["sizes"])

    # -- where the learner is --------------------------------------------------------------
    def caller_line(self):
        f = sys._getframe(1)
        while f is not None:
            if f.f_code.co_filename == self.filename:
                return f.f_lineno
            f = f.f_back
        return 0

    def scratch_name(self, i):
        name = "tmp%d" % (i + 1)
        while name in self.problem_names:
            name += "_"
        return name

    def def_line(self, fn):
        try:
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            return 0, 0
        return start, lines

    def decorator_line(self, jit_fn, word):
        """The line of the decorator holding `word` above a @jit function (else its def line)."""
        start, lines = self.def_line(jit_fn.fn)
        for i, text in enumerate(lines or []):
            if word in text and text.lstrip().startswith("@"):
                return start + i
        return self.learner.def_line(jit_fn)[0]

    # -- autotune configurations -----------------------------------------------------------
    def find_autotuners(self):
        Autotuner = getattr(self.triton.runtime.autotuner, "Autotuner", None) if hasattr(
            self.triton.runtime, "autotuner") else None
        seen = set()
        found = []
        for name, value in list(vars(self.module).items()):
            obj, depth = value, 0
            while obj is not None and depth < 8 and not isinstance(obj, self.JIT):
                if Autotuner is not None and isinstance(obj, Autotuner) and id(obj) not in seen:
                    seen.add(id(obj))
                    base = unwrap(obj, self.JIT)
                    if base is None or base.fn.__code__.co_filename != self.filename:
                        break
                    found.append((obj, name, self.decorator_line(base, "autotune")))
                obj, depth = getattr(obj, "fn", None), depth + 1
        found.sort(key=lambda t: t[2])
        self.autotuners = found
        for a, name, line in found:
            self.check_autotuner(a, name, line)
        total = 1
        for a, _, _ in found:
            total *= max(1, len(a.configs))
        if total > LIMITS["max_configs"]:
            raise Located(found[-1][2], "the @triton.autotune configs make %d configurations (every "
                          "combination over the file's autotuned kernels), more than %d "
                          "(BW_MAX_TUNE_CONFIGS)" % (total, LIMITS["max_configs"]))
        configs = [()]
        for a, _, _ in found:
            configs = [c + (i,) for c in configs for i in range(max(1, len(a.configs)))]
        self.configs = configs

    def check_autotuner(self, a, name, line):
        def refuse(feature, why):
            raise Located(line, "@triton.autotune(%s) of `%s` is not supported: %s" % (feature, name, why))
        if getattr(a, "user_defined_pre_hook", False):
            refuse("pre_hook=...", "a hook runs host code on the tensors before each run, and the judge "
                   "runs only kernels")
        if getattr(a, "user_defined_post_hook", False):
            refuse("post_hook=...", "a hook runs host code on the tensors after each run")
        if getattr(a, "reset_to_zero", None):
            refuse("reset_to_zero=%s" % list(a.reset_to_zero),
                   "Triton zeroes those arguments only while it benchmarks configs; the judge times "
                   "each config itself and poisons outputs before every run, so a kernel that needs "
                   "zeroed memory must zero it (or use a buffer from torch.zeros, which the judge "
                   "zeroes before every run)")
        if getattr(a, "restore_value", None):
            refuse("restore_value=%s" % list(a.restore_value),
                   "Triton restores those arguments only while it benchmarks configs; the judge "
                   "regenerates every input before each timed run")
        if getattr(a, "early_config_prune", None) or getattr(a, "perf_model", None):
            refuse("prune_configs_by=...", "the judge compiles, checks and times every config: list "
                   "only the configs you want")
        for i, c in enumerate(a.configs):
            if getattr(c, "pre_hook", None) is not None:
                refuse("configs[%d] with pre_hook" % i, "a config's pre_hook runs host code")
            if getattr(c, "ir_override", None) is not None:
                refuse("configs[%d] with ir_override" % i, "the judge compiles from source only")
            if getattr(c, "num_ctas", 1) not in (1, None):
                refuse("configs[%d] with num_ctas=%s" % (i, c.num_ctas),
                       "thread-block clusters (num_ctas > 1) are not supported")

    def config_name(self, index):
        parts = []
        for (a, name, _), i in zip(self.autotuners, self.configs[index]):
            if not a.configs:
                continue
            c = a.configs[i]
            text = ", ".join(["%s=%s" % (k, literal(constexpr_value(v, self.triton)))
                              for k, v in getattr(c, "kwargs", {}).items()] +
                             ["num_warps=%s" % c.num_warps, "num_stages=%s" % c.num_stages] +
                             (["maxnreg=%s" % c.maxnreg] if getattr(c, "maxnreg", None) else []))
            parts.append(text if len(self.autotuners) == 1 else "%s: %s" % (name, text))
        return "; ".join(parts)

    # -- solve's parameters ----------------------------------------------------------------
    def bind_solve(self):
        solve = vars(self.module).get("solve")
        if solve is None:
            raise Located(0, "no `solve` function: define solve(%s) at the top level, which launches "
                          "your kernels (or write # @launch directives)" % ", ".join(self.canonical()))
        if not inspect.isfunction(solve) or solve.__code__.co_filename != self.filename:
            raise Located(0, "`solve` is not a function defined in %s (it is %s)"
                          % (self.filename, type(solve).__name__))
        line = solve.__code__.co_firstlineno
        sig = inspect.signature(solve)
        params = list(sig.parameters.values())
        canonical = self.canonical()
        named = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY)]
        var = any(p.kind == p.VAR_POSITIONAL for p in params)
        if named and all(p.name in self.problem_names for p in named) and not var:
            by_name = [p.name for p in named]
            missing = [p.name for p in named if p.default is inspect.Parameter.empty and p.name not in by_name]
            self.solve, self.solve_line, self.solve_mode, self.solve_params = solve, line, "name", by_name
            return missing
        positional = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)]
        if (len(positional) == len(canonical) and not any(p.kind == p.KEYWORD_ONLY and p.default is inspect.Parameter.empty for p in params)) or (var and len(positional) <= len(canonical)):
            self.solve, self.solve_line, self.solve_mode, self.solve_params = solve, line, "order", canonical
            return []
        raise Located(line, "solve(%s) does not take the problem's arguments: name its parameters "
                      "after the problem's tensors, scalars and sizes, or take all %d in this "
                      "order: solve(%s)" % (", ".join(p.name for p in params), len(canonical),
                                            ", ".join(canonical)))

    def canonical(self):
        return [t["name"] for t in self.rq["tensors"]] + [s["name"] for s in self.rq["scalars"]] + \
            list(self.rq["sizes"])

    # -- one case ----------------------------------------------------------------------------
    def case_values(self, case):
        """{name: stand-in tensor or value} for a case."""
        values = {}
        for i, t in enumerate(self.rq["tensors"]):
            shape = case["shapes"][t["name"]]
            buf = Buffer(t["name"], BY_JUDGE[t["dtype"]], max(1, numel_of(shape)),
                         ADDRESS_BASE + ADDRESS_STEP * (i + 1))
            values[t["name"]] = Tensor(buf, shape, contiguous_strides(shape), 0)
        for s in self.rq["scalars"]:
            v = case["values"][s["name"]]
            values[s["name"]] = float(v) if s["dtype"].startswith(("fp", "bf")) else int(v)
        for n in self.rq["sizes"]:
            values[n] = int(case["values"][n])
        return values

    def record_case(self, case, config):
        """Calls solve for one case under configuration `config`: a Recording."""
        rec = Recording(self, case)
        values = self.case_values(case)
        self.choice = {id(a): i for (a, _, _), i in zip(self.autotuners, self.configs[config])}
        for a, _, _ in self.autotuners:
            # as in a fresh process: best_config exists once the kernel has run (in this
            # configuration), never from the configuration recorded before
            vars(a).pop("best_config", None)
        CURRENT[0] = rec
        try:
            if self.solve_mode == "name":
                self.solve(**{n: values[n] for n in self.solve_params})
            else:
                self.solve(*[values[n] for n in self.solve_params])
        finally:
            CURRENT[0] = None
        if not rec.launches:
            raise Located(self.solve_line, "solve launched no kernel for case %s" % case["name"])
        return rec

    # -- a launch ----------------------------------------------------------------------------
    def launch(self, obj, grid, warmup, args, kwargs):
        rec = current()
        kwargs = dict(kwargs)
        depth = 0
        autotuned = isinstance(obj, getattr(getattr(self.triton.runtime, "autotuner", None),
                                            "Autotuner", ()) or ())
        Autotuner = getattr(getattr(self.triton.runtime, "autotuner", None), "Autotuner", ())
        Heuristics = getattr(getattr(self.triton.runtime, "autotuner", None), "Heuristics", ())
        while not isinstance(obj, self.JIT):
            depth += 1
            if depth > 8:
                raise LauncherError("kernel wrappers nested more than 8 deep")
            if Autotuner and isinstance(obj, Autotuner):
                if id(obj) not in self.choice:
                    raise LauncherError("an autotuned kernel that is not defined at the top level of %s: "
                                        "the judge's configurations are those of the file's own "
                                        "@triton.autotune kernels" % self.filename)
                if obj.configs:
                    c = obj.configs[self.choice[id(obj)]]
                    # Triton 3.6's Autotuner.run sets best_config to the config it runs, so a
                    # launcher can size later launches from it (kernel.best_config.kwargs[...])
                    obj.best_config = c
                    extra = dict(getattr(c, "kwargs", {}))
                    for k in ("num_warps", "num_stages", "maxnreg", "num_ctas"):
                        v = getattr(c, k, None)
                        if v is not None:
                            extra[k] = v
                    clash = sorted(set(kwargs) & set(extra))
                    if clash:
                        raise LauncherError("%s given both by the launch and by the @triton.autotune "
                                            "config: let the config set it (Triton refuses it too)"
                                            % ", ".join("`%s`" % k for k in clash))
                    kwargs.update(extra)
                obj = obj.fn
            elif Heuristics and isinstance(obj, Heuristics):
                names = list(getattr(obj, "arg_names", []) or getattr(unwrap(obj, self.JIT), "arg_names", []))
                for name, heur in obj.values.items():
                    kwargs[name] = heur({**dict(zip(names, args)), **kwargs})
                obj = obj.fn
            else:
                raise LauncherError("%s is not a @triton.jit kernel (nor triton.autotune / "
                                    "triton.heuristics of one)" % type(obj).__name__)
        out = self.launch_jit(rec, obj, grid, warmup, args, kwargs)
        # Triton's Autotuner.warmup compiles every config and returns the list; here the
        # configuration being recorded is the one config there is
        return [out] if warmup and autotuned else out

    def kernel_name(self, fn):
        if fn.fn.__code__.co_filename != self.filename:
            raise LauncherError("`%s` is a @triton.jit function of another module (%s): the judge "
                                "launches kernels defined in %s" % (fn.__name__, fn.fn.__module__,
                                                                   self.filename))
        found = None
        for name, value in vars(self.module).items():
            if unwrap(value, self.JIT) is fn:
                if name == fn.__name__:
                    return name
                found = found or name
        if found is None:
            raise LauncherError("`%s` is a @triton.jit function that is not bound to a name at the "
                                "top level of %s: the judge compiles top-level kernels"
                                % (fn.__name__, self.filename))
        return found

    def bind(self, fn, args, kwargs):
        """(bound {name: value} with defaults, options {name: value})."""
        names = [p.name for p in fn.params]
        options, rest = {}, {}
        for k, v in kwargs.items():
            if k in TRITON_OPTIONS:
                options[k] = v
                if k in names:
                    rest[k] = v  # a parameter of that name gets the value too (as in Triton)
            elif k in names:
                rest[k] = v
            elif k in REFUSED_OPTIONS:
                raise LauncherError("the launch option `%s=` is not supported: the judge compiles with "
                                    "num_warps, num_stages and maxnreg only" % k)
            elif k in ("grid", "warmup"):
                continue
            else:
                raise LauncherError("Keyword argument %s was specified but unrecognised: `%s` takes "
                                    "%s, and the options num_warps, num_stages, maxnreg"
                                    % (k, fn.__name__, param_names(fn)))
        try:
            bound = fn.signature.bind(*args, **rest)
        except TypeError as e:
            raise LauncherError("`%s`: %s (its parameters: %s)" % (fn.__name__, e, param_names(fn)))
        bound.apply_defaults()
        return dict(bound.arguments), options

    def launch_jit(self, rec, fn, grid, warmup, args, kwargs):
        line = self.caller_line()
        name = self.kernel_name(fn)
        bound, options = self.bind(fn, args, kwargs)
        num_warps = options.get("num_warps", 4)
        num_stages = options.get("num_stages", 3)
        maxnreg = options.get("maxnreg", None)
        num_ctas = options.get("num_ctas", 1)
        for what, v in (("num_warps", num_warps), ("num_stages", num_stages)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise LauncherError("%s=%r is not an int" % (what, v))
        if num_warps not in (1, 2, 4, 8, 16, 32):
            raise LauncherError("num_warps=%d: Triton takes 1, 2, 4, 8, 16 or 32" % num_warps)
        if not 1 <= num_stages <= 16:
            raise LauncherError("num_stages=%d: the judge takes 1 to 16" % num_stages)
        if maxnreg is not None and (isinstance(maxnreg, bool) or not isinstance(maxnreg, int) or
                                    not 24 <= maxnreg <= 255):
            raise LauncherError("maxnreg=%r: the judge takes 24 to 255 (registers per thread)" % (maxnreg,))
        if num_ctas not in (1, None):
            raise LauncherError("num_ctas=%r: thread-block clusters are not supported" % (num_ctas,))
        pos_args, constexprs = [], []
        for p in fn.params:
            v = constexpr_value(bound[p.name], self.triton)
            if p.is_constexpr:
                if not (v is None or isinstance(v, (bool, int, float, str))):
                    raise LauncherError("the tl.constexpr `%s` of `%s` is %s: the judge passes int, "
                                        "bool, float, str and None constexprs" % (p.name, fn.__name__,
                                                                                type(v).__name__))
                if isinstance(v, str) and not STRING_CONSTEXPR.fullmatch(v):
                    raise LauncherError("the str constexpr `%s`=%r: the judge passes strings of at most "
                                        "64 letters, digits, blanks and _ . : + - /" % (p.name, v))
                if isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
                    raise LauncherError("the constexpr `%s`=%d does not fit 64 bits" % (p.name, v))
                constexprs.append((p.name, v))
                continue
            pos_args.append(self.arg_of(fn, p, v))
        if len(pos_args) > LIMITS["max_launch_args"]:
            raise LauncherError("`%s` takes %d arguments, more than %d" % (fn.__name__, len(pos_args),
                                                                        LIMITS["max_launch_args"]))
        launch = Launch(name, line, None, (num_warps, num_stages, maxnreg or 0), pos_args, constexprs)
        if warmup:
            return self.warm(fn, launch)
        if callable(grid):
            grid = grid(Meta(bound, fn))
        grid = self.grid_of(grid)
        if grid[0] * grid[1] * grid[2] == 0:
            return LazyCompiled(self, fn, launch)  # Triton launches nothing for an empty grid
        launch.grid = grid
        if len(rec.launches) >= LIMITS["max_launches"]:
            raise LauncherError("solve launches more than %d kernels for case %s (BW_MAX_LAUNCHES)"
                                % (LIMITS["max_launches"], rec.case["name"]))
        rec.launches.append(launch)
        return LazyCompiled(self, fn, launch)

    def arg_of(self, fn, p, v):
        if isinstance(v, Tensor):
            lo, hi = v.window()
            if lo < 0 or hi > v._buf.count:
                raise LauncherError("argument `%s` reaches past %s" % (p.name, v._buf.name))
            return ("buf", v)
        if isinstance(v, bool):
            raise LauncherError("argument `%s` of `%s` is a bool: pass it as an int, or make the "
                                "parameter a tl.constexpr" % (p.name, fn.__name__))
        if isinstance(v, int):
            if not -2**63 <= v < 2**64:
                raise LauncherError("argument `%s`=%d does not fit 64 bits" % (p.name, v))
            return ("int", int(v))
        if isinstance(v, float):
            return ("float", v)
        if v is None:
            raise LauncherError("argument `%s` of `%s` is None: make the parameter a tl.constexpr "
                                "with a default, or pass a value" % (p.name, fn.__name__))
        kind = type(v).__name__
        if "TensorDescriptor" in kind or hasattr(v, "tma_desc_cpu_ptr"):
            raise LauncherError("argument `%s` is a host-side tensor descriptor (%s): not supported; "
                                "make the descriptor in the kernel (tl.make_tensor_descriptor)"
                                % (p.name, kind))
        if hasattr(v, "data_ptr"):
            raise LauncherError("argument `%s` is a %s, not one of the judge's tensors (or a view of "
                                "one): the judge can bind only the problem's buffers and those "
                                "torch.empty / torch.zeros make" % (p.name, kind))
        raise LauncherError("argument `%s` of `%s` is of type %s.%s: the judge passes tensors, ints "
                            "and floats" % (p.name, fn.__name__, type(v).__module__, kind))

    def grid_of(self, grid):
        if isinstance(grid, bool):
            raise LauncherError("the grid is a bool")
        if isinstance(grid, int):
            grid = (grid,)
        if isinstance(grid, Tensor):
            refuse_values("a grid made of a tensor")
        if not isinstance(grid, (tuple, list)) or not 1 <= len(grid) <= 3:
            raise LauncherError("the grid is %r: a tuple of 1 to 3 ints (or a function of meta "
                                "returning one)" % (grid,))
        out = []
        for g in grid:
            if isinstance(g, Tensor):
                refuse_values("a grid dimension made of a tensor")
            if isinstance(g, bool) or not isinstance(g, int):
                raise LauncherError("grid dimension %r is not an int" % (g,))
            out.append(int(g))
        out += [1] * (3 - len(out))
        if any(g < 0 for g in out):
            raise LauncherError("the grid %s has a negative dimension" % (tuple(out),))
        if out[0] > GRID_X_MAX or out[1] > GRID_YZ_MAX or out[2] > GRID_YZ_MAX:
            raise LauncherError("the grid %s is over the GPU's limits (x at most %d, y and z at most %d)"
                                % (tuple(out), GRID_X_MAX, GRID_YZ_MAX))
        return tuple(out)

    # -- warmup: a real compile ------------------------------------------------------------------
    def warm(self, fn, launch):
        key = variant_key(launch)
        if key in self.warmed:
            return self.warmed[key]
        k = kernel_request(self.drv, launch)
        try:
            spec = self.drv["specialise"](fn, k, self.compiler.attr_d)
        except self.drv["BindError"] as e:
            raise LauncherError(str(e))
        (compiled, err), text = self.drv["capture_stderr"](lambda: self.compiler.compile(fn, k, spec))
        if err is not None:
            raise LauncherError("warmup of `%s` failed to compile (%s): %s"
                                % (launch.kernel, self.drv["options_text"](k), self.drv["one_line"](err)))
        out = CompiledStandIn(self, fn, launch, compiled)
        self.warmed[key] = out
        return out


class Located(Exception):
    """A launcher error that knows its line (not from a traceback)."""

    def __init__(self, line, message):
        super().__init__(message)
        self.line = line


class Meta(dict):
    """The grid function's `meta`: the kernel's bound arguments (Triton 3.6 passes them)."""

    def __init__(self, bound, fn):
        super().__init__(bound)
        self.fn = fn

    def __missing__(self, key):
        raise LauncherError("the grid reads meta[%r], which is not a parameter of `%s` (its "
                            "parameters: %s): no argument, @triton.autotune config or heuristic "
                            "defines it" % (key, self.fn.__name__, param_names(self.fn)))


class LazyCompiled:
    """What kernel[grid](...) returns: Triton's compiled kernel, compiled if it is looked at."""

    def __init__(self, ctx, fn, launch):
        self._ctx, self._fn, self._launch = ctx, fn, launch
        self._real = None

    def __getattr__(self, name):
        if self._real is None:
            self._real = self._ctx.warm(self._fn, self._launch)
        return getattr(self._real, name)

    def __getitem__(self, grid):
        return self._ctx.warm(self._fn, self._launch)[grid]


class CompiledStandIn:
    """Triton's CompiledKernel as kernel.warmup(...) returns it, without a GPU: the compiled
    code and metadata, n_regs and n_spills read from the cubin, and [grid](*args) to launch it."""

    def __init__(self, ctx, fn, launch, compiled):
        self._ctx, self._fn, self._launch = ctx, fn, launch
        self.asm = compiled.asm
        self.metadata = compiled.metadata
        self.name = getattr(compiled, "name", launch.kernel)
        self.hash = getattr(compiled, "hash", None)
        self.src = getattr(compiled, "src", None)
        self.kernel = getattr(compiled, "kernel", None)
        cubin = compiled.asm["cubin"] if "cubin" in compiled.asm else b""
        regs, frame = cubin_resources(bytes(cubin), self.metadata.name)
        if regs is None:
            raise LauncherError("cannot read the register count of `%s` from its cubin" % launch.kernel)
        self.n_regs = regs
        self.n_spills = frame // 4
        warps = getattr(self.metadata, "num_warps", launch.options[0])
        per_thread = max(8, (regs + 7) // 8 * 8)
        self.n_max_threads = min(1024, (65536 // per_thread) // 32 * 32) if regs else 32 * warps
        self.options_dict = {"num_warps": launch.options[0], "num_stages": launch.options[1]}
        if launch.options[2]:
            self.options_dict["maxnreg"] = launch.options[2]
        self.constexprs = launch.constexprs
        self.function = None
        self.module = None

    def _init_handles(self):
        return None

    def launch_metadata(self, *args, **kwargs):
        return None

    def run(self, *args, **kwargs):
        raise LauncherError("CompiledKernel.run(...) is Triton's low-level launch: use kernel[grid](*args)")

    def __getitem__(self, grid):
        def runner(*args, stream=None):
            fn = self._fn
            n_all, pos = len(fn.params), [p for p in fn.params if not p.is_constexpr]
            if len(args) == n_all:
                given = dict(zip([p.name for p in fn.params], args))
                for name, value in self.constexprs:
                    got = constexpr_value(given.get(name), self._ctx.triton)
                    if type(got) is not type(value) or got != value:
                        raise LauncherError("the compiled `%s` was warmed up with %s=%s; this launch "
                                            "passes %s" % (self._launch.kernel, name, literal(value),
                                                           literal(got)))
                args = tuple(given[p.name] for p in pos)
            elif len(args) != len(pos):
                raise LauncherError("the compiled `%s` takes %d arguments (%s), or all %d parameters; "
                                    "%d given" % (self._launch.kernel, len(pos),
                                                  ", ".join(p.name for p in pos), n_all, len(args)))
            kwargs = dict(zip([p.name for p in pos], args))
            kwargs.update(self.constexprs)
            kwargs.update(self.options_dict)
            return self._ctx.launch_jit(current(), fn, grid, False, (), kwargs)
        return runner


def kernel_request(drv, launch):
    """driver.py's KernelRequest for a recorded launch (its specialisation from the values)."""
    k = drv["KernelRequest"](launch.kernel)
    k.line = launch.line
    k.num_warps, k.num_stages = launch.options[0], launch.options[1]
    k.maxnreg = launch.options[2] or None
    k.args = [arg_spec(a) for a in launch.args]
    k.constexprs = list(launch.constexprs)
    return k


def arg_spec(a, integers=True, fold=False):
    """(Triton type, flags) of a recorded argument, as Triton 3.6's specialize_impl gives them:
    a pointer is D when its address is 16-byte aligned; an int is i32 / i64 / u64 by value, 1
    when it equals 1, D when it is a multiple of 16 (neither unless `integers`, but 1 when
    `fold`); a float is fp32."""
    kind, v = a
    if kind == "buf":
        return "*" + v._buf.dtype.triton, "D" if v.data_ptr() % 16 == 0 else "-"
    if kind == "float":
        return "fp32", "-"
    ty = "i32" if -2**31 <= v < 2**31 else "u64" if v >= 2**63 else "i64"
    if not integers:
        return ty, "1" if fold and v == 1 else "-"
    return ty, "1" if v == 1 else "D" if v % 16 == 0 else "-"


def variant_key(launch, integers=True, folds=frozenset()):
    """The build a launch needs, as text; judge/worker/triton_launcher.c writes the same
    (triton_variant_key): KERNEL(TYPE:FLAG,...)[NAME=LITERAL,...]{WARPS,STAGES,MAXNREG}.
    `integers`: its integer arguments specialised as at home (a benchmark shape's launch, and
    a warmup's); a test case's are typed only, but for those at the positions `folds`, which
    are 1 in every test case of its build (test_folds; plan/triton_variant.h says why)."""
    args = ",".join("%s:%s" % arg_spec(a, integers, k in folds)
                    for k, a in enumerate(launch.args))
    cx = ",".join("%s=%s" % (n, literal(v)) for n, v in launch.constexprs)
    return "%s(%s)[%s]{%d,%d,%d}" % (launch.kernel, args, cx, launch.options[0], launch.options[1],
                                     launch.options[2])


def test_folds(launches):
    """For one configuration's (launch, specialised) pairs: the integer positions each test
    build folds, by its unfolded key: those where every test launch of that build passes 1."""
    folds = {}
    for launch, specialised in launches:
        if specialised:
            continue
        ones = frozenset(k for k, (kind, v) in enumerate(launch.args) if kind == "int" and v == 1)
        key = variant_key(launch, False)
        folds[key] = folds[key] & ones if key in folds else ones
    return folds


# ---- the cubin's resources -----------------------------------------------------------------

EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 0x04


def cubin_resources(cubin, name):
    """(registers, local frame bytes) of entry `name` from a cubin's .nv.info section (the
    EIATTR_REGCOUNT and EIATTR_FRAME_SIZE attributes, keyed by the entry's symbol index), as
    cuFuncGetAttribute would report them; (None, 0) when the cubin does not say."""
    try:
        if len(cubin) < 64 or cubin[:4] != b"\x7fELF" or cubin[4] != 2 or cubin[5] != 1:
            return None, 0
        shoff, = struct.unpack_from("<Q", cubin, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
        sections = []
        for i in range(shnum):
            base = shoff + i * shentsize
            sh_name, sh_type, _, _, off, size, link, _, _, entsize = struct.unpack_from("<IIQQQQIIQQ", cubin, base)
            sections.append((sh_name, sh_type, off, size, link, entsize))
        _, _, str_off, str_size, _, _ = sections[shstrndx]

        def cstr(table_off, at):
            end = cubin.index(b"\0", table_off + at)
            return cubin[table_off + at:end].decode("utf-8", "replace")
        names = [cstr(str_off, s[0]) for s in sections]
        symtab = next((s for s in sections if s[1] == 2), None)  # SHT_SYMTAB
        if symtab is None:
            return None, 0
        strtab = sections[symtab[4]]
        wanted = set()
        for i in range(symtab[3] // 24):
            st_name, = struct.unpack_from("<I", cubin, symtab[2] + i * 24)
            if cstr(strtab[2], st_name) == name:
                wanted.add(i)
        regs, frame = None, 0
        for s, n in zip(sections, names):
            if n != ".nv.info" and n != ".nv.info." + name:
                continue
            pos, end = s[2], s[2] + s[3]
            while pos + 4 <= end:
                fmt, attr, size = cubin[pos], cubin[pos + 1], struct.unpack_from("<H", cubin, pos + 2)[0]
                if fmt == EIFMT_SVAL:
                    if attr in (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE) and size >= 8:
                        sym, value = struct.unpack_from("<II", cubin, pos + 4)
                        if sym in wanted or n != ".nv.info":
                            if attr == EIATTR_REGCOUNT:
                                regs = value
                            else:
                                frame = value
                    pos += 4 + size
                else:
                    pos += 4
        return regs, frame
    except (struct.error, ValueError, IndexError):
        return None, 0


# ---- the request ------------------------------------------------------------------------------

def decode_launch(fields):
    """The launcher part of a request: tensors, scalars, sizes, cases, device, limits, the text
    the builds are compiled from, the variants judged holds."""
    rq = {"tensors": [], "scalars": [], "sizes": [], "cases": [], "device": dict(DEFAULT_DEVICE),
          "limits": {}, "record_only": False, "tests_only": False, "compile_source": None,
          "have": set()}
    case = None
    for key, value in fields:
        if key == "compile_source":
            rq["compile_source"] = value
            continue
        text = value.decode("utf-8")
        if key == "have":
            rq["have"].add(text)
        elif key == "mode":
            if text != "launch":
                raise ValueError("unknown mode %r" % text)
        elif key == "record_only":
            rq["record_only"] = text == "1"
        elif key == "tests_only":
            rq["tests_only"] = text == "1"
        elif key in ("device", "limit"):
            name, _, v = text.partition("=")
            target = rq["device"] if key == "device" else rq["limits"]
            target[name] = v if name == "name" else int(v)
        elif key == "tensor":
            name, dtype, role = text.split(" ")
            if dtype not in BY_JUDGE:
                raise ValueError("tensor %s has dtype %s" % (name, dtype))
            rq["tensors"].append({"name": name, "dtype": dtype, "role": role})
        elif key == "scalar":
            name, dtype = text.split(" ")
            rq["scalars"].append({"name": name, "dtype": dtype})
        elif key == "size":
            rq["sizes"].append(text)
        elif key == "case":
            index, kind, name = text.split(" ", 2)
            case = {"index": int(index), "kind": kind, "name": name, "shapes": {}, "values": {},
                    "scratch_limit": 1 << 62}
            rq["cases"].append(case)
        elif case is None:
            raise ValueError("field %s before any case" % key)
        elif key == "shape":
            parts = text.split(" ")
            case["shapes"][parts[0]] = tuple(int(d) for d in parts[1:])
        elif key == "value":
            name, v = text.split(" ")
            case["values"][name] = float(v) if any(c in v for c in ".eEn") else int(v)
        elif key == "scratch_limit":
            case["scratch_limit"] = int(text)
    for t in rq["tensors"]:
        for c in rq["cases"]:
            if t["name"] not in c["shapes"]:
                raise ValueError("case %s has no shape for %s" % (c["name"], t["name"]))
    return rq


DEFAULT_DEVICE = {"name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
                  "total_memory": 150 << 30, "l2_bytes": 60 << 20, "max_shared_mem": 232448,
                  "max_shared_mem_sm": 233472, "max_num_regs": 65536, "warp_size": 32,
                  "max_threads_per_sm": 2048, "sm_clock_khz": 1980000, "mem_clock_khz": 3201000,
                  "mem_bus_width": 6144}


# ---- answering ----------------------------------------------------------------------------------

def record_fields(field, config, case_index, rec):
    """The wire fields of one recorded plan (judge/worker/triton_launcher.h)."""
    out = [field("record", "%d %d" % (config, case_index))]
    for b in rec.scratch:
        out.append(field("scratch", "%s %s %d %d" % (b.name, b.dtype.judge, b.count, b.line)))
    for L in rec.launches:
        out.append(field("launch", "%s %d" % (L.kernel, L.line)))
        out.append(field("grid", "%d %d %d" % L.grid))
        out.append(field("options", "%d %d %d" % L.options))
        for kind, v in L.args:
            if kind == "buf":
                lo, hi = v.window()
                out.append(field("arg", "buf %s %d %d" % (v._buf.name, v._offset, hi - lo)))
            elif kind == "int":
                out.append(field("arg", "int %d" % v))
            else:
                out.append(field("arg", "float %s" % repr(float(v))))
        for name, value in L.constexprs:
            out.append(field("constexpr", "%s=%s" % (name, literal(value))))
    return b"".join(out)


def error_location(e, ctx):
    """(line, col) of an error: a Located's own line, else the innermost learner frame."""
    if isinstance(e, Located):
        return e.line, 0
    where = ctx.drv["learner_frame"](e.__traceback__, ctx.filename)
    return where if where else (0, 0)


def describe(e):
    if isinstance(e, (LauncherError, Located)):
        return str(e)
    if isinstance(e, LauncherTimeout):
        return str(e)
    if isinstance(e, MemoryError):
        return "MemoryError: solve ran out of memory (the compile sandbox's limit)"
    if isinstance(e, RecursionError):
        return "RecursionError: %s" % e
    text = "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__
    return text


def run_case_child(ctx, case, wfd):
    """In a forked child (its parent the driver: spawn_case): every configuration of one case;
    writes its pid, then fields, to wfd and exits."""
    field = ctx.drv["field"]
    out = []
    status = 0
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    ctx.drv["write_all"](wfd, field("pid", str(os.getpid())))

    def alarm(signum, frame):
        raise LauncherTimeout("solve did not return within %.0f s for case %s"
                              % (LIMITS["case_ms"] / 1000.0, case["name"]))
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, LIMITS["case_ms"] / 1000.0)
    try:
        for config in range(len(ctx.configs)):
            rec = ctx.record_case(case, config)
            out.append(record_fields(field, config, case["index"], rec))
    except BaseException as e:  # the learner's, whatever it is: reported at its line
        signal.setitimer(signal.ITIMER_REAL, 0)
        line, col = error_location(e, ctx)
        what = describe(e)
        if not isinstance(e, LauncherTimeout) and case["name"] not in what:
            what += " (case %s)" % case["name"]
        out = [field("record_error", "%d %d:%d:%s" % (case["index"], line, col, what[:1800]))]
        status = 0
    signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        ctx.drv["write_all"](wfd, b"".join(out) + field("end"))
    except OSError:
        status = 1
    os._exit(status)


def spawn_case(ctx, case, others):
    """Forks the child that records a case, through a middle process that exits at once, so
    that its parent is the driver (the init of the sandbox's pid namespace, which reaps it), not
    this recorder: a solve that kills os.getppid() meets a process its signals cannot reach.
    Returns the read end of the case's pipe (its pid comes first on it)."""
    r, w = os.pipe()
    mid = os.fork()
    if mid == 0:
        try:
            os.close(r)
            for fd in others + [ctx.recorder_fd]:  # what solve forks must not hold them open
                os.close(fd)
            if os.fork() == 0:
                run_case_child(ctx, case, w)
        finally:
            os._exit(0)
    os.close(w)
    while True:
        try:
            os.waitpid(mid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            break
    return r


CASE_PID = re.compile(rb"\Apid [0-9]{1,3}\n([0-9]{1,9})\n")


def kill_case(pid):
    """A case's child and its process group (what solve forked without leaving it)."""
    if not pid:
        return
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def record_all(ctx, jobs):
    """Records every case, `jobs` children at a time. Returns (records {case index: [fields]},
    error (case index, (line, col, text)) or None)."""
    cases = list(ctx.rq["cases"])
    results, errors = {}, {}
    running = {}  # read fd -> [pid (once said), case, chunks, deadline]
    pending = list(cases)
    parse_record = ctx.drv["parse_record"]
    grace = 2.0
    while pending or running:
        first_error = min(errors) if errors else None
        while pending and len(running) < jobs and (first_error is None or pending[0]["index"] < first_error):
            case = pending.pop(0)
            r = spawn_case(ctx, case, list(running))
            running[r] = [None, case, [], time.monotonic() + LIMITS["case_ms"] / 1000.0 + grace]
        if first_error is not None:
            pending = [c for c in pending if c["index"] < first_error]
        if not running:
            break
        timeout = max(0.0, min(v[3] for v in running.values()) - time.monotonic())
        ready, _, _ = select.select(list(running), [], [], timeout)
        now = time.monotonic()
        for fd in list(running):
            pid, case, chunks, deadline = running[fd]
            done = False
            if fd in ready:
                try:
                    data = os.read(fd, 1 << 16)
                except OSError:
                    data = b""
                if data:
                    chunks.append(data)
                    if pid is None:
                        m = CASE_PID.match(b"".join(chunks))
                        running[fd][0] = pid = int(m.group(1)) if m else None
                    # whole once it ends: what solve forked may hold the pipe open
                    done = data.endswith(b"end 0\n\n") or sum(len(c) for c in chunks) > (16 << 20)
                else:
                    done = True
            if not done and now >= deadline:
                kill_case(pid)
                errors[case["index"]] = (ctx.solve_line, 0, "solve did not return within %.0f s for "
                                         "case %s" % (LIMITS["case_ms"] / 1000.0, case["name"]))
                done = True
            if not done:
                continue
            os.close(fd)
            del running[fd]
            kill_case(pid)  # what solve left running (the driver reaps them)
            if case["index"] in errors:
                continue
            try:
                fields = parse_record(b"".join(chunks))
            except ValueError:
                errors[case["index"]] = (ctx.solve_line, 0, "the recording of case %s ended early: "
                                         "did solve exit, or write to the judge's pipes?"
                                         % case["name"])
                continue
            bad = [v for k, v in fields if k == "record_error"]
            if bad:
                _, _, rest = bad[0].partition(b" ")
                errors[case["index"]] = diag_item(rest)
            else:
                results[case["index"]] = [(k, v) for k, v in fields if k != "pid"]
    if errors:
        i = min(errors)
        return results, (i, errors[i])
    return results, None


def diag_item(value):
    """(line, col, MSG) of a "LINE:COL:MSG" field."""
    text = value.decode("utf-8", "replace")
    line, _, rest = text.partition(":")
    col, _, msg = rest.partition(":")
    try:
        return int(line), int(col), msg
    except ValueError:
        return 0, 0, text


def run_recorder(env, wfd, jobs):
    """In a forked child of the driver: imports the learner's module, finds its configurations,
    binds solve, records every case (record_all), and writes what the driver answers to wfd:
    module_error fields (the import or the binding failed), or the configurations and solve's
    line, then every case's recorded fields in case order up to the first failing case, whose
    record_error ends them; exits. Its fd 4 leads nowhere: the answer is the driver's."""
    drv, field = env["drv"], env["drv"]["field"]
    diags = drv["Diags"]()
    out = []
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, drv["RESULT_FD"])
    os.close(null)
    try:
        learner = drv["Learner"](env["triton"], env["rq"]["filename"], env["rq"]["source"],
                                 env["workdir"])
        ctx = None
        if learner.load(diags):
            ctx = Context(drv, env["triton"], learner, env["lrq"], env["compiler"])
            ctx.recorder_fd = wfd
            env["ctx_ref"][0] = ctx
            ctx.find_autotuners()
            ctx.bind_solve()
        if ctx is None:
            out = [field("module_error", "%d:%d:%s" % item) for item in diags.items]
        else:
            out = [field("configs", str(len(ctx.configs))), field("solve_line", str(ctx.solve_line))]
            out += [field("config", "%d %s" % (i, ctx.config_name(i)))
                    for i in range(len(ctx.configs))]
            records, error = record_all(ctx, jobs)
            for case in ctx.rq["cases"]:
                if error is not None and case["index"] >= error[0]:
                    break
                for key, value in records[case["index"]]:
                    out.append(field(key, value))
            if error is not None:
                line, col, msg = error[1]
                out.append(field("record_error", "%d %d:%d:%s" % (error[0], line, col, msg)))
    except Located as e:
        out = [field("module_error", "%d:0:error: %s" % (e.line, e))]
    drv["write_all"](wfd, b"".join(out) + field("end"))
    os._exit(0)


def read_recording(drv, rfd):
    """The recorder's fields (run_recorder), read to their end while the driver reaps the case
    children it is the parent of; None when the recorder ended without a whole record. Whole
    once it ends: a process the learner's code left may hold the pipe open."""
    chunks, tail = [], b""
    while not tail.endswith(b"\nend 0\n\n"):
        ready, _, _ = select.select([rfd], [], [], 0.25)
        while True:  # the cases' children, whose parent the driver is (spawn_case)
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not ready:
            continue
        try:
            data = os.read(rfd, 1 << 20)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            break
        chunks.append(data)
        tail = (tail + data)[-16:]
    os.close(rfd)
    try:
        return drv["parse_record"](b"".join(chunks))
    except ValueError:
        return None


def end_learner_code(pids, sandboxed):
    """Kills every process that ran the learner's code and empties the tmpfs they could write,
    before the compile child starts: nothing of the learner's whole file may reach a build.
    The driver is the init of the sandbox's pid namespace: kill(-1) reaches every other
    process in it, however it was forked (setsid, double fork), and the orphans are reaped
    here. Without the sandbox (--no-sandbox, diagnosis only) there is no namespace: only the
    processes the driver knows and their groups are killed."""
    import shutil
    if sandboxed:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    else:
        for pid in pids:
            kill_case(pid)
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if sandboxed else os.WNOHANG)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == 0:
            break
    base = os.environ.get("TMPDIR", "/tmp")

    def writable(func, path, _):
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            func(path)
        except OSError:
            pass
    for name in os.listdir(base):
        path = os.path.join(base, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, onerror=writable)
            else:
                os.unlink(path)
        except OSError:
            pass


def fresh_dirs():
    """A work directory, HOME, TMPDIR and TRITON_CACHE_DIR made now, after end_learner_code:
    the compile child writes and reads only there."""
    import tempfile
    base = tempfile.mkdtemp(prefix="compile-", dir=os.environ.get("TMPDIR", "/tmp"))
    os.environ["TMPDIR"] = base
    tempfile.tempdir = base
    for name, sub in (("HOME", "home"), ("TRITON_CACHE_DIR", "triton-cache")):
        os.environ[name] = os.path.join(base, sub)
        os.makedirs(os.environ[name], exist_ok=True)
    work = os.path.join(base, "work")
    os.makedirs(work, exist_ok=True)
    return work


VARIANT_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)\)\[([^\[\]]*)\]\{([0-9]+),([0-9]+),([0-9]+)\}\Z")


def request_of_key(drv, key, line):
    """driver.py's KernelRequest of a variant key (variant_key's text), or None when the key
    does not say one build unambiguously: what the compile child builds is its key's."""
    m = VARIANT_KEY.match(key)
    if not m:
        return None
    k = drv["KernelRequest"](m.group(1))
    k.line = line
    k.num_warps, k.num_stages = int(m.group(4)), int(m.group(5))
    k.maxnreg = int(m.group(6)) or None
    try:
        for a in m.group(2).split(",") if m.group(2) else []:
            ty, _, flag = a.partition(":")
            if flag not in ("D", "1", "-"):
                return None
            k.args.append((ty, flag))
        for c in m.group(3).split(",") if m.group(3) else []:
            name, _, lit = c.partition("=")
            k.constexprs.append((name, parse_literal(lit)))
    except ValueError:
        return None
    again = "%s(%s)[%s]{%d,%d,%d}" % (
        k.name, ",".join("%s:%s" % a for a in k.args),
        ",".join("%s=%s" % (n, literal(v)) for n, v in k.constexprs),
        k.num_warps, k.num_stages, k.maxnreg or 0)
    return k if again == key else None


def compile_child(env, items, jobs):
    """In a forked child of the driver, once the learner's processes are gone: imports the
    module as judged keyed it and compiles items [(index, key, line)], each from its key,
    putting every build (or "failed") and the diagnostics on the result pipe; exits."""
    drv, triton, rq = env["drv"], env["triton"], env["rq"]
    diags = drv["Diags"]()
    status = 0
    try:
        work = fresh_dirs()
        os.chdir(work)
        source = env["lrq"]["compile_source"]
        learner = drv["Learner"](triton, rq["filename"], source if source is not None else rq["source"],
                                 work)
        if not silenced(lambda: learner.load(diags)):  # its prints were the recording's
            for i, _, _ in items:
                drv["put"]("failed", str(i))
        else:
            compiler = drv["Compiler"](triton, rq["cc"])
            bound = []
            for i, key, line in items:
                k = request_of_key(drv, key, line)
                fn = unwrap(vars(learner.module).get(k.name), triton.runtime.jit.JITFunction) \
                    if k is not None else None
                try:
                    if k is None:
                        raise drv["BindError"]("the variant %s is malformed" % key)
                    if fn is None or fn.fn.__code__.co_filename != rq["filename"]:
                        raise drv["BindError"]("`%s` is not a @triton.jit (or @gluon.jit) function "
                                               "of %s" % (k.name, rq["filename"]))
                    compiler.source_class(fn)
                    bound.append((i, k, fn, drv["specialise"](fn, k, compiler.attr_d)))
                except drv["BindError"] as e:
                    diags.add(line, 0, "error", str(e))
                    drv["put"]("failed", str(i))
            drv["compile_bound"](compiler, learner, bound, jobs, diags)
        diags.send()
    except BaseException as e:  # the keyed module's doing, or a judge bug: said as the failure
        status = 1
        try:
            drv["put"]("failure", "the Triton compile child failed: %s" % describe(e))
        except BaseException:
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


# ---- the whole request ----------------------------------------------------------------------------

def patch_triton(triton, ctx_ref):
    """Makes every launch entry point of Triton's kernel classes record instead of launch."""
    def record(self, grid, warmup, args, kwargs):
        ctx = ctx_ref[0]
        if ctx is None or CURRENT[0] is None:
            raise LauncherError("kernels can be launched only while solve runs (not at import)")
        return ctx.launch(self, grid, warmup, args, kwargs)

    def getitem(self, grid):
        return lambda *args, **kwargs: record(self, grid, False, args, kwargs)

    def run(self, *args, grid=None, warmup=False, **kwargs):
        return record(self, grid, warmup, args, kwargs)

    def warmup(self, *args, grid=None, **kwargs):
        return record(self, grid, True, args, kwargs)

    classes = [triton.runtime.jit.JITFunction]
    for mod, name in ((getattr(triton.runtime, "jit", None), "KernelInterface"),
                      (getattr(triton.runtime, "autotuner", None), "Autotuner"),
                      (getattr(triton.runtime, "autotuner", None), "Heuristics")):
        cls = getattr(mod, name, None) if mod is not None else None
        if isinstance(cls, type):
            classes.append(cls)
    try:
        from triton.experimental.gluon._runtime import GluonJITFunction
        classes.append(GluonJITFunction)
    except Exception:
        pass
    for cls in classes:
        cls.__getitem__ = getitem
        cls.run = run
        cls.warmup = warmup


def silenced(run):
    """run() with stdout and stderr (fds 1 and 2) going nowhere; what it returns."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        return run()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)


def serve_launch(drv, triton, rq, launch_fields, workdir):
    """The whole launcher request: puts the answer's fields; returns the seconds it took."""
    t0 = time.monotonic()
    put = drv["put"]
    diags = drv["Diags"]()
    lrq = decode_launch(launch_fields)
    for k, v in lrq["limits"].items():
        if k in LIMITS:
            LIMITS[k] = v
    torch = make_torch(lrq["device"])
    sys.modules["torch"] = torch
    sys.modules["torch.cuda"] = torch.cuda
    standin = StandInDriver(triton, lrq["device"], torch)
    install_driver(triton, standin)
    ctx_ref = [None]
    patch_triton(triton, ctx_ref)
    env = {"drv": drv, "triton": triton, "rq": rq, "lrq": lrq, "workdir": workdir,
           "compiler": drv["Compiler"](triton, rq["cc"]), "ctx_ref": ctx_ref}
    try:
        cpus = len(os.sched_getaffinity(0))
    except OSError:
        cpus = 1
    jobs = max(1, min(rq["jobs"], cpus, len(lrq["cases"]) or 1))
    sandboxed = os.getpid() == 1  # the init of the sandbox's pid namespace
    t_rec = time.monotonic()
    r, w = os.pipe()
    recorder = os.fork()
    if recorder == 0:
        os.close(r)
        run_recorder(env, w, jobs)
    os.close(w)
    fields = read_recording(drv, r)
    end_learner_code([recorder], sandboxed)
    put("record_ms", "%.3f" % ((time.monotonic() - t_rec) * 1000.0))
    put("record_cases", str(len(lrq["cases"])))
    if fields is None:
        diags.add(0, 0, "error", "the recording ended early: did the module's import exit, or "
                  "kill the recorder?")
        put("record_failed")
        diags.send()
        return time.monotonic() - t0
    failed = [v for k, v in fields if k in ("module_error", "record_error")]
    if failed:
        for k, v in fields:
            if k == "module_error":
                line, col, msg = diag_item(v)
                severity, _, text = msg.partition(": ")
                diags.add(line, col, severity if text else "error", text or msg)
            elif k == "record_error":
                line, col, msg = diag_item(v.partition(b" ")[2])
                diags.add(line, col, "error", msg)
        put("record_failed")
        diags.send()
        return time.monotonic() - t0
    head = {k: v for k, v in fields if k in ("configs", "solve_line")}
    try:
        n_configs = int(head.get("configs", b"0"))
        solve_line = int(head.get("solve_line", b"0"))
        if n_configs < 1:
            raise ValueError("no configuration")
    except ValueError as e:
        put("failure", "the recording is malformed: %s" % describe(e))  # a forged one
        return time.monotonic() - t0
    put("configs", str(n_configs))
    records = [(k, v) for k, v in fields if k not in ("configs", "solve_line")]
    for key, value in records:
        put(key, value)
    # The builds in the order the tests need them: configuration by configuration, each
    # configuration's cases in order (tests, then benchmarks; a Run's tests only), as judged
    # runs them. A test case's integers are not specialised (but for the 1s every test case of
    # its build passes: test_folds), a benchmark shape's are.
    timed = {c["index"]: c["kind"] == "bench" for c in lrq["cases"]}
    by_config = [[] for _ in range(n_configs)]
    lines, order = {}, []  # variant key -> the line of its first launch
    try:
        for config, case_index, launch in launches_of(records, lrq["tensors"]):
            if timed[case_index] and lrq["tests_only"]:
                continue
            by_config[config].append((launch, timed[case_index]))
        for launches in by_config:
            folds = test_folds(launches)
            for launch, specialised in launches:
                key = variant_key(launch, True) if specialised else \
                    variant_key(launch, False, folds[variant_key(launch, False)])
                if key not in lines:
                    lines[key] = launch.line
                    order.append(key)
    except (ValueError, KeyError, IndexError, AttributeError, TypeError) as e:
        put("failure", "the recording is malformed: %s" % describe(e))  # a forged one
        return time.monotonic() - t0
    if lrq["record_only"]:
        diags.send()
        return time.monotonic() - t0
    if len(order) > LIMITS["max_builds"]:
        diags.add(solve_line, 0, "error", "the recorded launches need %d kernel builds over this "
                  "problem's cases and configurations, more than %d (BW_TRITON_MAX_KERNELS): "
                  "fewer configurations, or constexpr values that do not follow every size"
                  % (len(order), LIMITS["max_builds"]))
        put("record_failed")
        diags.send()
        return time.monotonic() - t0
    for i, key in enumerate(order):
        put("variant", "%d %s" % (i, key))
    put("planned", str(len(order)))  # the plans are whole: judged may start testing
    items = []
    for i, key in enumerate(order):
        if key in lrq["have"]:
            put("cached", str(i))  # judged holds this build: not compiled again
        else:
            items.append((i, key, lines[key]))
    if items:
        pid = os.fork()
        if pid == 0:
            compile_child(env, items, rq["jobs"])
        while True:
            try:
                os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
        end_learner_code([pid], sandboxed)
    diags.send()
    return time.monotonic() - t0


class Rebuilt:
    """A launch rebuilt from its recorded fields: what variant_key needs."""

    def __init__(self, kernel, line, options, args, constexprs):
        self.kernel, self.line, self.options = kernel, line, options
        self.args, self.constexprs = args, constexprs


class FieldBuf:
    """A stand-in buffer for a recorded pointer: its dtype and an aligned address + offset."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.address = ADDRESS_BASE
        self.name = "?"
        self.count = 0


class FieldTensor:
    def __init__(self, buf, offset):
        self._buf, self._offset = buf, offset

    def data_ptr(self):
        return self._buf.address + self._offset * self._buf.dtype.itemsize


def parse_literal(text):
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    if text.startswith("'") and text.endswith("'"):
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)


def launches_of(fields, tensors):
    """The launches of the recorded fields, each with its configuration and case: [(config,
    case index, Rebuilt)]. Raises ValueError, KeyError or IndexError on fields no honest
    recorder writes."""
    dtypes = {t["name"]: BY_JUDGE[t["dtype"]] for t in tensors}
    out, cur, config, case_index = [], None, 0, 0
    for key, value in fields:
        text = value.decode("utf-8", "replace")
        if key == "record":
            cur = None
            config, case_index = (int(x) for x in text.split(" "))
            if config < 0:
                raise IndexError("configuration %d" % config)
        elif key == "scratch":
            name, dtype, _, _ = text.split(" ")
            dtypes[name] = BY_JUDGE[dtype]
        elif key == "launch":
            kernel, line = text.split(" ")
            cur = Rebuilt(kernel, int(line), (4, 3, 0), [], [])
            out.append((config, case_index, cur))
        elif key == "options":
            cur.options = tuple(int(x) for x in text.split(" "))
        elif key == "arg":
            parts = text.split(" ")
            if parts[0] == "buf":
                cur.args.append(("buf", FieldTensor(FieldBuf(dtypes[parts[1]]), int(parts[2]))))
            elif parts[0] == "int":
                cur.args.append(("int", int(parts[1])))
            else:
                cur.args.append(("float", float(parts[1])))
        elif key == "constexpr":
            name, _, lit = text.partition("=")
            cur.constexprs.append((name, parse_literal(lit)))
    return out
