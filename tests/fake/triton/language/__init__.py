"""triton.language, faked: names a kernel body uses (never executed here)."""


class constexpr:
    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return "constexpr[%r]" % (self.value,)


class dtype:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "triton.language." + self.name


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")


def _builtin(name):
    def f(*args, **kwargs):
        raise RuntimeError("triton.language.%s called outside a kernel (fake triton)" % name)
    f.__name__ = name
    f.__triton_builtin__ = True
    return f


for _n in ("program_id", "num_programs", "arange", "load", "store", "dot", "zeros", "full", "sum",
           "max", "min", "where", "exp", "exp2", "log", "sqrt", "maximum", "minimum", "atomic_add",
           "make_block_ptr", "make_tensor_descriptor", "advance", "static_assert", "device_assert",
           "fake_mlir_error", "fake_ptxas_error", "cdiv", "reshape", "trans", "cast", "multiple_of",
           "max_contiguous", "range", "static_range", "fma", "abs", "sigmoid", "softmax", "cumsum",
           "broadcast_to", "expand_dims", "split", "join", "permute", "sort", "argmax", "argmin"):
    globals()[_n] = _builtin(_n)
del _n
