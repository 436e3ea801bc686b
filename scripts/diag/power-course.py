"""power-course.py - how one PyTorch call's time moves from the moment the GPU starts working.

A diagnosis for the PyTorch agreement (tests/gpu/baseline.sh): the judged figure and the
independent torch_time of the same call differ by up to 17% on some matmul and attention shapes,
in both directions. Both are medians of 10-20 event-timed calls after a warm-up, so the question
is what the GPU's clock does in the first second of work. For each chosen shape, in one process:
  rest-fill   3 s idle, then 1.5 s of calls, each after a 256 MiB write of a changing word (the
              judge's L2 flush), every call's start time and duration kept
  hot-fill    the same at once again (the GPU hot from the last 1.5 s)
  rest-zero   3 s idle, then the same with torch_time's flush (zero_)
and prints, per variant, the median call time in windows of time since the first call, the
judge-like figure (warm-up W ms, then the median of 10) and the torch_time-like one (100 ms,
then the median of 20). nvidia-smi logs the SM clock, power and throttle reasons every 20 ms
beside it (its log on stdout's end, with each variant's wall-clock start).
  python3 scripts/diag/power-course.py PROBLEM:SHAPE_NAME...
"""
import importlib.util
import subprocess
import sys
import time

import torch

WINDOWS = [(0, 10), (10, 20), (20, 50), (50, 100), (100, 150), (150, 300), (300, 700),
           (700, 1500)]
_ts = importlib.util.spec_from_file_location("triton_speed", "scripts/triton-speed.py")
triton_speed = importlib.util.module_from_spec(_ts)
_ts.loader.exec_module(triton_speed)


def course(fn, flush, zero, seconds=1.5):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out, i = [], 0
    while time.perf_counter() - t0 < seconds:
        if zero:
            flush.zero_()
        else:
            word = (0x9E3779B9 * (i + 2)) & 0xFFFFFFFF
            flush.fill_(word - (1 << 32) if word >= (1 << 31) else word)
        start = (time.perf_counter() - t0) * 1000
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append((start, a.elapsed_time(b)))
        i += 1
    return out


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def summary(label, calls):
    cells = []
    for lo, hi in WINDOWS:
        xs = [ms for t, ms in calls if lo <= t < hi]
        cells.append(f"{lo}-{hi}:{med(xs):.4f}({len(xs)})")
    after = lambda w, n: med([ms for t, ms in calls if t >= w][:n])
    print(f"  {label:10s} judge-like(100ms,10) {after(100, 10):.4f}  judge-like(20ms,10) "
          f"{after(20, 10):.4f}  torch_time-like(100ms,20) {after(100, 20):.4f}  "
          f"sustained(500ms,10) {after(500, 10):.4f}  calls {len(calls)}")
    print("    " + "  ".join(cells))


def main():
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,"
                            "temperature.gpu,clocks_event_reasons.active", "--format=csv,noheader",
                            "-lms", "20"], stdout=subprocess.PIPE, text=True)
    flush = torch.empty(256 << 18, dtype=torch.int32, device="cuda")
    marks = []
    for arg in sys.argv[1:]:
        d, shape_name = arg.split(":", 1)
        fn, _ = triton_speed.baseline_call(d, shape_name, torch)
        fn()
        torch.cuda.synchronize()
        print(f"{d} {shape_name}")
        for label, rest, zero in (("rest-fill", 3, False), ("hot-fill", 0, False),
                                  ("rest-zero", 3, True)):
            time.sleep(rest)
            marks.append(f"{time.strftime('%H:%M:%S')}.{int(time.time() * 1000) % 1000:03d} "
                         f"{d} {shape_name} {label}")
            summary(label, course(fn, flush, zero))
        sys.stdout.flush()
        fn = None
        torch.cuda.empty_cache()
    time.sleep(0.2)
    smi.terminate()
    log = smi.communicate()[0]
    print("=== variant starts (wall clock)")
    print("\n".join(marks))
    print("=== nvidia-smi every 20 ms")
    print(log)


if __name__ == "__main__":
    main()
