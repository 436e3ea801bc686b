"""cal-rlimit.py - the calibration copy under the runner's rlimits (NOFILE 256, FSIZE 32 GiB, CORE 0)."""
import ctypes as C, resource, sys
lim = sys.argv[1]
if lim in ("nofile", "all"): resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
if lim in ("fsize", "all"): resource.setrlimit(resource.RLIMIT_FSIZE, (32 << 30, 32 << 30))
if lim in ("core", "all"): resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
cu = C.CDLL("libcuda.so.1")
r = [cu.cuInit(0)]
dev = C.c_int(); cu.cuDeviceGet(C.byref(dev), 0)
ctx = C.c_void_p(); cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev); cu.cuCtxSetCurrent(ctx)
a = C.c_uint64(); b = C.c_uint64(); size = 2 << 30
r += [cu.cuMemAlloc_v2(C.byref(a), C.c_size_t(size)), cu.cuMemAlloc_v2(C.byref(b), C.c_size_t(size)),
      cu.cuMemsetD32Async(a, C.c_uint(0x3F800000), C.c_size_t(size // 4), None),
      cu.cuMemcpyDtoDAsync_v2(b, a, C.c_size_t(size), None), cu.cuCtxSynchronize()]
import os
print(lim, "results", r, "open fds", len(os.listdir("/proc/self/fd")))
