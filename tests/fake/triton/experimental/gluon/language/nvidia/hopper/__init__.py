"""triton.experimental.gluon.language.nvidia.hopper, faked: tma and mbarrier
as namespaces of builtins; tma.make_tensor_descriptor (a device-side
descriptor) makes the fake build ask for global scratch, as Triton's does."""
import types

from ......language import _builtin

tma = types.SimpleNamespace(**{n: _builtin(n) for n in (
    "make_tensor_descriptor", "async_copy_global_to_shared", "async_copy_shared_to_global",
    "store_wait")})
mbarrier = types.SimpleNamespace(**{n: _builtin(n) for n in (
    "allocate_mbarrier", "init", "expect", "wait", "arrive", "invalidate")})

for _n in ("warpgroup_mma", "warpgroup_mma_wait", "fence_async_shared"):
    globals()[_n] = _builtin(_n)
del _n
