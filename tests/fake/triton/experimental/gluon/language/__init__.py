"""triton.experimental.gluon.language, faked: names a Gluon kernel body uses
(never executed here). warp_specialize is the one the fake compile() reads."""
from ....language import _builtin, constexpr, dtype, int32, int64, float16, bfloat16, float32  # noqa: F401

for _n in ("program_id", "num_programs", "arange", "load", "store", "full", "zeros", "sum", "max",
           "exp2", "where", "maximum", "convert_layout", "allocate_shared_memory",
           "warp_specialize", "static_range", "BlockedLayout", "SliceLayout",
           "NVMMASharedLayout", "thread_barrier", "static_assert"):
    globals()[_n] = _builtin(_n)
del _n
