"""placement-course.py - does one PyTorch call's time depend on where its tensors lie in memory?

A diagnosis for the PyTorch agreement (tests/gpu/baseline.sh): block-pointer-matmul's padded
8192^3 shapes were timed by the driver at 1.61 ms in one process and 1.80 ms in the next, on the
same GPU minutes apart, while torch_time of the same call stayed at 1.59 ms. The driver rotates
two input sets (two allocations); torch_time uses one. For each chosen shape, in one process,
this makes ALLOCS sets of inputs, each kept alive (so each lies elsewhere in device memory), and
times every set ROUNDS times, each after REST_S of idle, with torch_time (100 ms of warm-up,
median of 20 flushed calls). A time that follows the set across rounds, not the round, is the
tensors' placement; one that follows the round is the GPU's state (an H100, 2026-12-05: the
round; docs/operations.md, PyTorch's time, As measured).
  python3 scripts/diag/placement-course.py PROBLEM:SHAPE_NAME...
"""
import importlib.util
import sys
import time

import torch

ALLOCS, ROUNDS, REST_S = 5, 3, 1.0
_ts = importlib.util.spec_from_file_location("triton_speed", "scripts/triton-speed.py")
triton_speed = importlib.util.module_from_spec(_ts)
_ts.loader.exec_module(triton_speed)


def main():
    for arg in sys.argv[1:]:
        d, shape_name = arg.split(":", 1)
        sets = [triton_speed.baseline_call(d, shape_name, torch) for _ in range(ALLOCS)]
        times = [[] for _ in sets]
        for r in range(ROUNDS):
            for i, (fn, _) in enumerate(sets):
                time.sleep(REST_S)
                times[i].append(triton_speed.torch_time(fn, torch))
        print(f"=== {arg}")
        for i, (_, kw) in enumerate(sets):
            where = " ".join(f"{k}@{v.data_ptr() % (1 << 30) >> 21}" for k, v in kw.items()
                             if isinstance(v, torch.Tensor))
            print(f"set {i}: " + " ".join(f"{t:.4f}" for t in times[i]) +
                  f" ms (2 MiB page mod 1 GiB: {where})")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
