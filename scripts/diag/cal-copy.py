"""cal-copy.py - replays the runner's calibration copy through the driver API
with ctypes: 2 x 2 GiB cuMemAlloc, cuMemsetD32Async, cuMemcpyDtoDAsync, sync."""
import ctypes as C
cu = C.CDLL("libcuda.so.1")
def ck(name, *a):
    r = getattr(cu, name)(*a)
    print(f"{name}: {r}")
    return r
ck("cuInit", 0)
dev = C.c_int(); ck("cuDeviceGet", C.byref(dev), 0)
ctx = C.c_void_p(); ck("cuDevicePrimaryCtxRetain", C.byref(ctx), dev)
ck("cuCtxSetCurrent", ctx)
for size in (256 << 20, 2 << 30):
    a = C.c_uint64(); b = C.c_uint64()
    ck("cuMemAlloc_v2", C.byref(a), C.c_size_t(size)); ck("cuMemAlloc_v2", C.byref(b), C.c_size_t(size))
    ck("cuMemsetD32Async", a, C.c_uint(0x3F800000), C.c_size_t(size // 4), None)
    ck("cuMemcpyDtoDAsync_v2", b, a, C.c_size_t(size), None)
    ck("cuCtxSynchronize")
    ck("cuMemFree_v2", a); ck("cuMemFree_v2", b)
