#!/usr/bin/env python3
"""run.py - judge a problem's controls on the CPU, through the CUDA emulator.

    tests/cuemu/run.py PROBLEM_DIR [FILE.cu ...] [--cases REGEX] [--config REGEX]
                       [--max-elems N] [--max-work N] [--all] [--seed S] [--bench] [-v]

For each control file (default: every file problem.json's "controls" names),
this compiles the file with tests/cuemu/emu.h in front (one build per @tune
combination, with @const and @tune values as -D macros, as the judge does),
evaluates its @launch and @scratch directives for each test case, runs
reference.cu and the file on the same inputs with guard bands, poisoned
outputs and zeroed scratch buffers, and judges the outputs with the problem's
tolerances: Runtime Error (emulator error or crash), Memory Violation (a guard
band written), Input Modified, Wrong Answer or Accepted, stopping at the first
failing case (--all: judge every case). It then compares the verdict with the
one problem.json declares, and ends with "N passed, N failed, N skipped"
(one test per control file; a file with @tune lines gets the verdict of its
first failing configuration, as in the judge).

This is a development aid, not the judge: inputs come from Python's RNG with
the problems' distributions (not the judge's Philox streams), cases larger
than --max-elems tensor elements or --max-work (the product of the case's
sizes named in --work-sizes, default all sizes) are skipped, and @flags are
ignored. Like the judge, the reference receives inout tensors as unrounded
fp64 values.
"""
import argparse
import ast
import hashlib
import itertools
import json
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(tempfile.gettempdir(), "bw-cuemu-cache")

DTYPES = {  # struct code, bytes
    "fp16": ("e", 2), "fp32": ("f", 4), "fp64": ("d", 8),
    "int8": ("b", 1), "uint8": ("B", 1), "int32": ("i", 4), "uint32": ("I", 4),
    "int64": ("q", 8), "uint64": ("Q", 8),
}
FLOATS = {"fp16", "fp32", "fp64"}
DEFAULT_TOL = {"fp64": (1e-7, 1e-7), "fp32": (1e-5, 1.3e-6), "fp16": (1e-5, 1e-3)}
CODES = {"AC": "Accepted", "WA": "Wrong Answer", "MV": "Memory Violation",
         "IM": "Input Modified", "RE": "Runtime Error", "CE": "Compile Error",
         "TLE": "Time Limit"}


# ---- expressions ---------------------------------------------------------

def evaluate(expr, env, real=False):
    """The judge's expression language: + - * / % cdiv min max, names."""
    if isinstance(expr, (int, float)):
        return expr
    tree = ast.parse(str(expr).strip(), mode="eval")

    def tdiv(a, b):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q

    def f(n):
        if isinstance(n, ast.Expression):
            return f(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -f(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = f(n.left), f(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, ast.Div):
                return a / b if real else tdiv(a, b)
            if isinstance(n.op, ast.Mod):
                return a - b * tdiv(a, b)
        if isinstance(n, ast.Call):
            args = [f(x) for x in n.args]
            if n.func.id == "cdiv":
                return -(-args[0] // args[1])
            if n.func.id == "min":
                return min(args)
            if n.func.id == "max":
                return max(args)
        raise ValueError(f"cannot evaluate {expr!r}")
    return f(tree)


# ---- directives ----------------------------------------------------------

def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def launch_fields(text):
    fields, i = {}, 0
    while i < len(text):
        m = re.match(r"\s*([a-z]+)\s*=\s*", text[i:])
        if not m:
            break
        key = m.group(1)
        i += m.end()
        if text[i] == "(":
            depth, j = 0, i
            while True:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            fields[key] = text[i + 1:j]
            i = j + 1
        else:
            m = re.match(r"\S+", text[i:])
            fields[key] = m.group(0)
            i += m.end()
    return fields


def directives(source):
    d = {"const": {}, "tune": [], "launch": [], "scratch": []}
    for line in source.splitlines():
        m = re.match(r"\s*//\s*@(\w+)\s*(.*)$", line)
        if not m:
            continue
        kind, rest = m.group(1), m.group(2).strip()
        if kind == "const":
            name, val = rest.split("=")
            d["const"][name.strip()] = int(val)
        elif kind == "tune":
            name, vals = rest.split("=", 1)
            d["tune"].append((name.strip(), [int(v) for v in split_top(vals.strip()[1:-1])]))
        elif kind == "launch":
            kernel, fields = rest.split(None, 1)
            f = launch_fields(fields)
            d["launch"].append({
                "kernel": kernel, "grid": split_top(f["grid"]), "block": split_top(f["block"]),
                "smem": f.get("smem", "0"),
                "args": split_top(f["args"]) if f["args"].strip() else []})
        elif kind == "scratch":
            m2 = re.match(r"(\w+)\s+(\w+)\[(.*)\]$", rest)
            d["scratch"].append((m2.group(1), m2.group(2), m2.group(3)))
    return d


# ---- building ------------------------------------------------------------

def preprocess(source):
    out, cutting = [], False
    for line in source.splitlines():
        if "---- PTX wrappers" in line:
            cutting = True
        if cutting:
            out.append("")
            if "---- end of PTX wrappers" in line:
                cutting = False
            continue
        if re.match(r"\s*#\s*include\s*<(cuda_fp16\.h|cuda_bf16\.h|mma\.h|cuda_pipeline\.h)>", line):
            out.append("")
            continue
        line = re.sub(
            r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?([\w\s]+?)\s+(\w+)\s*\[\s*\]\s*;",
            r"\1 *\2 = reinterpret_cast<\1 *>(emu_dyn_smem());", line)
        out.append(line)
    return "\n".join(out) + "\n"


def build(path, source, d, defines):
    kernels = sorted({ln["kernel"] for ln in d["launch"]})
    body = ['#include "emu.h"', f'#line 1 "{path}"', preprocess(source)]
    body.append("struct emu_kernel_entry { const char *name; int arity; "
                "void (*run)(const std::vector<emu_arg> &); };")
    body.append("static const emu_kernel_entry emu_kernels[] = {")
    for k in kernels:
        body.append(f'    {{"{k}", emu_arity(&{k}), [](const std::vector<emu_arg> &a) '
                    f'{{ emu_call(&{k}, a); }}}},')
    body.append("};")
    body.append('#include "emu_main.h"')
    text = "\n".join(body)
    flags = [f"-D{k}={v}" for k, v in defines.items()]
    key = hashlib.sha256((text + " ".join(flags) + open(os.path.join(HERE, "emu.h")).read() +
                          open(os.path.join(HERE, "emu_main.h")).read()).encode()).hexdigest()[:20]
    os.makedirs(CACHE, exist_ok=True)
    exe = os.path.join(CACHE, key)
    if os.path.exists(exe):
        return exe, None
    cpp = exe + ".cpp"
    with open(cpp, "w") as f:
        f.write(text)
    cmd = ["g++", "-std=c++20", "-O2", "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=0",
           "-fno-strict-aliasing", "-ffp-contract=off", "-w", "-I", HERE] + flags + \
          ["-o", exe + ".tmp", cpp]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr[-4000:]
    os.rename(exe + ".tmp", exe)
    return exe, None


# ---- inputs --------------------------------------------------------------

def special(v):
    return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(v, v) \
        if isinstance(v, str) else float(v)


def gen_values(spec, count, row_len, rng, env):
    dist = spec["dist"]
    if dist == "uniform":
        lo, hi = spec["lo"], spec["hi"]
        vals = [lo + (hi - lo) * rng.random() for _ in range(count)]
    elif dist == "normal":
        vals = [rng.gauss(spec["mean"], spec["std"]) for _ in range(count)]
    elif dist == "loguniform":
        a, b = math.log(spec["lo"]), math.log(spec["hi"])
        vals = [math.exp(a + (b - a) * rng.random()) for _ in range(count)]
        if spec.get("signed"):
            vals = [v if rng.random() < 0.5 else -v for v in vals]
    elif dist == "const":
        vals = [special(spec["value"])] * count
    elif dist == "randint":
        lo, hi = evaluate(spec["lo"], env), evaluate(spec["hi"], env)
        vals = [rng.randint(lo, hi) for _ in range(count)]
    else:
        raise ValueError(dist)
    if "row_offset" in spec:
        lo, hi = spec["row_offset"]["lo"], spec["row_offset"]["hi"]
        for r in range(0, count, row_len):
            off = lo + (hi - lo) * rng.random()
            for i in range(r, min(count, r + row_len)):
                vals[i] += off
    if "spike" in spec:
        for r in range(0, count, row_len):
            vals[r + rng.randrange(min(row_len, count - r))] = special(spec["spike"])
    for sp in spec.get("specials", []):
        v, frac = special(sp["value"]), sp["fraction"]
        for i in range(count):
            if rng.random() < frac:
                vals[i] = v
    return vals


def pack(dtype, vals):
    code, _ = DTYPES[dtype]
    if dtype == "fp16":  # struct's 'e' raises on overflow instead of giving inf
        vals = [v if abs(v) < 65520 or v != v else math.copysign(math.inf, v) for v in vals]
    return struct.pack(f"<{len(vals)}{code}", *vals)


def unpack(dtype, data):
    code, size = DTYPES[dtype]
    return list(struct.unpack(f"<{len(data) // size}{code}", data))


# ---- one case ------------------------------------------------------------

def case_list(problem, what="tests"):
    """Expands problem.json's tests into (name, sizes, scalars, profile)."""
    names = problem["sizes"]
    out = []
    for entry in problem[what]:
        sizes = entry["sizes"]
        if isinstance(sizes, dict):
            keys = list(sizes.keys())
            lists = [v if isinstance(v, list) else [v] for v in sizes.values()]
            combos = [dict(zip(keys, c)) for c in itertools.product(*lists)]
        else:
            combos = sizes
        for c in combos:
            label = ",".join(f"{k}={c[k]}" for k in (sizes.keys() if isinstance(sizes, dict)
                                                     else c.keys()))
            name = entry.get("name")
            if name and len(combos) > 1:
                name = f"{name} {label}"
            out.append((name or label, {k: c[k] for k in names}, entry.get("scalars", {}),
                        entry["data"]))
    return out


class Runner:
    def __init__(self, problem, args):
        self.p = problem
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="bw-cuemu-")

    def scalar_values(self, case_scalars):
        vals = {}
        for s in self.p.get("scalars", []):
            vals[s["name"]] = case_scalars.get(s["name"], s["value"])
        return vals

    def inputs(self, index, sizes, profile):
        """name -> list of doubles (before rounding to the tensor's dtype)."""
        prof = self.p["data"][profile]
        vals = {}
        order = sorted(prof.items(), key=lambda kv: kv[1]["dist"] == "neg")
        for name, spec in order:
            t = next(t for t in self.p["tensors"] if t["name"] == name)
            shape = [evaluate(e, sizes) for e in t["shape"]]
            count = math.prod(shape)
            if spec["dist"] == "neg":
                vals[name] = [-v for v in vals[spec["of"]]]
                continue
            tindex = self.p["tensors"].index(t)
            rng = random.Random(self.args.seed * 1000003 + index * 131 + tindex)
            vals[name] = gen_values(spec, count, shape[-1], rng, sizes)
        return vals

    def plan(self, d, defines, sizes, scalars, inputs, side, index):
        """Writes the plan file for one side; returns (plan path, buffers, out path)."""
        env = dict(sizes)
        env.update(defines)
        bufs = []
        for t in self.p["tensors"]:
            shape = [evaluate(e, sizes) for e in t["shape"]]
            count = math.prod(shape)
            dtype, role = t["dtype"], t["role"]
            if side == "ref" and role != "in":
                dtype = "fp64" if dtype in FLOATS else "int64"
            path = "-"
            if role == "out":
                mode = "poison"
            else:
                mode = "file"
                path = os.path.join(self.tmp, f"{side}-{index}-{t['name']}.bin")
                with open(path, "wb") as f:
                    f.write(pack(dtype, inputs[t["name"]]))
            bufs.append({"name": t["name"], "dtype": dtype, "count": count, "mode": mode,
                         "path": path, "role": role, "tensor": t})
        if side == "ref":
            for t in self.p["tensors"]:
                if t["role"] != "in" and t.get("tolerance", {}).get("acc", 0) > 0:
                    count = math.prod(evaluate(e, sizes) for e in t["shape"])
                    bufs.append({"name": t["name"] + "_scale", "dtype": "fp64", "count": count,
                                 "mode": "poison", "path": "-", "role": "scale", "tensor": None})
        for name, dtype, count in d["scratch"]:
            bufs.append({"name": name, "dtype": dtype, "count": evaluate(count, env),
                         "mode": "zero", "path": "-", "role": "scratch", "tensor": None})
        index_of = {b["name"]: i for i, b in enumerate(bufs)}
        dtypes = {s["name"]: s["dtype"] for s in self.p.get("scalars", [])}
        lines = [f"buffers {len(bufs)}"]
        for b in bufs:
            lines.append(f"{b['name']} {DTYPES[b['dtype']][1]} {b['count']} {b['mode']} {b['path']}")
        lines.append(f"launches {len(d['launch'])}")
        for ln in d["launch"]:
            grid = [evaluate(e, env) for e in ln["grid"]] + [1, 1]
            block = [evaluate(e, env) for e in ln["block"]] + [1, 1]
            smem = evaluate(ln["smem"], env)
            toks = []
            for a in ln["args"]:
                if a in index_of:
                    toks.append(f"b:{index_of[a]}")
                elif a in sizes:
                    toks.append(f"i:{sizes[a]}")
                elif a in scalars:
                    v = scalars[a]
                    toks.append(f"f:{float(v)!r}" if dtypes[a] in ("fp32", "fp64") else f"i:{int(v)}")
                else:
                    toks.append(f"i:{int(a)}")
            if min(grid[:3]) < 1 or min(block[:3]) < 1:
                raise ValueError(f"empty launch {grid[:3]} {block[:3]}")
            lines.append(f"{ln['kernel']} {grid[0]} {grid[1]} {grid[2]} {block[0]} {block[1]} "
                         f"{block[2]} {smem} {len(toks)} " + " ".join(toks))
        out = os.path.join(self.tmp, f"{side}-{index}.out")
        lines.append(f"out {out}")
        plan = os.path.join(self.tmp, f"{side}-{index}.plan")
        with open(plan, "w") as f:
            f.write("\n".join(lines) + "\n")
        return plan, bufs, out

    def execute(self, exe, plan, bufs, out):
        try:
            r = subprocess.run([exe, plan], capture_output=True, text=True,
                               timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return None, "TLE", f"emulation exceeded {self.args.timeout} s"
        if r.returncode:
            msg = (r.stdout + r.stderr).strip().splitlines()
            return None, "RE", msg[-1] if msg else f"exit status {r.returncode}"
        data = open(out, "rb").read()
        res, pos = {}, 0
        for b in bufs:
            n = b["count"] * DTYPES[b["dtype"]][1]
            res[b["name"]] = (data[pos], data[pos + 1:pos + 1 + n])
            pos += 1 + n
        return res, None, None


def tolerance(t, sizes):
    tol = t.get("tolerance", {})
    if t["dtype"] not in FLOATS or tol.get("exact"):
        return None
    da, dr = DEFAULT_TOL[t["dtype"]]
    atol = evaluate(tol["atol"], sizes, real=True) if "atol" in tol else da
    rtol = evaluate(tol["rtol"], sizes, real=True) if "rtol" in tol else dr
    return atol, rtol, tol.get("acc", 0.0)


def round_to(dtype, v):
    if dtype == "fp64" or v != v or v in (math.inf, -math.inf):
        return v
    return unpack(dtype, pack(dtype, [v]))[0]


def compare(t, got_bytes, ref, scale, sizes):
    """(mismatch count, first few, worst |err|/bound among passing elements)."""
    dtype = t["dtype"]
    got = unpack(dtype, got_bytes)
    size = DTYPES[dtype][1]
    tol = tolerance(t, sizes)
    bad, shown, worst = 0, [], 0.0
    for i, (g, r) in enumerate(zip(got, ref)):
        ok = True
        poison = got_bytes[i * size:(i + 1) * size] == b"\xff" * size
        if dtype not in FLOATS:
            ok = g == r
        elif r != r:
            ok = g != g
        elif r in (math.inf, -math.inf):
            ok = g == r
        elif poison or g != g or g in (math.inf, -math.inf):
            ok = False
        elif tol is None:
            ok = g == round_to(dtype, r)
        else:
            atol, rtol, acc = tol
            bound = atol + rtol * abs(r) + (acc * scale[i] if acc else 0.0)
            err = abs(g - r)
            ok = err <= bound
            if ok and bound > 0:
                worst = max(worst, err / bound)
        if not ok:
            bad += 1
            if len(shown) < 3:
                shown.append(f"[{i}] got {g!r} want {r!r}" + (" (poison)" if poison else ""))
    return bad, shown, worst


def judge_file(runner, path, expected, cases):
    """Yields (config label, verdict, message, worst) for each @tune config."""
    source = open(path).read()
    d = directives(source)
    ref_src = open(os.path.join(runner.p["_dir"], "reference.cu")).read()
    rd = directives(ref_src)
    ref_exe, err = build(os.path.join(runner.p["_dir"], "reference.cu"), ref_src, rd, rd["const"])
    if err:
        yield "reference", "CE", err, 0
        return
    tunes = d["tune"] or [("", [None])]
    for combo in itertools.product(*[vals for _, vals in tunes]):
        defines = dict(d["const"])
        label = ",".join(f"{n}={v}" for (n, _), v in zip(tunes, combo) if n)
        for (n, _), v in zip(tunes, combo):
            if n:
                defines[n] = v
        if label and runner.args.config and not re.search(runner.args.config, label):
            continue
        exe, err = build(path, source, d, defines)
        if err:
            yield label, "CE", err, 0
            continue
        verdict, message, worst = "AC", "", 0.0
        for index, (name, sizes, case_scalars, profile) in cases:
            scalars = runner.scalar_values(case_scalars)
            inputs = runner.inputs(index, sizes, profile)
            rplan, rbufs, rout = runner.plan(rd, rd["const"], sizes, scalars, inputs, "ref", index)
            rres, rv, rmsg = runner.execute(ref_exe, rplan, rbufs, rout)
            if rv:
                yield label, "JE", f"reference on {name}: {rmsg}", 0
                return
            splan, sbufs, sout = runner.plan(d, defines, sizes, scalars, inputs, "sub", index)
            sres, sv, smsg = runner.execute(exe, splan, sbufs, sout)
            v, m, w = "AC", "", 0.0
            if sv:
                v, m = sv, smsg
            else:
                for b in sbufs:
                    if sres[b["name"]][0]:
                        v, m = "MV", f"guard {'before' if sres[b['name']][0] == 1 else 'after'} {b['name']} written"
                        break
                if v == "AC":
                    for b in sbufs:
                        if b["role"] == "in" and sres[b["name"]][1] != open(b["path"], "rb").read():
                            v, m = "IM", f"input {b['name']} changed"
                            break
                if v == "AC":
                    for b in sbufs:
                        t = b["tensor"]
                        if t is None or t["role"] == "in":
                            continue
                        rt = next(x for x in rbufs if x["name"] == t["name"])
                        ref = unpack(rt["dtype"], rres[t["name"]][1])
                        scale = None
                        if t["name"] + "_scale" in rres:
                            scale = unpack("fp64", rres[t["name"] + "_scale"][1])
                        bad, shown, worst_t = compare(t, sres[t["name"]][1], ref, scale, sizes)
                        w = max(w, worst_t)
                        if bad:
                            v, m = "WA", f"{t['name']}: {bad} of {len(ref)} differ: " + "; ".join(shown)
                            break
            if runner.args.verbose:
                print(f"    {label or '-'} {name}: {v} {m} (worst {w:.3g} of the bound)", flush=True)
            worst = max(worst, w)
            if v != "AC" and verdict == "AC":
                verdict, message = v, f"{name}: {m}"
                if not runner.args.all:
                    break
        yield label, verdict, message, worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--cases", default="")
    ap.add_argument("--max-elems", type=float, default=4e6)
    ap.add_argument("--max-work", type=float, default=3e9)
    ap.add_argument("--work-sizes", default="")
    ap.add_argument("--config", default="", help="only @tune configurations matching this")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--bench", action="store_true", help="use the benchmark shapes instead")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    problem = json.load(open(os.path.join(args.problem, "problem.json")))
    problem["_dir"] = args.problem
    runner = Runner(problem, args)
    cases = []
    work_names = args.work_sizes.split(",") if args.work_sizes else problem["sizes"]
    skipped_cases = []
    for index, c in enumerate(case_list(problem, "benchmarks" if args.bench else "tests")):
        name, sizes, _, _ = c
        elems = sum(math.prod(evaluate(e, sizes) for e in t["shape"]) for t in problem["tensors"])
        work = math.prod(sizes[n] for n in work_names)
        if not re.search(args.cases, name) or elems > args.max_elems or work > args.max_work:
            skipped_cases.append(name)
            continue
        cases.append((index, c))
    if skipped_cases:
        print(f"cases skipped (size or --cases): {', '.join(skipped_cases)}")
    files = args.files or list(problem["controls"].keys())
    passed = failed = skipped = 0
    for f in files:
        rel = os.path.relpath(f, args.problem) if os.path.exists(f) else f
        path = os.path.join(args.problem, rel)
        expected = problem["controls"].get(rel, "?")
        # The judge's verdict for a file is its first failing configuration's;
        # each configuration is listed, the file counts once.
        verdict, message, worst, labels = "AC", "", 0.0, []
        for label, v, m, w in judge_file(runner, path, expected, cases):
            labels.append(label)
            worst = max(worst, w)
            if runner.args.verbose or (label and v != "AC"):
                print(f"     [{label or '-'}] {CODES.get(v, v)} {m}", flush=True)
            if v != "AC" and verdict == "AC":
                verdict, message = v, (f"[{label}] " if label else "") + m
        got = CODES.get(verdict, verdict)
        ok = got.lower() == expected.lower() or verdict.lower() == expected.lower()
        configs = f" ({len(labels)} configurations)" if len(labels) > 1 else ""
        extra = f" (worst {worst:.3g} of the bound)" if verdict == "AC" else f"  {message}"
        print(f"{'ok  ' if ok else 'FAIL'} {rel}{configs}: expected {expected}, got {got}{extra}",
              flush=True)
        if ok:
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
