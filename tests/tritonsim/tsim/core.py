"""core.py - the tensor of a simulated Triton program and the typing rules of its operators.

A Tensor is a numpy array (0-d for a scalar, a power-of-2 shape for a block)
of a Triton type (dtypes.py). Operators follow Triton 3.x's semantic layer
(python/triton/language/semantic.py), re-stated here:

- Python numbers (and constexprs, which are plain Python values here) take
  part in type promotion only when they are of a higher kind than the tensor
  (bool < int < float): fp16 * 0.5 is fp16, int32 + 1 is int32, int32 * 0.5
  is fp32; an int that does not fit the result type is a compile error.
- Otherwise fp64 > fp32 > fp16 > bf16 (fp16 with bf16 gives fp32); '/' and
  '%' of fp16/bf16 compute in fp32; integers follow C's usual conversions.
- Integer arithmetic wraps at the type's width; '//' and '%' truncate toward
  zero (C), unlike Python; shifts by the width or more give 0 (or the sign).
- '/' of integers is fp32; a float '/' is IEEE here (on the GPU div.full.f32,
  within 2 ulp).
- fp16 and bf16 arithmetic is computed exactly (in fp64) and rounded once to
  nearest even, as the GPU's native half instructions do.
- No FMA contraction: a * b + c rounds twice here, where Triton's compiler
  usually fuses it into one fma.rn.f32.
- Unary minus is 0 - x, as in Triton (so -(+0.0) is +0.0).
"""
import numpy as np

from . import dtypes as D
from .errors import CompileError

np.seterr(all="ignore")

MAX_NUMEL = 1 << 20  # TRITON_MAX_TENSOR_NUMEL
_checked_shapes = set()


def check_block_shape(shape):
    """Triton's validate_block_shape: every dimension a power of 2, at most 2^20 elements."""
    key = tuple(shape)
    if key in _checked_shapes:
        return
    numel = 1
    for i, d in enumerate(key):
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise CompileError("shape element %d must have type constexpr int, got %r" % (i, d))
        d = int(d)
        if d < 1 or d & (d - 1):
            raise CompileError("shape element %d must be a power of 2 (shape %s)" % (i, list(key)))
        numel *= d
    if numel > MAX_NUMEL:
        raise CompileError("numel (%d) exceeds triton maximum tensor numel (%d)" % (numel, MAX_NUMEL))
    _checked_shapes.add(key)


def is_pyscalar(x):
    return isinstance(x, (bool, int, float)) or isinstance(x, (np.integer, np.floating, np.bool_))


def pyscalar_type(x):
    """The type Triton gives a Python number (semantic.to_tensor_type)."""
    if isinstance(x, (bool, np.bool_)):
        return D.int1
    if isinstance(x, (int, np.integer)):
        x = int(x)
        if -2**31 <= x < 2**31:
            return D.int32
        if 2**31 <= x < 2**32:
            return D.uint32
        if -2**63 <= x < 2**63:
            return D.int64
        if 2**63 <= x < 2**64:
            return D.uint64
        raise CompileError("nonrepresentable integer %d" % x)
    if isinstance(x, (float, np.floating)):
        a = abs(float(x))
        if a == float("inf") or a == 0.0 or x != x or 2.0**-126 <= a <= (2 - 2.0**-23) * 2.0**127:
            return D.float32
        return D.float64
    raise CompileError("cannot convert %r of type %s to tensor" % (x, type(x).__name__))


class Tensor:
    """A value of a simulated program: `data` (numpy, the register dtype of `dtype`) and `dtype`
    (the scalar type, or a pointer_type). Block shapes are checked when made."""

    __slots__ = ("data", "dtype")

    def __init__(self, data, dtype):
        data = np.asarray(data)
        if data.dtype != dtype.reg:
            data = data.astype(dtype.reg)
        if data.ndim:
            check_block_shape(data.shape)
        self.data = data
        self.dtype = dtype

    # ---- what kernels read -------------------------------------------------------------
    @property
    def shape(self):
        return [int(d) for d in self.data.shape]

    @property
    def numel(self):
        return int(self.data.size)

    @property
    def type(self):
        return D.block_type(self.dtype, self.shape) if self.data.ndim else self.dtype

    @property
    def T(self):
        from . import lang
        return lang.trans(self)

    def __repr__(self):
        return "Tensor(%s, %s)" % (self.data.tolist() if self.data.size <= 16 else
                                   "shape %s" % self.shape, self.dtype)

    def __bool__(self):
        if self.data.ndim:
            raise CompileError("a block of %s cannot be a condition (use tl.where, or reduce it "
                               "with tl.max / tl.sum first)" % self.shape)
        return bool(self.data)

    def __index__(self):
        if self.data.ndim or not (self.dtype.is_int() and not self.dtype.is_ptr()):
            raise CompileError("only an integer scalar can be used as an index or a bound, got %s"
                               % self.type)
        return int(self.data)

    __int__ = __index__

    def __float__(self):
        if self.data.ndim:
            raise CompileError("a block cannot be converted to a Python float")
        return float(self.data)

    def __hash__(self):
        return id(self)

    def __iter__(self):
        raise CompileError("a tensor cannot be iterated over")

    def __len__(self):
        raise CompileError("len() of a tensor is not supported: use x.shape[0] or x.numel")

    # ---- operators ----------------------------------------------------------------------
    def __add__(self, o):
        return add(self, o)

    def __radd__(self, o):
        return add(o, self)

    def __sub__(self, o):
        return sub(self, o)

    def __rsub__(self, o):
        return sub(o, self)

    def __mul__(self, o):
        return mul(self, o)

    def __rmul__(self, o):
        return mul(o, self)

    def __truediv__(self, o):
        return truediv(self, o)

    def __rtruediv__(self, o):
        return truediv(o, self)

    def __floordiv__(self, o):
        return floordiv(self, o)

    def __rfloordiv__(self, o):
        return floordiv(o, self)

    def __mod__(self, o):
        return mod(self, o)

    def __rmod__(self, o):
        return mod(o, self)

    def __neg__(self):
        return minus(self)

    def __pos__(self):
        return self

    def __invert__(self):
        return invert(self)

    def __abs__(self):
        from . import lang
        return lang.abs(self)

    def __and__(self, o):
        return bitwise("and", self, o)

    def __rand__(self, o):
        return bitwise("and", o, self)

    def __or__(self, o):
        return bitwise("or", self, o)

    def __ror__(self, o):
        return bitwise("or", o, self)

    def __xor__(self, o):
        return bitwise("xor", self, o)

    def __rxor__(self, o):
        return bitwise("xor", o, self)

    def __lshift__(self, o):
        return shift("shl", self, o)

    def __rlshift__(self, o):
        return shift("shl", o, self)

    def __rshift__(self, o):
        return shift("ashr" if self.dtype.is_int_signed() else "lshr", self, o)

    def __rrshift__(self, o):
        t = pyscalar_type(o) if is_pyscalar(o) else o.dtype
        return shift("ashr" if t.is_int_signed() else "lshr", o, self)

    def __lt__(self, o):
        return compare("lt", self, o)

    def __le__(self, o):
        return compare("le", self, o)

    def __gt__(self, o):
        return compare("gt", self, o)

    def __ge__(self, o):
        return compare("ge", self, o)

    def __eq__(self, o):
        return compare("eq", self, o)

    def __ne__(self, o):
        return compare("ne", self, o)

    def __pow__(self, o):
        raise CompileError("'**' is not supported on tensors (use libdevice.pow, or multiply)")

    __rpow__ = __pow__

    def __getitem__(self, idx):
        return subscript(self, idx)

    def __setitem__(self, idx, v):
        raise CompileError("tensors are immutable: build a new one with tl.where")

    # Methods of tl.tensor: bound at the end of lang.py (x.to, x.sum, x.reshape, ...)


def _shape_of(x):
    return list(x.data.shape) if isinstance(x, Tensor) else []


def broadcast_shape(a, b):
    """The broadcast shape of two shapes by Triton's rules (numpy's: rank grows on the left)."""
    a, b = list(a), list(b)
    if not a or not b:
        return a or b
    while len(a) < len(b):
        a.insert(0, 1)
    while len(b) < len(a):
        b.insert(0, 1)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        else:
            raise CompileError("Cannot make_shape_compatible: incompatible dimensions at index %d: "
                               "%d and %d" % (i, x, y))
    return out


def integer_promote(a, b):
    if a.int_signedness == b.int_signedness:
        return a if a.int_bitwidth > b.int_bitwidth else b
    if not a.int_signedness:
        return a if a.int_bitwidth >= b.int_bitwidth else b
    return b if b.int_bitwidth >= a.int_bitwidth else a


def computation_type(a, a_scalar, b, b_scalar, div_or_mod):
    if a_scalar != b_scalar:
        s, t = (a, b) if a_scalar else (b, a)
        if s.kind() <= t.kind():
            if div_or_mod and (t.is_fp16() or t.is_bf16()):
                return D.float32
            return t
    if a.is_fp64() or b.is_fp64():
        return D.float64
    if a.is_fp32() or b.is_fp32():
        return D.float32
    if a.is_fp16() or b.is_fp16():
        return D.float32 if div_or_mod else D.float16
    if a.is_bf16() and b.is_bf16():
        return D.float32 if div_or_mod else D.bfloat16
    if a.is_bf16() or b.is_bf16():
        return D.float32
    if not a.is_int() or not b.is_int():
        raise CompileError("unexpected type %s and %s" % (a, b))
    if div_or_mod and a.int_signedness != b.int_signedness:
        raise CompileError("Cannot use /, //, or %% with %r and %r because they have different "
                           "signedness; this is unlikely to result in a useful answer. Cast them "
                           "to the same signedness." % (a, b))
    return integer_promote(a, b)


def const(value, t):
    """A Python number as a scalar tensor of type t."""
    if t.is_bf16():
        return Tensor(D.round_bf16(np.float64(value)), t)
    if t.is_int() and not t.is_bool():
        v = int(value)
        if not t.get_int_min_value() <= v <= t.get_int_max_value():
            v &= (1 << t.primitive_bitwidth) - 1
            if t.int_signedness and v >= 1 << (t.primitive_bitwidth - 1):
                v -= 1 << t.primitive_bitwidth
        return Tensor(np.array(v, dtype=t.reg), t)
    return Tensor(np.array(value, dtype=t.reg), t)


def to_tensor(x):
    if isinstance(x, Tensor):
        return x
    if is_pyscalar(x):
        return const(x, pyscalar_type(x))
    raise CompileError("cannot convert %r of type %s to a tensor" % (x, type(x).__name__))


def _check_ptr(a, b, allow_ptr_a):
    if a.is_ptr():
        if not allow_ptr_a:
            raise CompileError("invalid operands of type %r and %r" % (a, b))
        if b.is_ptr() and a != b:
            raise CompileError("invalid operands of type %r and %r" % (a, b))
        if b.is_floating():
            raise CompileError("invalid operands of type %r and %r" % (a, b))


def operands(a, b, allow_lhs_ptr=False, allow_rhs_ptr=False, arithmetic_check=True,
             div_or_mod=False):
    """Triton's binary_op_type_checking_impl: both operands as tensors of the computation type."""
    a_sc, b_sc = not isinstance(a, Tensor), not isinstance(b, Tensor)
    if a_sc and not is_pyscalar(a):
        raise CompileError("unsupported operand %r of type %s" % (a, type(a).__name__))
    if b_sc and not is_pyscalar(b):
        raise CompileError("unsupported operand %r of type %s" % (b, type(b).__name__))
    at = pyscalar_type(a) if a_sc else a.dtype
    bt = pyscalar_type(b) if b_sc else b.dtype
    _check_ptr(at, bt, allow_lhs_ptr)
    _check_ptr(bt, at, allow_rhs_ptr)
    if arithmetic_check and not at.is_ptr() and not bt.is_ptr():
        rt = computation_type(at, a_sc, bt, b_sc, div_or_mod)
        for sc, v in ((a_sc, a), (b_sc, b)):
            if not sc:
                continue
            if rt.is_int_unsigned() and v < 0:
                raise CompileError("Cannot perform a binary operation between an unsigned tensor "
                                   "and a negative scalar. Perform a explicit cast on one of them.")
            if rt.is_int() and not rt.get_int_min_value() <= v <= rt.get_int_max_value():
                raise CompileError("Scalar %s is out of range for type %s" % (v, rt))
        a = const(a, rt) if a_sc else cast(a, rt)
        b = const(b, rt) if b_sc else cast(b, rt)
    else:
        a = to_tensor(a)
        b = to_tensor(b)
    broadcast_shape(a.data.shape, b.data.shape)
    return a, b


def _float_op(fn, t, *xs):
    """fn over float register arrays of type t; fp16/bf16 exactly in fp64, rounded once."""
    if t.is_fp16() or t.is_bf16():
        r = fn(*[x.astype(np.float64) for x in xs])
        return Tensor(D.to_register(t, r), t)
    return Tensor(np.asarray(fn(*xs), dtype=t.reg), t)


def add(a, b):
    a, b = operands(a, b, True, True)
    if b.dtype.is_ptr() and not a.dtype.is_ptr():
        a, b = b, a
    if a.dtype.is_ptr():
        if b.dtype.is_ptr():
            raise CompileError("cannot add pointers together")
        off = b.data.astype(np.uint64).astype(np.int64) if b.dtype.is_int_unsigned() else \
            b.data.astype(np.int64)
        return Tensor(a.data + off * a.dtype.element_ty.itemsize, a.dtype)
    if a.dtype.is_floating():
        return _float_op(np.add, a.dtype, a.data, b.data)
    return Tensor(np.add(a.data, b.data), a.dtype)


def sub(a, b):
    a, b = operands(a, b, True, False)
    if a.dtype.is_ptr():
        return add(a, minus(b))
    if a.dtype.is_floating():
        return _float_op(np.subtract, a.dtype, a.data, b.data)
    return Tensor(np.subtract(a.data, b.data), a.dtype)


def mul(a, b):
    a, b = operands(a, b)
    if a.dtype.is_floating():
        return _float_op(np.multiply, a.dtype, a.data, b.data)
    return Tensor(np.multiply(a.data, b.data), a.dtype)


def truediv(a, b):
    a, b = operands(a, b, False, False, True, True)
    at, bt = a.dtype, b.dtype
    if at.is_floating() and bt.is_int():
        b = cast(b, at)
    elif at.is_int() and bt.is_floating():
        a = cast(a, bt)
    elif at.is_int() and bt.is_int():
        a, b = cast(a, D.float32), cast(b, D.float32)
    elif at.is_floating() and bt.is_floating():
        if at.fp_mantissa_width > bt.fp_mantissa_width:
            b = cast(b, at)
        else:
            a = cast(a, bt)
    else:
        raise CompileError("unexpected type %s" % at)
    return _float_op(np.divide, a.dtype, a.data, b.data)


def _int_div(x, y, signed):
    """C division of integer arrays: truncation toward zero; by 0 gives all ones (as PTX)."""
    zero = y == 0
    ys = np.where(zero, 1, y).astype(y.dtype)
    q = np.floor_divide(x, ys)
    if signed:
        fix = (np.remainder(x, ys) != 0) & ((x < 0) != (ys < 0))
        q = np.where(fix, q + 1, q)
    return np.where(zero, np.array(-1).astype(x.dtype), q).astype(x.dtype)


def floordiv(a, b):
    a, b = operands(a, b, False, False, True, True)
    if not (a.dtype.is_int() and b.dtype.is_int()):
        raise CompileError("unexpected type %s: '//' is for integers (use '/' for floats)"
                           % a.dtype)
    t = integer_promote(a.dtype, b.dtype)
    a, b = cast(a, t), cast(b, t)
    return Tensor(_int_div(a.data, b.data, t.is_int_signed()), t)


def mod(a, b):
    a, b = operands(a, b, False, False, True, True)
    t = a.dtype
    if t.is_floating():
        return _float_op(np.fmod, t, a.data, b.data)
    if t.int_signedness != b.dtype.int_signedness:
        raise CompileError("Cannot mod %r by %r because they have different signedness"
                           % (t, b.dtype))
    q = _int_div(a.data, b.data, t.is_int_signed())
    r = np.where(b.data == 0, a.data, a.data - q * b.data)
    return Tensor(r.astype(t.reg), t)


def minus(a):
    a = to_tensor(a)
    if a.dtype.is_ptr():
        raise CompileError("wrong type argument to unary minus (%r)" % a.dtype)
    return sub(Tensor(np.zeros((), a.dtype.reg), a.dtype), a)


def invert(a):
    a = to_tensor(a)
    if a.dtype.is_ptr() or a.dtype.is_floating():
        raise CompileError("wrong type argument to unary invert (%r)" % a.dtype)
    if a.dtype.is_bool():
        return Tensor(~a.data, a.dtype)
    return Tensor(np.invert(a.data), a.dtype)


def _bitwise_operands(a, b):
    a, b = operands(a, b)
    if not a.dtype.is_int() or not b.dtype.is_int():
        raise CompileError("invalid operands of type %r and %r (bitwise operators need integers "
                           "or booleans)" % (a.dtype, b.dtype))
    t = integer_promote(a.dtype, b.dtype)
    return cast(a, t), cast(b, t)


def bitwise(op, a, b):
    a, b = _bitwise_operands(a, b)
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return Tensor(fn(a.data, b.data), a.dtype)


def shift(op, a, b):
    a, b = _bitwise_operands(a, b)
    t = a.dtype
    bits = t.primitive_bitwidth
    n = b.data.astype(np.int64)
    big = (n >= bits) | (n < 0)
    nn = np.where(big, 0, n).astype(t.reg)
    if op == "shl":
        r = np.where(big, 0, np.left_shift(a.data, nn))
    elif op == "ashr":
        r = np.where(big, np.where(a.data < 0, -1, 0), np.right_shift(a.data, nn))
    else:
        u = a.data.astype(np.dtype("uint%d" % max(bits, 8))) if t.int_signedness else a.data
        r = np.where(big, 0, np.right_shift(u, nn.astype(u.dtype)))
    return Tensor(np.asarray(r).astype(t.reg), t)


_CMP = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
        "eq": np.equal, "ne": np.not_equal}


def compare(op, a, b):
    a, b = operands(a, b)
    return Tensor(_CMP[op](a.data, b.data), D.int1)


# ---- conversions ---------------------------------------------------------------------------

def to_memory(t, data):
    """Register values of type t as the array of their memory representation."""
    if t.is_bf16():
        return D.bf16_bits(data)
    if t.is_bool():
        return data.astype(np.int8)
    return np.asarray(data, dtype=t.mem)


def from_memory(t, raw):
    if t.is_bf16():
        return D.bf16_from_bits(raw)
    if t.is_bool():
        return raw != 0
    return raw


def bitcast(x, dst):
    x = to_tensor(x)
    src = x.dtype
    if src == dst:
        return x
    if src.is_ptr() or dst.is_ptr():
        return cast(x, dst)
    if src.primitive_bitwidth != dst.primitive_bitwidth:
        raise CompileError("Cannot bitcast data-type of size %d to data-type of size %d"
                           % (src.primitive_bitwidth, dst.primitive_bitwidth))
    raw = np.ascontiguousarray(to_memory(src, x.data))
    return Tensor(from_memory(dst, raw.view(dst.mem)), dst)


def _float_to_int(v, t):
    """cvt.rzi with saturation: truncate, clamp to t's range, NaN to 0."""
    v = np.trunc(v.astype(np.float64))
    v = np.where(np.isnan(v), 0, v)
    lo, hi = t.get_int_min_value(), t.get_int_max_value()
    big = v >= float(hi)
    small = v <= float(lo)
    out = np.clip(v, lo, hi).astype(t.reg) if t.primitive_bitwidth < 64 else \
        np.where(big | small, 0, v).astype(t.reg)
    if t.primitive_bitwidth == 64:
        out = np.where(big, np.array(hi, dtype=t.reg), out)
        out = np.where(small, np.array(lo, dtype=t.reg), out)
    return out


def _round_toward_zero(v, t):
    """v (fp32/fp64 values) to fp16/bf16 rounding toward zero."""
    r = D.to_register(t, v).astype(np.float64)
    v64 = v.astype(np.float64)
    over = np.abs(r) > np.abs(v64)
    if over.any():
        if t.is_fp16():
            s = np.nextafter(r.astype(np.float16), np.float16(0)).astype(np.float64)
        else:
            bits = D.bf16_bits(r.astype(np.float32)).astype(np.int32) - 1
            s = D.bf16_from_bits(bits.astype(np.uint16)).astype(np.float64)
        r = np.where(over & np.isfinite(v64), s, r)
    return D.to_register(t, r)


def cast(x, dst, fp_downcast_rounding=None):
    """semantic.cast: value conversion (see bitcast for reinterpretation)."""
    x = to_tensor(x)
    src = x.dtype
    if isinstance(dst, D.block_type):
        dst = dst.element_ty
    if not isinstance(dst, D.dtype):
        raise CompileError("cannot cast to %r: not a type" % (dst,))
    if src == dst and src.is_ptr() == dst.is_ptr():
        return x
    if fp_downcast_rounding is not None and not (
            src.is_floating() and dst.is_floating() and
            dst.primitive_bitwidth < src.primitive_bitwidth):
        raise CompileError("fp_downcast_rounding should be set only for truncating fp "
                           "conversions. Source scalar type is %s and destination type is %s"
                           % (src, dst))
    if fp_downcast_rounding not in (None, "rtne", "rtz"):
        raise CompileError("Invalid rounding mode: %s. Supported rounding modes are 'rtne' and "
                           "'rtz'." % fp_downcast_rounding)
    v = x.data
    if src.is_ptr() or dst.is_ptr():
        if src.is_ptr() and dst.is_ptr():
            return Tensor(v, dst)
        if src.is_ptr() and dst.is_int():
            if dst.primitive_bitwidth == 64:
                return Tensor(v.astype(dst.reg), dst)
            if dst.is_bool():
                return Tensor(v != 0, dst)
        if src.is_int() and dst.is_ptr():
            return Tensor(v.astype(np.int64), dst)
        raise CompileError("cannot cast %r to %r" % (src, dst))
    if src.is_floating() and dst.is_floating():
        if fp_downcast_rounding == "rtz" and not (src.is_fp64() and dst.is_fp32()):
            return Tensor(_round_toward_zero(v, dst), dst)
        return Tensor(D.to_register(dst, v), dst)
    if src.is_int() and dst.is_int():
        if dst.is_bool():
            return Tensor(v != 0, dst)
        return Tensor(v.astype(dst.reg), dst)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return Tensor(v != 0, dst)
        return Tensor(_float_to_int(v, dst), dst)
    if src.is_int() and dst.is_floating():
        if src.is_bool():
            v = v.astype(np.float64)
        elif src.int_signedness:
            v = v.astype(np.int64)
        return Tensor(D.to_register(dst, v.astype(np.float64) if dst.is_bf16() else v), dst)
    raise CompileError("cannot cast %r to %r" % (src, dst))


def subscript(x, idx):
    """x[None, :] and friends: only None and full slices, as Triton allows."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    out, src = [], 0
    for s in idx:
        if s is None:
            out.append(None)
        elif isinstance(s, slice) and s.start is None and s.stop is None and s.step is None:
            out.append(slice(None))
            src += 1
        else:
            raise CompileError("unsupported tensor index: %r (only None and ':' are allowed)"
                               % (s,))
    if src > x.data.ndim:
        raise CompileError("too many indices for a tensor of shape %s" % x.shape)
    return Tensor(x.data[tuple(out)], x.dtype)
