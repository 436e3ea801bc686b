"""A fake torch for the CPU suites (tests/cpu/baseline-fake.sh): the few calls of
judge/worker/baseline_driver.py and of a vector-add baseline.py, on Python lists, so that the
judge's PyTorch baseline path runs without PyTorch or a GPU. Tensors of at most 2^20 elements
hold values (fp32 and fp64 exactly, integers); larger ones only a shape. CUDA events measure
nothing: every call "takes" 0.25 ms (or the milliseconds in $HOME/fake-torch-ms: judged passes
HOME on, not other variables), so the judge's stop rule stops at its minimum count. Not a test of PyTorch: of what judged does around it."""
import math
import os
import random
import struct

__version__ = "0.0+fake"
_SMALL = 1 << 20
_ptr = [4096]


class dtype:
    def __init__(self, name, size, fmt):
        self.name, self.size, self.fmt = name, size, fmt

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", 4, "f")
float64 = dtype("float64", 8, "d")
float16 = dtype("float16", 2, "e")
bfloat16 = dtype("bfloat16", 2, None)
int8, uint8 = dtype("int8", 1, "b"), dtype("uint8", 1, "B")
int32, int64 = dtype("int32", 4, "i"), dtype("int64", 8, "q")
uint32, uint64 = dtype("uint32", 4, "I"), dtype("uint64", 8, "Q")


class device:
    def __init__(self, kind, index=0):
        self.type, self.index = kind, index


def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _shape(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(int(d) for d in args[0])
    return tuple(int(d) for d in args)


class _Bytes:
    def __init__(self, t):
        self.t = t

    def fill_(self, v):  # the judge's poison, 0xFF bytes: a NaN in every float
        self.t.data = [math.nan] * self.t.numel() if self.t.numel() <= _SMALL else None
        return self

    def numpy(self):
        return self

    def tobytes(self):
        t = self.t
        if t.data is None:
            raise RuntimeError("the fake tensor holds no values")
        return struct.pack(f"<{len(t.data)}{t.dtype.fmt}", *t.data)


class Tensor:
    def __init__(self, shape, dt=float32, data=None):
        self.shape, self.dtype, self.data = tuple(shape), dt, data
        _ptr[0] += 256
        self._ptr = _ptr[0]

    def numel(self):
        return _numel(self.shape)

    def element_size(self):
        return self.dtype.size

    def data_ptr(self):
        return self._ptr

    def _fill(self, fn):
        self.data = [fn() for _ in range(self.numel())] if self.numel() <= _SMALL else None
        return self

    def uniform_(self, a=0.0, b=1.0):
        return self._fill(lambda: random.uniform(a, b))

    def normal_(self, mean=0.0, std=1.0):
        return self._fill(lambda: random.gauss(mean, std))

    def exp_(self):
        if self.data is not None:
            self.data = [math.exp(x) for x in self.data]
        return self

    def fill_(self, v):
        return self._fill(lambda: v)

    def _map2(self, other, op):
        if isinstance(other, Tensor):
            data = None if self.data is None or other.data is None else \
                [op(a, b) for a, b in zip(self.data, other.data)]
        else:
            data = None if self.data is None else [op(a, other) for a in self.data]
        return Tensor(self.shape, self.dtype, data)

    def __add__(self, o):
        return self._map2(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._map2(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._map2(o, lambda a, b: a * b)

    __radd__, __rmul__ = __add__, __mul__

    def __iadd__(self, o):
        self.data = (self + o).data
        return self

    def __imul__(self, o):
        self.data = (self * o).data
        return self

    def __neg__(self):
        return Tensor(self.shape, self.dtype, None if self.data is None else [-a for a in self.data])

    def to(self, target):
        if isinstance(target, dtype) and target is not self.dtype:
            data = self.data
            if data is not None and target.fmt in ("b", "B", "i", "I", "q", "Q"):
                data = [int(x) for x in data]
            return Tensor(self.shape, target, data)
        return self

    def view(self, *args):
        if len(args) == 1 and isinstance(args[0], dtype):
            return _Bytes(self)
        return self.reshape(*args)

    def reshape(self, *args):
        shape = _shape(args)
        if shape == (-1,):
            shape = (self.numel(),)
        t = Tensor(shape, self.dtype, self.data)
        t._ptr = self._ptr
        return t

    def copy_(self, src):
        self.data = None if src.data is None else list(src.data)
        return self

    def detach(self):
        return self

    contiguous = cpu = detach


def empty(*shape, dtype=float32, device=None):
    return Tensor(_shape(shape), dtype)


def full(shape, value, dtype=float32, device=None):
    return Tensor(_shape([shape]), dtype).fill_(value)


def randint(lo, hi, shape, dtype=int64, device=None):
    return Tensor(_shape([shape]), dtype)._fill(lambda: random.randrange(lo, hi))


def frombuffer(buf, dtype=float32):
    n = len(buf) // dtype.size
    return Tensor((n,), dtype, list(struct.unpack(f"<{n}{dtype.fmt}", bytes(buf))))


class _Props:
    name = "Fake GPU"
    uuid = os.environ.get("FAKE_TORCH_UUID", "00000000-0000-0000-0000-000000000000")
    total_memory = 80 << 30


class _Event:
    def __init__(self, enable_timing=False):
        pass

    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        try:
            with open(os.path.join(os.environ.get("HOME", "/"), "fake-torch-ms")) as f:
                return float(f.read())
        except (OSError, ValueError):
            return 0.25


class cuda:
    Event = _Event

    @staticmethod
    def is_available():
        return os.environ.get("FAKE_TORCH_NO_CUDA") is None

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def get_device_properties(i):
        return _Props()

    @staticmethod
    def set_device(i):
        pass

    @staticmethod
    def set_per_process_memory_fraction(f, i=None):
        pass

    @staticmethod
    def synchronize(d=None):
        pass

    @staticmethod
    def empty_cache():
        pass
