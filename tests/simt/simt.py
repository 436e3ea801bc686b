#!/usr/bin/env python3
"""simt.py - judge a problem's controls on the CPU, through the SIMT emulator.

    tests/simt/simt.py [options] PROBLEM [FILE ...]

For each control file of problems/PROBLEM (default: every file problem.json's
"controls" names; or the FILEs given), this compiles the file and reference.cu
with tests/simt/simt.h in front, builds each test case's plan from the
directives (@const, the first value of each @tune, @scratch, @launch), runs the
reference and the file on the judge's own inputs (same generator, seed and case
index), and takes the first failing verdict as the judge does. It ends with
"N passed, N failed, N skipped" (one test per control file).

Options:
  --max-elems N   skip cases whose tensors hold more than N elements in all (default 3e6)
  --max-threads N skip cases that launch more than N threads in all (default 4e6)
  --case REGEX    only test cases whose name matches
  --seed S        the secret seed (default 1)
  --verbose       print every case's line
  SIMT_ROUNDED_REF=1 in the environment compares with the reference rounded to
  the output's dtype (docs/problem-format.md) instead of unrounded (compare.c).
  --all           run every case even after a failure (with --verbose: which cases fail)
  --tune NAME=V   choose a @tune value (repeatable)
  --extra SIZES:PROFILE  an extra case, e.g. M=256,K=131072:uniform (repeatable)

A development aid, not the judge: blocks run one after another on one CPU
thread, so it proves indexing, masking, barriers, warp collectives (shuffles,
ldmatrix, mma.sync) and arithmetic, not timing or inter-block races.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "simt")
BUILD = os.path.join(ROOT, "build", "simt")
CODES = {"AC": "Accepted", "WA": "Wrong Answer", "MV": "Memory Violation", "IM": "Input Modified",
         "RE": "Runtime Error", "CE": "Compile Error", "JE": "Judge Error", "TLE": "Time Limit"}
ALIASES = {"AC": "Accepted", "WA": "Wrong Answer", "MV": "Memory Violation", "IM": "Input Modified",
           "RE": "Runtime Error", "CE": "Compile Error", "TLE": "Time Limit"}
INT_DTYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64")


# ---------------------------------------------------------------- directives
def directives(src, tune_choice):
    consts, launches, scratch, tunes = {}, [], [], {}
    for line in src.splitlines():
        m = re.match(r"\s*//\s*@const\s+([A-Za-z_]\w*)\s*=\s*(-?\d+)", line)
        if m:
            consts[m.group(1)] = int(m.group(2))
        m = re.match(r"\s*//\s*@tune\s+([A-Za-z_]\w*)\s*=\s*\(([^)]*)\)", line)
        if m:
            vals = [int(v) for v in m.group(2).split(",")]
            tunes[m.group(1)] = tune_choice.get(m.group(1), vals[0])
        m = re.match(r"\s*//\s*@scratch\s+([A-Za-z_]\w*)\s+(\w+)\[(.*)\]\s*$", line)
        if m:
            scratch.append((m.group(1), m.group(2), m.group(3)))
        m = re.match(r"\s*//\s*@launch\s+([A-Za-z_]\w*)\s+(.*)$", line)
        if m:
            launches.append((m.group(1), parse_fields(m.group(2))))
    consts.update(tunes)
    return consts, launches, scratch


def parse_fields(text):
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
            m = re.match(r"[^\s]+", text[i:])
            fields[key] = m.group(0)
            i += m.end()
    return fields


def split_top(expr):
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip() != ""]


def ieval(expr, scope):
    if isinstance(expr, int):
        return expr
    py = str(expr).replace("/", "//")
    env = dict(scope)
    env.update(cdiv=lambda a, b: -(-a // b), min=min, max=max)
    return int(eval(py, {"__builtins__": {}}, env))  # noqa: S307 (trusted repository files)


def reval(expr, scope):
    if isinstance(expr, (int, float)):
        return float(expr)
    env = {k: float(v) for k, v in scope.items()}
    env.update(cdiv=lambda a, b: float(-(-int(a) // int(b))), min=min, max=max)
    return float(eval(str(expr), {"__builtins__": {}}, env))  # noqa: S307


# ------------------------------------------------------------------ rewriting
def rewrite(src):
    out = []
    for line in src.splitlines():
        if re.match(r"\s*#\s*include\s*<(cuda_fp16\.h|cuda_bf16\.h|mma\.h|cuda_pipeline\.h|cuda/.*|cuda_runtime\.h)>", line):
            out.append("// (simt) " + line)
            continue
        out.append(line)
    s = "\n".join(out) + "\n"

    def dyn(m):
        ty = re.sub(r"__align__\s*\(\s*\d+\s*\)", "", m.group(1)).strip()
        return "%s *%s = (%s *)simt_dyn_smem();" % (ty, m.group(2), ty)

    vec = r"float4|float2|int4|int2|uint4|uint2|double2|longlong2|__half2|half2|__nv_bfloat162|ushort4|short2|ushort2"
    s = re.sub(r"reinterpret_cast\s*<\s*((?:const\s+)?(?:%s)(?:\s+const)?)\s*\*\s*>" % vec, r"simt_vcast<\1>", s)
    s = re.sub(r"extern\s+__shared__\s+(.*?)\s*(\w+)\s*\[\s*\]\s*;", dyn, s)
    return rewrite_asm(s)


def rewrite_asm(s):
    res, i = [], 0
    while True:
        m = re.compile(r"\basm\b(\s+volatile\b|\s+__volatile__\b)?\s*\(").search(s, i)
        if not m:
            res.append(s[i:])
            break
        res.append(s[i:m.start()])
        j = m.end()
        depth, k, in_str = 1, j, False
        while depth:
            c = s[k]
            if in_str:
                if c == "\\":
                    k += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            k += 1
        body = s[j:k - 1]
        sections, cur, depth, in_str, p = [], "", 0, False, 0
        while p < len(body):
            c = body[p]
            if in_str:
                cur += c
                if c == "\\":
                    cur += body[p + 1]
                    p += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
                cur += c
            elif c in "([":
                depth += 1
                cur += c
            elif c in ")]":
                depth -= 1
                cur += c
            elif c == ":" and depth == 0:
                if p + 1 < len(body) and body[p + 1] == ":":
                    sections.append(cur)
                    cur = ""
                    p += 1
                sections.append(cur)
                cur = ""
            else:
                cur += c
            p += 1
        sections.append(cur)
        text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', sections[0]))

        def operands(sec):
            ops = []
            for part in split_top(sec):
                mm = re.match(r'\s*"([^"]*)"\s*\((.*)\)\s*$', part, re.S)
                if mm:
                    ops.append((mm.group(1), mm.group(2)))
            return ops

        outs = operands(sections[1]) if len(sections) > 1 else []
        ins = operands(sections[2]) if len(sections) > 2 else []
        call = 'simt_ptx("%s", {%s}, {%s})' % (
            text, ", ".join("simt_o(%s)" % e for _, e in outs), ", ".join("simt_i(%s)" % e for _, e in ins))
        res.append(call)
        i = k
    return "".join(res)


# ------------------------------------------------------------------ building
def build(path, src, consts, kernels):
    text = rewrite(src)
    table = "\nextern const simt_kernel simt_kernels[] = {\n"
    for k in sorted(set(kernels)):
        table += '    {"%s", [](const simt_launch &l) { simt_call(%s, l); }},\n' % (k, k)
    table += "};\nextern const int simt_n_kernels = %d;\n" % len(set(kernels))
    unit = text + table
    runtime = "".join(open(os.path.join(HERE, f)).read() for f in ("simt.h", "simt_rt.cpp", "simt_main.cpp"))
    key = hashlib.sha1((unit + json.dumps(consts, sort_keys=True) + runtime).encode()).hexdigest()[:16]
    os.makedirs(BUILD, exist_ok=True)
    binary = os.path.join(BUILD, "bin-" + key)
    if os.path.exists(binary):
        return binary, None
    cpp = os.path.join(BUILD, "unit-" + key + ".cpp")
    with open(cpp, "w") as f:
        f.write('#include "simt.h"\n#line 1 "%s"\n' % path)
        f.write(unit)
    rt = os.path.join(BUILD, "simt_rt.o")
    mainobj = os.path.join(BUILD, "simt_main.o")
    flags = ["-std=c++20", "-O2", "-march=native", "-ffp-contract=fast", "-fno-strict-aliasing", "-w",
             "-I", HERE, "-I", ROOT]
    for src_name, obj in (("simt_rt.cpp", rt), ("simt_main.cpp", mainobj)):
        srcp = os.path.join(HERE, src_name)
        deps = [srcp, os.path.join(HERE, "simt.h")]
        if not os.path.exists(obj) or any(os.path.getmtime(d) > os.path.getmtime(obj) for d in deps):
            # the generator must round like the judge's: no contraction into FMA
            extra = ["-ffp-contract=off"] if src_name == "simt_main.cpp" else []
            r = subprocess.run(["g++"] + flags + extra + ["-c", srcp, "-o", obj], capture_output=True, text=True)
            if r.returncode:
                sys.exit("cannot build %s:\n%s" % (src_name, r.stderr))
    cmd = ["g++"] + flags + ["-D%s=%d" % kv for kv in consts.items()] + [cpp, rt, mainobj, "-o", binary]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    return binary, None


# ------------------------------------------------------------------ cases
def expand(entries):
    for t in entries:
        sizes = t["sizes"]
        if isinstance(sizes, dict):
            combos = [{}]
            for name, vals in sizes.items():
                vals = vals if isinstance(vals, list) else [vals]
                combos = [dict(c, **{name: v}) for c in combos for v in vals]
        else:
            combos = sizes
        for c in combos:
            base = t.get("name")
            auto = ",".join("%s=%d" % kv for kv in c.items())
            if base is None:
                name = auto
            elif len(combos) > 1:
                name = "%s %s" % (base, auto)
            else:
                name = base
            yield name, c, t["data"], t.get("scalars", {})


def gen_line(problem, tname, profile, stream_of):
    spec = profile[tname]
    negate = False
    src_name = tname
    if spec["dist"] == "neg":
        negate = True
        src_name = spec["of"]
        spec = profile[src_name]
    d = spec["dist"]
    parts = ["gen", tname, str(stream_of[src_name]), d]

    def num(v):
        return repr(float(v)) if not isinstance(v, str) else v

    if d == "uniform":
        parts += ["a=" + num(spec["lo"]), "b=" + num(spec["hi"])]
    elif d == "normal":
        parts += ["a=" + num(spec["mean"]), "b=" + num(spec["std"])]
    elif d == "loguniform":
        parts += ["a=" + num(spec["lo"]), "b=" + num(spec["hi"])]
        if spec.get("signed"):
            parts.append("signed=1")
    elif d == "const":
        parts += ["a=" + num(spec["value"])]
    elif d == "randint":
        parts += ["ilo=%d" % spec["_lo"], "ihi=%d" % spec["_hi"]]
    if "row_offset" in spec:
        parts += ["row_lo=" + num(spec["row_offset"]["lo"]), "row_hi=" + num(spec["row_offset"]["hi"])]
    if "spike" in spec:
        parts.append("spike=" + num(spec["spike"]))
    for sp in spec.get("specials", []):
        parts.append("special=%s:%s" % (num(sp["value"]), repr(float(sp["fraction"]))))
    if negate:
        parts.append("negate=1")
    return " ".join(parts)


def case_file(problem, case_index, sizes, data, scal, plan, mode, refdir, seed):
    consts, launches, scratch = plan
    scope = dict(sizes)
    scope.update(consts)
    scalars = {s["name"]: s for s in problem.get("scalars", [])}
    values = {n: s["value"] for n, s in scalars.items()}
    values.update(scal)
    lines = ["mode " + mode, "refdir " + refdir, "seed %d %d" % (seed, case_index)]
    stream_of = {t["name"]: i for i, t in enumerate(problem["tensors"])}
    profile = json.loads(json.dumps(problem["data"][data]))
    total = 0
    for t in problem["tensors"]:
        shape = [ieval(e, sizes) for e in t["shape"]]
        count = 1
        for v in shape:
            count *= v
        total += count
        dtype = t["dtype"]
        role = t["role"]
        if mode == "ref" and role != "in":
            dtype = "int64" if dtype in INT_DTYPES else "fp64"
        lines.append("buffer %s %s %d %s %d" % (t["name"], dtype, count, role, shape[-1]))
        if role != "out":
            spec = profile[t["name"]]
            if spec["dist"] == "randint":
                spec["_lo"] = ieval(spec["lo"], sizes)
                spec["_hi"] = ieval(spec["hi"], sizes)
            if spec["dist"] == "neg":
                src = profile[spec["of"]]
                if src["dist"] == "randint":
                    src["_lo"] = ieval(src["lo"], sizes)
                    src["_hi"] = ieval(src["hi"], sizes)
            lines.append(gen_line(problem, t["name"], profile, stream_of))
        tol = t.get("tolerance")
        if mode == "ref" and role != "in" and tol and tol.get("acc", 0) > 0:
            lines.append("buffer %s_scale fp64 %d out %d" % (t["name"], count, shape[-1]))
        if mode == "sub" and role != "in":
            tol = tol or {}
            if tol.get("exact") or dtype in INT_DTYPES:
                lines.append("tol %s exact" % t["name"])
            else:
                defaults = {"fp64": (1e-7, 1e-7), "fp32": (1e-5, 1.3e-6), "fp16": (1e-5, 1e-3),
                            "bf16": (1e-5, 1.6e-2)}[dtype]
                atol = reval(tol["atol"], sizes) if "atol" in tol else defaults[0]
                rtol = reval(tol["rtol"], sizes) if "rtol" in tol else defaults[1]
                lines.append("tol %s %r %r %r" % (t["name"], atol, rtol, float(tol.get("acc", 0))))
    for name, dtype, count in scratch:
        lines.append("buffer %s %s %d scratch 1" % (name, dtype, ieval(count, scope)))
    threads = 0
    for kernel, f in launches:
        g = [ieval(e, scope) for e in split_top(f["grid"])] + [1, 1]
        b = [ieval(e, scope) for e in split_top(f["block"])] + [1, 1]
        smem = ieval(f["smem"], scope) if "smem" in f else 0
        threads += g[0] * g[1] * g[2] * b[0] * b[1] * b[2]
        args = []
        for a in split_top(f["args"]):
            if re.match(r"^-?\d+$", a):
                args.append("v:" + a)
            elif a in sizes:
                args.append("v:%d" % sizes[a])
            elif a in values:
                v = values[a]
                args.append("v:" + (repr(float(v)) if isinstance(v, float) else str(v)))
            else:
                args.append("b:" + a)
        lines.append("launch %s %d %d %d %d %d %d %d %d %s" % (kernel, g[0], g[1], g[2], b[0], b[1], b[2], smem,
                                                            len(args), " ".join(args)))
    return "\n".join(lines) + "\n", total, threads


def main(argv):
    opts = {"max_elems": 3e6, "max_threads": 4e6, "case": None, "seed": 1, "verbose": False}
    tune = {}
    pos = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--max-elems":
            opts["max_elems"] = float(argv[i + 1]); i += 1
        elif a == "--max-threads":
            opts["max_threads"] = float(argv[i + 1]); i += 1
        elif a == "--case":
            opts["case"] = argv[i + 1]; i += 1
        elif a == "--seed":
            opts["seed"] = int(argv[i + 1]); i += 1
        elif a == "--extra":
            spec, data = argv[i + 1].split(":")
            sizes = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in spec.split(",")}
            opts.setdefault("extra", []).append({"name": "extra " + spec, "sizes": [sizes], "data": data})
            i += 1
        elif a == "--all":
            opts["all"] = True
        elif a == "--verbose":
            opts["verbose"] = True
        elif a == "--tune":
            k, v = argv[i + 1].split("="); tune[k] = int(v); i += 1
        else:
            pos.append(a)
        i += 1
    pid = pos[0]
    pdir = os.path.join(ROOT, "problems", pid)
    problem = json.load(open(os.path.join(pdir, "problem.json")))
    files = pos[1:] or list(problem["controls"].keys())
    expected = {f: problem["controls"].get(f) for f in files}

    def prepare(fname):
        src = open(os.path.join(pdir, fname)).read()
        plan = directives(src, tune)
        binary, err = build(os.path.join(pdir, fname), src, plan[0], [k for k, _ in plan[1]])
        return plan, binary, err

    ref_plan, ref_bin, err = prepare("reference.cu")
    if err:
        print("FAIL reference.cu does not compile:\n" + err[:3000])
        print("0 passed, 1 failed, 0 skipped")
        return 1
    cases = list(expand(problem["tests"] + opts.get("extra", [])))
    refroot = os.path.join(BUILD, "ref-" + pid)
    ref_done = {}
    passed = failed = skipped = 0
    for fname in files:
        plan, binary, err = prepare(fname)
        exp = expected[fname]
        if err:
            got, detail = "Compile Error", err[:2000]
            ran = 0
        else:
            got, detail, ran, worst = "Accepted", "", 0, {}
            for ci, (cname, sizes, data, scal) in enumerate(cases):
                if opts["case"] and not re.search(opts["case"], cname):
                    continue
                text, total, threads = case_file(problem, ci, sizes, data, scal, plan, "sub", "", opts["seed"])
                rtext, _, rthreads = case_file(problem, ci, sizes, data, scal, ref_plan, "ref", "", opts["seed"])
                if total > opts["max_elems"] or max(threads, rthreads) > opts["max_threads"]:
                    continue
                refdir = os.path.join(refroot, "case%d" % ci)
                if ci not in ref_done:
                    os.makedirs(refdir, exist_ok=True)
                    rtext = rtext.replace("refdir \n", "refdir %s\n" % refdir)
                    cf = os.path.join(refdir, "ref.case")
                    open(cf, "w").write(rtext)
                    r = subprocess.run([ref_bin, cf], capture_output=True, text=True)
                    line = (r.stdout.strip().splitlines() or ["JE: reference exit %d %s" % (r.returncode, r.stderr[-300:])])[-1]
                    if line != "REFOK":
                        print("FAIL reference.cu on %s: %s" % (cname, line))
                        return 1
                    ref_done[ci] = True
                text = text.replace("refdir \n", "refdir %s\n" % refdir)
                cf = os.path.join(refdir, "sub.case")
                open(cf, "w").write(text)
                r = subprocess.run([binary, cf], capture_output=True, text=True)
                line = (r.stdout.strip().splitlines() or ["RE: exit %d %s" % (r.returncode, r.stderr[-300:])])[-1]
                ran += 1
                code = line.split(":")[0].split(" ")[0]
                if opts["verbose"]:
                    print("    %-40s %s" % (cname, line))
                if code != "AC":
                    if got == "Accepted":
                        got = CODES.get(code, code)
                        detail = "%s: %s" % (cname, line)
                    if not opts.get("all"):
                        break
                    continue
                for m in re.finditer(r"(\w+):worst=([0-9.e+-]+|nan|inf)", line):
                    worst[m.group(1)] = max(worst.get(m.group(1), 0.0), float(m.group(2)))
            if got == "Accepted" and worst:
                detail = "worst error / bound: " + ", ".join("%s %.3g" % kv for kv in worst.items())
        want = ALIASES.get(exp.upper(), exp) if exp else None
        ok = want is None or got == want
        print("%s %-32s %-17s expected %-17s over %d cases%s" % (
            "ok  " if ok else "FAIL", fname, got, want, ran, ("\n       " + detail) if detail else ""))
        if ok:
            passed += 1
        else:
            failed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
