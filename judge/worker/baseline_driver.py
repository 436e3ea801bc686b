"""baseline_driver.py - PyTorch's time on a problem's benchmark shapes, measured the judge's way.

Trusted code, run by judged (judge/worker/baseline.c) with the Python that has PyTorch
($BLOCKWISE_PYTHON, else python3): `python3 -I /dev/fd/5`, this file embedded in judged and
handed over in a sealed memfd. It runs only a problem's own baseline.py (trusted, like
reference.cu): never a learner's code. judged bounds its wall time, CPU time and files, and this
driver caps the GPU memory PyTorch may take (torch.cuda.set_per_process_memory_fraction).

The conversation, one JSON object per line. judged writes to fd 3, the driver to fd 4; stdout
and stderr are kept (capped) for diagnosis.
  judged:  the request, one line:
           {"mode": "probe" | "measure" | "check", "problem_dir", "device": {"ordinal", "uuid"},
            "gpu_mem_bytes", "method": {sets, min_samples, max_samples, target_rse, budget_ms,
            warmup_ms, rest_ms, l2_flush_bytes, l2_flush_word},
            "shapes": [{"name", "sizes", "scalars", "tensors": [{"name", "dtype", "shape",
                       "role", "gen"}]}]                          (measure)
            "cases": [{"dir", "sizes", "scalars", "tensors": [{..., "file"}]}]}
                                            (check: the inputs of judged dump's cases, in files)
  driver:  {"ready": {"torch", "python", "device", "uuid"}} once PyTorch and the GPU are up and
           baseline.py is imported (probe: PyTorch and the GPU only), or {"fail": STEP, "error"};
           {"enter": "shared" | "exclusive"}, answered by judged's {"go": true, "rested_ms": R}
           once it holds the runner pool's GPU gate that way (R: how long the gate had been
           free before, the GPU's rest) (or {"stop": true}: the driver exits), and
           {"leave": true} when done with it: inputs are made holding it shared, as a test
           runs; the warm-up and the timed samples holding it exclusively, as a Submit's shape;
           {"shape": I, "samples_ms": [...], "stop": "rse"|"max"|"budget", "warmup_runs": N}
           or {"shape": I, "error": "..."};
           {"case": I, "written": [NAME, ...], "not_compared": {NAME: WHY}} or {"case": I,
           "error": "..."}: check mode writes each output as baseline-NAME.bin in the case;
           {"done": true} last.

The timing is the judge's (judge/runner/runner_bench.c, common/stats.c), with the judge's own
constants passed in: per shape, the inputs of `sets` input sets, then holding the gate
exclusively what is left of rest_ms of rest (judged says how long its GPU gate had been free
before; it waits up to a few seconds for that, and for its judgings to end), warm-up runs (at
least 3, for warmup_ms), then samples rotating the sets, each after a write of l2_flush_bytes
of l2_flush_word (zeros) flushing L2, timed with CUDA events around the baseline call, until
the median's relative standard error (1.2533 * IQR / 1.349 / sqrt(n) / median) is <=
target_rse after min_samples, or max_samples, or budget_ms of sampling.
The rest and the warm-up make the figure reproducible: on a power-capped GPU a large
tensor-core GEMM runs at its boost clock for its first 50-150 ms of work only, then at its
sustained clock, and a shape timed right after another one (or after another process's work)
ran up to 10% slower than the same shape timed from rest (H100 and H200,
scripts/diag/power-course.py). After 1 s of rest and 500 ms of warm-up (warmup_ms) every
shape is sampled at its sustained time from rest; a 100 ms warm-up sampled the swing between
boost and sustained, and two timings of one call were up to 15% apart. The warm-up runs the
timed loop, flush included.
Inputs come from torch's generator with the problem's distributions (uniform, normal,
loguniform, const, randint, neg, row offsets; spikes and specials are left out: they move no
time of PyTorch's); inout tensors are not restored between runs (PyTorch's in-place updates cost
the same on any values).
"""
import ctypes
import importlib.util
import json
import math
import os
import platform
import sys
import time
import traceback

MEDIAN_SE_FACTOR = 1.2533141373155002  # common/stats.c
NORMAL_IQR = 1.3489795003921634

requests = os.fdopen(3, "r", encoding="utf-8")
replies = os.fdopen(4, "w", encoding="utf-8", buffering=1)


def say(obj):
    replies.write(json.dumps(obj, allow_nan=False) + "\n")
    replies.flush()


def fail(step, error):
    say({"fail": step, "error": str(error)[-2000:]})
    sys.exit(1)


def gate(kind):
    """Holds the runner pool's GPU gate `kind` until leave(): judged answers when it does. Returns
    how long the GPU had rested before (ms: judged's gate was free that long; 0 when unknown)."""
    say({"enter": kind})
    line = requests.readline()
    reply = json.loads(line) if line else {}
    if reply.get("go") is not True:
        sys.exit(0)  # judged stops the measurement (shutting down)
    return float(reply.get("rested_ms") or 0)


def leave():
    say({"leave": True})


# ---- statistics: common/stats.c, line by line -------------------------------------------------

def quantile_sorted(s, q):
    n = len(s)
    if q <= 0:
        return s[0]
    if q >= 1:
        return s[-1]
    h = (n - 1) * q
    lo = int(math.floor(h))
    if lo >= n - 1:
        return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def rse_median(samples):
    s = sorted(samples)
    med = quantile_sorted(s, 0.5)
    spread = MEDIAN_SE_FACTOR * ((quantile_sorted(s, 0.75) - quantile_sorted(s, 0.25)) / NORMAL_IQR)
    spread /= math.sqrt(len(s))
    if spread == 0:
        return 0.0
    return spread / med if med > 0 else math.inf


def should_stop(samples, m, elapsed_ms):
    n = len(samples)
    if n < 1:
        return None
    if n >= m["min_samples"] and all(math.isfinite(x) and x >= 0 for x in samples) and \
            rse_median(samples) <= m["target_rse"]:
        return "rse"
    if n >= m["max_samples"]:
        return "max"
    if elapsed_ms >= m["budget_ms"]:
        return "budget"
    return None


# ---- tensors ----------------------------------------------------------------------------------

def torch_dtype(torch, name):
    table = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
             "fp64": torch.float64, "int8": torch.int8, "uint8": torch.uint8,
             "int32": torch.int32, "int64": torch.int64,
             "uint32": getattr(torch, "uint32", None), "uint64": getattr(torch, "uint64", None)}
    dt = table.get(name)
    if dt is None:
        raise ValueError(f"dtype {name} has no PyTorch equivalent here")
    return dt


def generate(torch, spec, made, device):
    """One input tensor drawn from its distribution (spec["gen"]); `made` holds the set's others."""
    dt = torch_dtype(torch, spec["dtype"])
    shape = spec["shape"]
    g = spec.get("gen") or {"kind": "uniform", "a": -1.0, "b": 1.0}
    if g.get("neg_of"):
        return -made[g["neg_of"]]
    kind = g["kind"]
    if kind == "randint":
        return torch.randint(int(g["ilo"]), int(g["ihi"]) + 1, shape, dtype=torch.int64,
                             device=device).to(dt)
    if kind == "const":
        return torch.full(shape, float(g["a"]), dtype=dt, device=device)
    work = dt if dt in (torch.float32, torch.float64) else torch.float32
    x = torch.empty(shape, dtype=work, device=device)
    if kind == "uniform":
        x.uniform_(float(g["a"]), float(g["b"]))
    elif kind == "normal":
        x.normal_(float(g["a"]), float(g["b"]))
    elif kind == "loguniform":
        x.uniform_(math.log(float(g["a"])), math.log(float(g["b"]))).exp_()
        if g.get("signed"):
            x *= torch.randint(0, 2, shape, device=device, dtype=torch.int8).to(work) * 2 - 1
    else:
        raise ValueError(f"distribution {kind} is not known to the baseline driver")
    if g.get("row_offset") and len(shape) >= 1:
        lo, hi = g["row_offset"]
        rows = x.numel() // shape[-1]
        x += torch.empty(rows, dtype=work, device=device).uniform_(lo, hi).reshape(
            list(shape[:-1]) + [1])
    return x.to(dt)


def kwargs_of(shape_or_case, tensors):
    kw = dict(shape_or_case["sizes"])
    for k, v in shape_or_case["scalars"].items():
        kw[k] = v
    kw.update(tensors)
    return kw


def outputs_of(spec_tensors):
    return [t["name"] for t in spec_tensors if t["role"] in ("out", "inout")]


def place(torch, returned, names, tensors):
    """Copies what baseline() returned into the output tensors (None: it wrote them itself)."""
    if returned is None:
        return
    if isinstance(returned, torch.Tensor):
        if len(names) != 1:
            raise ValueError(f"baseline() returned one tensor for {len(names)} outputs "
                             f"({', '.join(names)}): return a dict")
        returned = {names[0]: returned}
    elif isinstance(returned, (tuple, list)):
        if len(returned) != len(names):
            raise ValueError(f"baseline() returned {len(returned)} values for the outputs "
                             f"{', '.join(names)}")
        returned = dict(zip(names, returned))
    if not isinstance(returned, dict):
        raise ValueError(f"baseline() returned a {type(returned).__name__}: expected None, a "
                         "tensor, a tuple or a dict of the outputs")
    for name, value in returned.items():
        if name not in names:
            raise ValueError(f"baseline() returned {name!r}, which is not an output "
                             f"({', '.join(names)})")
        dest = tensors[name]
        if value.numel() != dest.numel():
            raise ValueError(f"baseline() returned {name} with {value.numel()} elements; the "
                             f"problem's has {dest.numel()}")
        if value.data_ptr() != dest.data_ptr():
            dest.copy_(value.reshape(dest.shape))


# ---- the modes ----------------------------------------------------------------------------------

def start(rq, need_baseline):
    try:
        import torch
    except Exception as e:  # noqa: BLE001 (whatever breaks the import is the reason)
        fail("import torch", f"{type(e).__name__}: {e}")
    try:
        if not torch.cuda.is_available():
            fail("cuda", "torch.cuda.is_available() is False (a CPU-only PyTorch, or no driver)")
        want = str(rq["device"].get("uuid") or "").lower().removeprefix("gpu-")
        index = int(rq["device"].get("ordinal", 0))
        for i in range(torch.cuda.device_count()):
            uuid = str(getattr(torch.cuda.get_device_properties(i), "uuid", "")).lower()
            if want and uuid.removeprefix("gpu-") == want:
                index = i
                break
        if index >= torch.cuda.device_count():
            fail("cuda", f"PyTorch sees {torch.cuda.device_count()} GPUs, not device {index}")
        torch.cuda.set_device(index)
        props = torch.cuda.get_device_properties(index)
        cap = int(rq.get("gpu_mem_bytes") or 0)
        if cap > 0:
            torch.cuda.set_per_process_memory_fraction(min(1.0, cap / props.total_memory), index)
        device = torch.device("cuda", index)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001
        fail("cuda", f"{type(e).__name__}: {e}")
    module = None
    sys.dont_write_bytecode = True  # no __pycache__ in the problem's directory (its bundle hash)
    if need_baseline:
        path = os.path.join(rq["problem_dir"], "baseline.py")
        try:
            spec = importlib.util.spec_from_file_location("baseline", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if not callable(getattr(module, "baseline", None)):
                raise ValueError("it defines no function baseline(**tensors_and_sizes)")
        except Exception as e:  # noqa: BLE001
            fail("baseline.py", f"{path}: {type(e).__name__}: {e}\n{traceback.format_exc()}")
    say({"ready": {"torch": torch.__version__, "python": platform.python_version(),
                   "device": props.name,
                   "uuid": "GPU-" + str(getattr(props, "uuid", "")).removeprefix("GPU-")}})
    return torch, device, module


def measure_shape(torch, device, module, shape, m):
    names = outputs_of(shape["tensors"])
    sets = []
    gate("shared")
    try:
        for _ in range(m["sets"]):
            made = {}
            for t in sorted(shape["tensors"], key=lambda t: bool((t.get("gen") or {}).get("neg_of"))):
                if t["role"] == "out":
                    made[t["name"]] = torch.empty(t["shape"], dtype=torch_dtype(torch, t["dtype"]),
                                                  device=device)
                else:
                    made[t["name"]] = generate(torch, t, made, device)
            sets.append(kwargs_of(shape, made))
        flush = torch.empty(max(1, m["l2_flush_bytes"] // 4), dtype=torch.int32, device=device)
        place(torch, module.baseline(**sets[0]), names, sets[0])  # it runs, and its outputs fit
        torch.cuda.synchronize(device)
    finally:
        leave()
    start_ev = torch.cuda.Event(enable_timing=True)
    end_ev = torch.cuda.Event(enable_timing=True)

    def once(r):
        flush.fill_(m["l2_flush_word"])
        start_ev.record()
        module.baseline(**sets[r])
        end_ev.record()
        end_ev.synchronize()
        return start_ev.elapsed_time(end_ev)

    rested_ms = gate("exclusive")
    try:
        # what is left of the rest, holding the gate: nothing else runs on the GPU
        time.sleep(max(0.0, m["rest_ms"] - rested_ms) / 1000)
        t0, w = time.monotonic(), 0
        while w < 3 or (time.monotonic() - t0) * 1000 < m["warmup_ms"]:
            once(w % m["sets"])
            w += 1
        samples, t0 = [], time.monotonic()
        while True:
            samples.append(once(len(samples) % m["sets"]))
            stop = should_stop(samples, m, (time.monotonic() - t0) * 1000)
            if stop:
                break
    finally:
        leave()
    return {"samples_ms": samples, "stop": stop, "warmup_runs": w}


def measure(rq):
    torch, device, module = start(rq, True)
    m = rq["method"]
    for i, shape in enumerate(rq["shapes"]):
        try:
            out = measure_shape(torch, device, module, shape, m)
            say(dict(shape=i, **out))
        except SystemExit:
            raise
        except Exception as e:  # noqa: BLE001 (a shape that fails is reported, the rest go on)
            say({"shape": i, "error": f"{type(e).__name__}: {e}"[:2000]})
        torch.cuda.empty_cache()


def read_tensor(torch, path, dtype, shape):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    return torch.frombuffer(data, dtype=torch_dtype(torch, dtype)).reshape(shape)


def write_tensor(torch, path, t):
    """The tensor's raw bytes (as the judge's files hold them), through numpy when PyTorch has
    it, else straight from the CPU copy's memory."""
    t = t.detach().contiguous().cpu().reshape(-1)
    with open(path, "wb") as f:
        try:
            f.write(t.view(torch.uint8).numpy().tobytes())
        except (ImportError, RuntimeError, TypeError):
            n = t.numel() * t.element_size()
            f.write(ctypes.string_at(t.data_ptr(), n) if n else b"")


def check(rq):
    torch, device, module = start(rq, True)
    not_compared = dict(getattr(module, "NOT_COMPARED", {}) or {})
    for i, case in enumerate(rq["cases"]):
        try:
            names = outputs_of(case["tensors"])
            gate("shared")
            try:
                tensors = {}
                for t in case["tensors"]:
                    if t["role"] == "out":
                        x = torch.empty(t["shape"], dtype=torch_dtype(torch, t["dtype"]),
                                        device=device)
                        x.view(torch.uint8).fill_(0xFF)  # the judge's poison
                        tensors[t["name"]] = x
                    else:
                        tensors[t["name"]] = read_tensor(torch, os.path.join(case["dir"], t["file"]),
                                                         t["dtype"], t["shape"]).to(device)
                place(torch, module.baseline(**kwargs_of(case, tensors)), names, tensors)
                torch.cuda.synchronize(device)
            finally:
                leave()
            for name in names:
                write_tensor(torch, os.path.join(case["dir"], f"baseline-{name}.bin"), tensors[name])
            say({"case": i, "written": names, "not_compared": not_compared})
        except SystemExit:
            raise
        except Exception as e:  # noqa: BLE001
            say({"case": i, "error": f"{type(e).__name__}: {e}"[:2000]})


def main():
    line = requests.readline()
    if not line:
        sys.exit(0)
    rq = json.loads(line)
    mode = rq.get("mode")
    if mode == "probe":
        start(rq, False)
    elif mode == "measure":
        measure(rq)
    elif mode == "check":
        check(rq)
    else:
        fail("request", f"unknown mode {mode!r}")
    say({"done": True})


if __name__ == "__main__":
    main()
