"""run.py - the independent oracle: PyTorch recomputes every problem's test
cases from the inputs the judge generates and checks the problem's fp64
reference.cu against it, within the problem's own tolerance.

For each problems/<id> that has tests/oracle/problems/<id>.py, it runs
`judged dump` (inputs as generated from one seed, and reference.cu's outputs),
calls that module's compute(inputs, scalars, sizes) -> {output: tensor}, and
compares every element: NaN and +-inf must match in place and sign; finite
values must satisfy |oracle - ref| <= atol + rtol*|ref| + acc*S (exact
outputs: the reference rounded to the dtype must equal the oracle's value in
that dtype). Runs on the GPU machine (CUDA, PyTorch); prints a table and
exits non-zero when a problem disagrees.

usage: python3 tests/oracle/run.py BUILD [PROBLEM_ID ...]
"""
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

DTYPES = {
    "fp64": (np.float64, torch.float64), "fp32": (np.float32, torch.float32),
    "fp16": (np.float16, torch.float16), "bf16": (np.uint16, torch.bfloat16),
    "int8": (np.int8, torch.int8), "uint8": (np.uint8, torch.uint8),
    "int32": (np.int32, torch.int32), "int64": (np.int64, torch.int64),
    "uint32": (np.uint32, torch.int64), "uint64": (np.uint64, torch.int64),
}
DEFAULT_TOL = {  # torch.testing.assert_close's table, as problem/tolerance.c
    "fp32": (1e-5, 1.3e-6), "fp16": (1e-5, 1e-3), "bf16": (1e-5, 1.6e-2), "fp64": (1e-7, 1e-7),
}


def load_tensor(case_dir, t):
    np_dtype, torch_dtype = DTYPES[t["dtype"]]
    raw = np.fromfile(os.path.join(case_dir, t["file"]), dtype=np_dtype).reshape(t["shape"])
    x = torch.from_numpy(raw.astype(np.int64) if t["dtype"] in ("uint32", "uint64") else raw)
    if t["dtype"] == "bf16":
        x = x.view(torch.bfloat16)
    return x.cuda()


def evaluate(expr, sizes):
    if isinstance(expr, (int, float)):
        return float(expr)
    env = dict(sizes, cdiv=lambda a, b: -(-a // b), min=min, max=max)
    return float(eval(expr.replace("/", "/"), {"__builtins__": {}}, env))


def check_output(name, spec, got, ref, scale, sizes):
    """Returns (mismatches, checked, max_abs_err, first_bad)."""
    tol = spec.get("tolerance", {})
    ref = ref.double()
    if spec["dtype"] not in DEFAULT_TOL:  # integers: exact
        bad = got.to(torch.int64) != ref.to(torch.int64)
        return int(bad.sum()), ref.numel(), 0.0, bad.nonzero()[:1].tolist()
    got = got.double()
    if tol.get("exact"):
        target = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[spec["dtype"]]
        rounded = ref.to(target).double()
        both_nan = torch.isnan(rounded) & torch.isnan(got)
        bad = ~((rounded == got) | both_nan)
        err = (rounded - got).abs()
        err = err[torch.isfinite(err)]
        return int(bad.sum()), ref.numel(), float(err.max()) if err.numel() else 0.0, bad.nonzero()[:1].tolist()
    atol0, rtol0 = DEFAULT_TOL[spec["dtype"]]
    atol = evaluate(tol["atol"], sizes) if "atol" in tol else atol0
    rtol = evaluate(tol["rtol"], sizes) if "rtol" in tol else rtol0
    acc = float(tol.get("acc", 0.0))
    allowed = atol + rtol * ref.abs() + (acc * scale.double() if (acc > 0 and scale is not None) else 0.0)
    finite = torch.isfinite(ref)
    err = (got - ref).abs()
    ok_finite = finite & torch.isfinite(got) & (err <= allowed)
    ok_special = (~finite) & ((torch.isnan(ref) & torch.isnan(got)) | (ref == got))
    bad = ~(ok_finite | ok_special)
    fe = err[finite & torch.isfinite(got)]
    return int(bad.sum()), ref.numel(), float(fe.max()) if fe.numel() else 0.0, bad.nonzero()[:1].tolist()


def run_problem(build, pid):
    pdir = os.path.join("problems", pid)
    spec = json.load(open(os.path.join(pdir, "problem.json")))
    tensors = {t["name"]: t for t in spec["tensors"]}
    modpath = os.path.join("tests", "oracle", "problems", pid + ".py")
    mod_spec = importlib.util.spec_from_file_location("oracle_" + pid.replace("-", "_"), modpath)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([os.path.join(build, "bin", "judged"), "dump", pdir, tmp],
                             capture_output=True, text=True)
        if out.returncode != 0:
            return [(pid, "-", "dump failed: " + out.stderr.strip()[-300:], False)]
        for case in sorted(os.listdir(tmp)):
            cdir = os.path.join(tmp, case)
            meta = json.load(open(os.path.join(cdir, "case.json")))
            sizes = meta["sizes"]
            scalars = meta["scalars"]
            ins = {t["name"]: load_tensor(cdir, t) for t in meta["tensors"] if t["role"] in ("in", "inout")}
            refs = {t["name"]: load_tensor(cdir, t) for t in meta["tensors"] if t["role"] in ("out", "inout")}
            scales = {t["name"][:-6]: load_tensor(cdir, t) for t in meta["tensors"] if t["role"] == "scale"}
            # An inout tensor's dumped bytes are its input; the reference's output is not kept
            # separately, so the oracle checks outputs only ("out").
            with torch.no_grad():
                got = mod.compute({k: v.clone() for k, v in ins.items()}, scalars, sizes)
            ok = True
            notes = []
            for name, ref in refs.items():
                if tensors[name]["role"] != "out":
                    continue
                if name not in got:
                    ok = False
                    notes.append(f"{name}: oracle returned nothing")
                    continue
                bad, checked, maxerr, first = check_output(name, tensors[name], got[name].reshape(ref.shape), ref,
                                                           scales.get(name), sizes)
                notes.append(f"{name}: {bad}/{checked} bad, max err {maxerr:.3g}" + (f" first {first}" if bad else ""))
                ok &= bad == 0
            rows.append((pid, meta["name"], "; ".join(notes), ok))
    return rows


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    wanted = sys.argv[2:]
    ids = wanted or sorted(f[:-3] for f in os.listdir("tests/oracle/problems") if f.endswith(".py"))
    all_ok = True
    summary = []
    for pid in ids:
        rows = run_problem(build, pid)
        good = sum(1 for r in rows if r[3])
        for r in rows:
            if not r[3]:
                print(f"FAIL {r[0]} {r[1]}: {r[2]}")
        summary.append((pid, good, len(rows)))
        all_ok &= good == len(rows)
    print(f"{'problem':28s} {'cases agreeing':>15s}")
    for pid, good, n in summary:
        print(f"{pid:28s} {good:>7d} of {n:<5d} {'ok' if good == n and n else 'FAIL'}")
    agree = sum(1 for _, g, n in summary if g == n and n)
    print(f"{agree} of {len(summary)} problems agree with PyTorch")
    print(f"{agree} passed, {len(summary) - agree} failed, 0 skipped")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
