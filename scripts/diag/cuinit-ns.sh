#!/usr/bin/env bash
# cuinit-ns.sh - which namespace set-ups let the CUDA driver initialise here.
py='import ctypes,sys; l=ctypes.CDLL("libcuda.so.1"); r=l.cuInit(0); n=ctypes.c_int(); l.cuDeviceGetCount(ctypes.byref(n)); print("cuInit", r, "devices", n.value)'
try() { printf '%-40s ' "$1"; shift; timeout 60 "$@" python3 -c "$py" 2>&1 | tail -1; }
try "plain"
try "user ns" unshare -U -r
try "user+net ns" unshare -U -r -n
try "user+mount ns" unshare -U -r -m
try "mount ns (root)" unshare -m
try "net ns (root)" unshare -n
try "mount+net ns (root)" unshare -m -n
try "user+mount, / ro" unshare -U -r -m sh -c 'mount -o remount,bind,ro / 2>&1; exec "$@"' sh
try "mount ns, / ro (root)" unshare -m sh -c 'mount -o remount,bind,ro / 2>&1; exec "$@"' sh
ls -la /dev/nvidia* /dev/shm | head -20
cat /proc/self/mountinfo | head -30
