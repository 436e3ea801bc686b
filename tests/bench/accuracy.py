"""accuracy.py - an independent measurement of a kernel the judge timed.

Runs the same CUDA source with CuPy (its own NVRTC build, its own launch) on
the same size, timed with CUDA events around each launch after a 256 MiB L2
flush, and also measures PyTorch's device-to-device copy bandwidth the way the
judge's calibration does (bytes read + written). Prints one JSON object.

usage: python3 tests/bench/accuracy.py SOURCE.cu KERNEL N BLOCK
"""
import json
import statistics
import sys

import cupy as cp
import torch


def time_events(fn, flush, reps=100, warmup=10):
    for _ in range(warmup):
        fn()
    times = []
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for i in range(reps):
        flush.fill(i & 0xFF)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(times), min(times)


def main():
    src_path, kernel, n, block = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    src = open(src_path).read()
    module = cp.RawModule(code=src, options=("-std=c++17", "--gpu-architecture=sm_90a"))
    fn = module.get_function(kernel)
    x = cp.random.uniform(-1000, 1000, n, dtype=cp.float32)
    y = cp.random.uniform(-1000, 1000, n, dtype=cp.float32)
    out = cp.empty(n, dtype=cp.float32)
    flush = cp.empty(256 << 20, dtype=cp.uint8)
    grid = (n + block - 1) // block
    median_ms, min_ms = time_events(
        lambda: fn((grid,), (block,), (x, y, out, cp.int64(n))), flush)
    assert cp.array_equal(out, x + y), "independent run computed a wrong sum"

    # PyTorch copy bandwidth: 2 GiB copied, bytes read + written.
    a = torch.empty(1 << 31, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    copies = []
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for i in range(25):
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        if i >= 5:
            copies.append(s.elapsed_time(e))
    copy_ms = statistics.median(copies)
    print(json.dumps({
        "kernel_median_ms": median_ms, "kernel_min_ms": min_ms,
        "torch_copy_gbps": 2 * a.numel() / (copy_ms * 1e-3) / 1e9,
        "gpu": torch.cuda.get_device_name(0),
    }))


if __name__ == "__main__":
    main()
