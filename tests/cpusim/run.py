#!/usr/bin/env python3
"""run.py - judge a problem's controls on the CPU, through the CUDA simulator.

    tests/cpusim/run.py BUILD PROBLEM [--cost N] [--only FILE ...] [--seed S] [--all-cases]
                        [--dir DIR] [--group REGEX]

Builds build/cpusim/<problem>/ (harness.cpp + the judge's common and plan
libraries + one simulated translation unit per .cu file), then for each
control of problems/<PROBLEM>/problem.json runs the test cases whose cost
(an estimate of the work, per problem below) is at most --cost, and checks
the verdict against the one problem.json declares. A control that is
expected to fail stops at its first failing case, like the judge. It ends
with "N passed, N failed, N skipped".

--group REGEX runs only the cases of the `tests` entries whose name matches
REGEX (re.search; an entry without a name is ""), still under --cost: e.g.
the Accepted controls on the entries a change added, when the others are
unchanged.

--dir DIR judges the problem directory DIR instead of problems/PROBLEM (the
cost formula is still PROBLEM's), building in build/cpusim/alt-<PROBLEM>/:
e.g. an older problem.json from git with a new control copied in, to show
that the control was accepted before a change of the data.

This is a development aid, not the judge: execution is simulated (see
cuda_sim.h for what is and is not modelled) and large cases are skipped.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "cpusim")
COST = {
    "online-softmax": "M*N",
    "sdpa": "B*H*Sq*Skv*max(D,16)",
    "rope": "T*(Hq+Hk)*D",
    "kv-cache-append": "B*H*(S+T)*D",
    "flash-attention": "B*H*Sq*Skv*D",
    "softmax": "M*N",
    "logsumexp": "M*N",
    "cross-entropy": "M*V",
    "vector-max": "N",
}
CUDA_HEADERS = ("cuda_fp16.h", "cuda_bf16.h", "mma.h", "cuda_pipeline.h", "cuda_runtime.h")


def scan_top_level(src):
    """Yields (start, end) of top-level declarations: text up to and including
    a '}' or ';' at brace depth 0, skipping comments, strings and characters."""
    i, n, depth, start = 0, len(src), 0, 0
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
            continue
        if src.startswith("/*", i):
            i = src.find("*/", i) + 2
            continue
        if c == "#" and (i == 0 or src[src.rfind("\n", 0, i) + 1:i].strip() == ""):
            while True:  # a preprocessor line, with continuations
                j = src.find("\n", i)
                j = n if j < 0 else j
                if src[j - 1] != "\\":
                    break
                i = j + 1
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                yield start, i + 1
                start = i + 1
        elif c == ";" and depth == 0:
            yield start, i + 1
            start = i + 1
        i += 1


def blank_keep_lines(text):
    """Text with everything but newlines and preprocessor lines removed."""
    out = []
    for line in text.split("\n"):
        out.append(line if line.lstrip().startswith("#") else "")
    return "\n".join(out)


def transform(src):
    """The .cu source as a C++ translation unit body for the simulator."""
    hoisted = []

    def hoist(m):
        name = m.group(1)
        if name not in CUDA_HEADERS:
            hoisted.append(m.group(0))
        return ""

    src = re.sub(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*$", hoist, src, flags=re.M)
    # Drop top-level definitions with inline PTX: cuda_sim.h provides them.
    pieces, last = [], 0
    for s, e in scan_top_level(src):
        chunk = src[s:e]
        code = re.sub(r"//[^\n]*|/\*.*?\*/", "", chunk, flags=re.S)
        if re.search(r"\basm\b", code):
            pieces.append(src[last:s])
            pieces.append(blank_keep_lines(chunk))
            last = e
    pieces.append(src[last:])
    src = "".join(pieces)
    src = re.sub(r'extern\s+"C"', "", src)
    src = re.sub(r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?([A-Za-z_][\w\s]*?)\s+([A-Za-z_]\w*)\s*\[\s*\]\s*;",
                 r"\1 *\2 = (\1 *)sim_dyn_smem_buf;", src)
    return hoisted, src


def directives(path):
    consts, launches, rows = {}, [], None
    for line in open(path):
        m = re.match(r"\s*//\s*@const\s+([A-Za-z_]\w*)\s*=\s*(-?\d+)", line)
        if m:
            consts[m.group(1)] = int(m.group(2))
        m = re.match(r"\s*//\s*@tune\s+([A-Za-z_]\w*)\s*=\s*\(\s*(-?\d+)", line)
        if m:
            consts.setdefault(m.group(1), int(m.group(2)))
        m = re.match(r"\s*//\s*@launch\s+([A-Za-z_]\w*)\s.*args\s*=\s*\(([^)]*)\)", line)
        if m:
            args = [a for a in (x.strip() for x in m.group(2).split(",")) if a]
            launches.append((m.group(1), len(args)))
        m = re.match(r"\s*//\s*@rows\s+([A-Za-z_]\w*)\s", line)
        if m:
            rows = m.group(1)
    # A reference's @rows kernel is called as the launch after the last one,
    # with the first launch's arguments and then rows and n_rows.
    if launches and rows:
        launches.append((rows, launches[0][1] + 2))
    return consts, launches


def write_tu(src_path, tag, out_path):
    consts, launches = directives(src_path)
    hoisted, body = transform(open(src_path).read())
    lines = ['#include "cuda_sim.h"']
    lines += hoisted
    lines.append("namespace sim_%s {" % tag)
    lines.append('#line 1 "%s"' % os.path.relpath(src_path, ROOT))
    lines.append(body)
    lines.append("}")
    lines.append("void sim_call_%s(int launch, const sim_arg *a)" % tag)
    lines.append("{")
    lines.append("    using namespace sim_%s;" % tag)
    lines.append("    switch (launch) {")
    for i, (kernel, nargs) in enumerate(launches):
        call = ", ".join("a[%d]" % k for k in range(nargs))
        lines.append("    case %d: %s(%s); break;" % (i, kernel, call))
    lines.append("    }")
    lines.append("}")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return consts


def cxx(args, log):
    r = subprocess.run(["g++", "-std=c++20", "-O2", "-pthread", "-w", "-ffp-contract=off", "-fno-strict-aliasing",
                        "-I", ROOT, "-I", HERE] + args, capture_output=True, text=True)
    if r.returncode:
        log.write(r.stderr)
        sys.stderr.write(r.stderr[-3000:])
    return r.returncode == 0


def evaluate(expr, scope):
    env = dict(scope, cdiv=lambda a, b: -(-a // b), min=min, max=max)
    return eval(expr.replace("/", "//"), {"__builtins__": {}}, env)


def expand_cases(problem):
    """[(name of the tests entry, sizes of the case)] in the judge's case order."""
    out = []
    for t in problem["tests"]:
        sizes = t["sizes"]
        if isinstance(sizes, dict):
            combos = [{}]
            for name, vals in sizes.items():
                vals = vals if isinstance(vals, list) else [vals]
                combos = [dict(c, **{name: v}) for c in combos for v in vals]
        else:
            combos = sizes
        out += [(t.get("name", ""), c) for c in combos]
    return out


def main(argv):
    build, pid = argv[0], argv[1]
    rest = argv[2:]
    cost_cap = float(rest[rest.index("--cost") + 1]) if "--cost" in rest else 3e7
    seed = rest[rest.index("--seed") + 1] if "--seed" in rest else "0x5EED5EED"
    only = [rest[i + 1] for i, a in enumerate(rest) if a == "--only"]
    group = re.compile(rest[rest.index("--group") + 1]) if "--group" in rest else None
    if pid not in COST:
        print("FAIL no cost formula for %s: add one to COST in %s" % (pid, os.path.relpath(__file__, ROOT)))
        return 1
    if "--dir" in rest:
        pdir = os.path.abspath(rest[rest.index("--dir") + 1])
        out = os.path.join(ROOT, build, "cpusim", "alt-" + pid)
    else:
        pdir = os.path.join(ROOT, "problems", pid)
        out = os.path.join(ROOT, build, "cpusim", pid)
    problem = json.load(open(os.path.join(pdir, "problem.json")))
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "build.log"), "w")
    base = os.path.join(ROOT, build, "cpusim")
    objs = []
    for src in ("harness.cpp", "checks.cpp"):
        obj = os.path.join(base, src + ".o")
        if not os.path.exists(obj) or os.path.getmtime(obj) < max(
                os.path.getmtime(os.path.join(HERE, f)) for f in os.listdir(HERE)):
            tmp = "%s.%d" % (obj, os.getpid())  # renamed into place: runs may share base
            if not cxx(["-c", os.path.join(HERE, src), "-o", tmp], log):
                print("FAIL build of %s" % src)
                return 1
            os.replace(tmp, obj)
        objs.append(obj)
    gen_obj = os.path.join(base, "gen_host.o")
    tmp = "%s.%d" % (gen_obj, os.getpid())
    subprocess.run(["gcc", "-std=c11", "-O2", "-I", ROOT, "-c", os.path.join(HERE, "gen_host.c"),
                    "-o", tmp], check=True)
    os.replace(tmp, gen_obj)
    objs.append(gen_obj)
    libs = [os.path.join(ROOT, build, "lib%s.a" % lib)
            for lib in ("worker", "plan", "problem", "wire", "sandbox", "common")] + ["-ljansson", "-lm"]

    ref_tu = os.path.join(out, "reference.cpp")
    consts = write_tu(os.path.join(pdir, "reference.cu"), "ref", ref_tu)
    ref_obj = ref_tu[:-4] + ".o"
    if not cxx(["-D%s=%d" % kv for kv in consts.items()] + ["-c", ref_tu, "-o", ref_obj], log):
        print("FAIL %s/reference.cu does not compile for the simulator" % pid)
        return 1

    cases = expand_cases(problem)
    picked = []
    for i, (entry, sz) in enumerate(cases):
        if group and not group.search(entry):
            continue
        if "--all-cases" in rest or evaluate(COST[pid], sz) <= cost_cap:
            picked.append(i)
    if not picked:
        print("FAIL no test case of %s is selected (--group, --cost)" % pid)
        return 1
    passed = failed = skipped = 0
    for ctl, expect in problem["controls"].items():
        if only and ctl not in only:
            continue
        label = "%s/%s" % (pid, ctl)
        tag = ctl.replace("/", "_").replace(".", "_").replace("-", "_")
        tu = os.path.join(out, tag + ".cpp")
        consts = write_tu(os.path.join(pdir, ctl), "sub", tu)
        obj = tu[:-4] + ".o"
        binary = tu[:-4]
        if not cxx(["-D%s=%d" % kv for kv in consts.items()] + ["-c", tu, "-o", obj], log) or \
                not cxx([obj, ref_obj] + objs + libs + ["-o", binary], log):
            print("FAIL %-44s does not build for the simulator (see %s)" % (label, log.name))
            failed += 1
            continue
        r = subprocess.run([binary, "--problem", pdir, "--ref", os.path.join(pdir, "reference.cu"),
                            "--sub", os.path.join(pdir, ctl), "--cases", ",".join(map(str, picked)),
                            "--seed", seed], capture_output=True, text=True)
        lines = r.stdout.strip().splitlines()
        last = lines[-1] if lines else "no output: exit %d %s" % (r.returncode, r.stderr[-500:])
        m = re.match(r"VERDICT (.*) \((\d+) cases\)", last)
        with open(os.path.join(out, tag + ".log"), "w") as f:
            f.write(r.stdout + r.stderr)
        if r.returncode != 0 or not m:
            print("FAIL %-44s harness: %s" % (label, "\n".join(lines[-3:]) or last))
            failed += 1
            continue
        got = m.group(1)
        ok = got.lower() == expect.lower() or {"wa": "wrong answer", "mv": "memory violation",
                                               "ac": "accepted"}.get(expect.lower()) == got.lower()
        worst, rows_ok = {}, 0
        for ln in lines:
            if ln.startswith("ok   "):
                notes, _, rows_note = ln.split(":", 1)[1].partition("; @rows agrees")
                rows_ok += bool(rows_note)
                for name, v in re.findall(r" (\w+) ([0-9][0-9.e+-]*)", notes):
                    worst[name] = max(worst.get(name, 0.0), float(v))
        detail = ", ".join("%s worst %.3g of the bound" % kv for kv in worst.items())
        if rows_ok:
            detail += "; reference @rows = full reference on %d cases" % rows_ok
        print("%s %-44s %-17s expected %-17s %s cases%s" % (
            "ok  " if ok else "FAIL", label, got, expect, m.group(2), (" (" + detail + ")") if detail else ""))
        if not ok or got != "Accepted":
            fails = [ln for ln in lines if ln.startswith("FAIL") or ln.startswith("RE")]
            if fails:
                print("       " + fails[0][:400])
        if ok:
            passed += 1
        else:
            failed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
