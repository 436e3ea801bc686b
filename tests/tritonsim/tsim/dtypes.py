"""dtypes.py - Triton's scalar types, pointer and block types, and how values of each are held.

A value of a Triton type lives in a numpy array of its *register* dtype: the
numpy type of the same name, except bf16, which numpy lacks: a bf16 value is
held as a float32 that is exactly representable in bf16 (every operation on
bf16 rounds its result back with round_bf16), and a pointer, held as an int64
byte address (see memory.py). In memory, bf16 is its 16 bits (uint16).
"""
import numpy as np


class dtype:
    """A scalar type: tl.float32, tl.int32, ... (str() is Triton's short name, 'fp32')."""

    KIND_BOOL, KIND_INT, KIND_FLOAT = 0, 1, 2

    def __init__(self, name, long_name, bits, reg, mem, kind, signed=True, mantissa=0):
        self.name = name
        self.long_name = long_name
        self.primitive_bitwidth = bits
        self.reg = np.dtype(reg)
        self.mem = np.dtype(mem)
        self._kind = kind
        self.int_signedness = signed
        self.fp_mantissa_width = mantissa

    # Triton's predicates, as kernels and the semantics below use them
    def is_ptr(self):
        return False

    def is_block(self):
        return False

    def is_floating(self):
        return self._kind == dtype.KIND_FLOAT

    def is_int(self):
        return self._kind in (dtype.KIND_INT, dtype.KIND_BOOL)

    def is_bool(self):
        return self._kind == dtype.KIND_BOOL

    def is_int1(self):
        return self.is_bool()

    def is_int_signed(self):
        return self.is_int() and self.int_signedness and not self.is_bool()

    def is_int_unsigned(self):
        return self.is_int() and not self.int_signedness

    def is_fp16(self):
        return self.name == "fp16"

    def is_bf16(self):
        return self.name == "bf16"

    def is_fp32(self):
        return self.name == "fp32"

    def is_fp64(self):
        return self.name == "fp64"

    def is_fp8(self):
        return False

    def is_standard_floating(self):
        return self.is_floating()

    def kind(self):
        return self._kind

    @property
    def int_bitwidth(self):
        return self.primitive_bitwidth if self.is_int() else 0

    @property
    def scalar(self):
        return self

    @property
    def itemsize(self):
        return self.mem.itemsize

    def get_int_max_value(self):
        if self.is_bool():
            return 1
        if self.int_signedness:
            return 2 ** (self.primitive_bitwidth - 1) - 1
        return 2 ** self.primitive_bitwidth - 1

    def get_int_min_value(self):
        if self.is_bool():
            return 0
        return -(2 ** (self.primitive_bitwidth - 1)) if self.int_signedness else 0

    def __eq__(self, other):
        return isinstance(other, dtype) and not other.is_ptr() and other.name == self.name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.name)

    def __str__(self):
        return self.name

    def __repr__(self):
        return "triton.language." + self.long_name

    def __call__(self, value):
        raise TypeError("tl.%s is a type, not a function: write tl.full([], v, dtype=tl.%s) or "
                        "x.to(tl.%s)" % (self.long_name, self.long_name, self.long_name))


int1 = dtype("int1", "int1", 1, np.bool_, np.int8, dtype.KIND_BOOL, signed=False)
int8 = dtype("int8", "int8", 8, np.int8, np.int8, dtype.KIND_INT)
int16 = dtype("int16", "int16", 16, np.int16, np.int16, dtype.KIND_INT)
int32 = dtype("int32", "int32", 32, np.int32, np.int32, dtype.KIND_INT)
int64 = dtype("int64", "int64", 64, np.int64, np.int64, dtype.KIND_INT)
uint8 = dtype("uint8", "uint8", 8, np.uint8, np.uint8, dtype.KIND_INT, signed=False)
uint16 = dtype("uint16", "uint16", 16, np.uint16, np.uint16, dtype.KIND_INT, signed=False)
uint32 = dtype("uint32", "uint32", 32, np.uint32, np.uint32, dtype.KIND_INT, signed=False)
uint64 = dtype("uint64", "uint64", 64, np.uint64, np.uint64, dtype.KIND_INT, signed=False)
float16 = dtype("fp16", "float16", 16, np.float16, np.float16, dtype.KIND_FLOAT, mantissa=10)
bfloat16 = dtype("bf16", "bfloat16", 16, np.float32, np.uint16, dtype.KIND_FLOAT, mantissa=7)
float32 = dtype("fp32", "float32", 32, np.float32, np.float32, dtype.KIND_FLOAT, mantissa=23)
float64 = dtype("fp64", "float64", 64, np.float64, np.float64, dtype.KIND_FLOAT, mantissa=52)

SCALARS = [int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
           float32, float64]
BY_NAME = {t.name: t for t in SCALARS}
# The judge's dtype names (common/dtype.h) and Triton's signature names.
BY_NAME.update({"int8": int8, "uint8": uint8, "int32": int32, "uint32": uint32, "int64": int64,
                "uint64": uint64, "i1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64,
                "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64})


class pointer_type(dtype):
    """*T: an address of elements of T (held as an int64 byte address)."""

    def __init__(self, element_ty, address_space=1, const=False):
        if not isinstance(element_ty, dtype):
            raise TypeError("pointer_type needs a dtype, got %r" % (element_ty,))
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        super().__init__("*" + element_ty.name, "pointer<%s>" % element_ty.long_name, 64, np.int64,
                         np.int64, dtype.KIND_INT, signed=True)

    def is_ptr(self):
        return True

    def is_int(self):
        return False

    def is_floating(self):
        return False

    def is_int_signed(self):
        return False

    def is_int_unsigned(self):
        return False

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "pointer<%s>" % self.element_ty.long_name


class block_type:
    """The type of a block: element type and shape (x.type for a block tensor)."""

    def __init__(self, element_ty, shape):
        self.element_ty = element_ty
        self.shape = list(shape)
        self.numel = int(np.prod(self.shape)) if self.shape else 1

    @property
    def scalar(self):
        return self.element_ty

    def is_block(self):
        return True

    def is_ptr(self):
        return False

    def get_block_shapes(self):
        return self.shape

    def __eq__(self, other):
        return isinstance(other, block_type) and other.element_ty == self.element_ty and \
            other.shape == self.shape

    def __repr__(self):
        return "<%s, %s>" % (self.shape, self.element_ty)


class constexpr:
    """tl.constexpr: the annotation of compile-time parameters. Inside a simulated kernel a
    constexpr is its plain Python value, so tl.constexpr(v) is v itself."""

    def __new__(cls, value=None):
        while isinstance(value, constexpr):  # never: kept for symmetry with Triton
            value = value.value
        return value


def is_constexpr_annotation(ann):
    """True for a parameter annotated tl.constexpr (or 'tl.constexpr' under
    `from __future__ import annotations`)."""
    if ann is constexpr:
        return True
    return isinstance(ann, str) and ann.replace(" ", "").split(".")[-1] == "constexpr"


def round_bf16(x):
    """x (any float array) rounded to the nearest bf16, ties to even, as float32.

    One rounding from the exact value: the quantum of the result's binade
    (2^-133 for subnormals) divides x exactly, numpy's round is half-to-even,
    and a magnitude that rounds past bf16's largest finite value becomes inf."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        _, e = np.frexp(x)
        q = np.ldexp(1.0, np.maximum(e, -125) - 8)
        r = np.where(np.isfinite(x), np.round(x / q) * q, x)
        r = np.where(np.abs(r) > 3.3895313892515355e38, np.copysign(np.inf, r), r)
    return r.astype(np.float32)


def bf16_bits(x):
    """bf16 values held as float32 (exactly representable) -> their uint16 bits."""
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)
    # A NaN whose payload lies in the low half would read as inf: make it the canonical NaN
    # (0x7FFF, what cvt.rn.bf16.f32 gives); other NaNs keep their bits, as a 16-bit move does.
    lost = np.isnan(x) & ((bits & np.uint16(0x7F)) == 0)
    if lost.any():
        bits = np.where(lost, np.uint16(0x7FFF), bits)
    return bits


def bf16_from_bits(bits):
    """uint16 bits -> bf16 values held as float32."""
    b = np.ascontiguousarray(np.asarray(bits, dtype=np.uint16))
    return (b.astype(np.uint32) << 16).view(np.float32)


def to_register(t, values):
    """Any numbers -> the register array of type t, rounded (floats) or wrapped (integers) as a
    conversion to t does on the GPU."""
    v = np.asarray(values)
    if t.is_ptr():
        return v.astype(np.int64)
    if t.is_bf16():
        return round_bf16(v)
    if t.is_bool():
        return v.astype(np.bool_)
    with np.errstate(all="ignore"):
        return v.astype(t.reg)
