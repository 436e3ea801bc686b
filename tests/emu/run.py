#!/usr/bin/env python3
"""run.py - judge a problem's control files on the CPU, through the CUDA emulator.

    tests/emu/run.py BUILD [--quick] [PROBLEM ...]

For each problem (default: every problem with a tests/emu/<id>_main.cpp), this
compiles reference.cu and every file named in problem.json "controls" as C++
with tests/emu/emu.h in front, evaluates each file's @launch for each test
case, runs the reference and the file on the same inputs with guard bands and
poisoned outputs, and takes the first failing verdict, as the judge would.
It then checks the verdict against the one problem.json declares.

This is a development aid, not the judge: inputs come from the emulator's own
RNG with the problems' distributions, test cases too large to emulate in a few
seconds are skipped (--quick skips more), and files that need tensor cores or
cuda_fp16.h are reported as skipped. It ends with "N passed, N failed,
N skipped" (one test per control file).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMU = os.path.join(ROOT, "tests", "emu")
CODES = {"AC": "Accepted", "WA": "Wrong Answer", "MV": "Memory Violation",
         "IM": "Input Modified", "REF": "Judge Error", "JE": "Judge Error",
         "RE": "Runtime Error"}
KERNELS = {"vector-add": "vector_add", "softmax": "softmax_rows", "sgemm": "sgemm"}
UNEMULATED = ("<mma.h>", "<cuda_fp16.h>", "<cuda_bf16.h>", "asm(", "asm volatile")


def directives(path):
    """(consts dict, list of launches) of one .cu file."""
    consts, launches = {}, []
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*@const\s+([A-Za-z_]\w*)=(-?\d+)", line)
            if m:
                consts[m.group(1)] = int(m.group(2))
            m = re.match(r"\s*//\s*@launch\s+([A-Za-z_]\w*)\s+(.*)$", line)
            if m:
                launches.append((m.group(1), parse_fields(m.group(2))))
    return consts, launches


def parse_fields(text):
    """grid=(...) block=(...) smem=... args=(...) -> dict of field -> text inside."""
    fields, i = {}, 0
    while i < len(text):
        m = re.match(r"\s*([a-z]+)=", text[i:])
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
    """Splits an expression list on top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def evaluate(expr, scope):
    """The judge's integer expressions (operands here are never negative)."""
    py = expr.replace("/", "//")
    env = dict(scope)
    env.update(cdiv=lambda a, b: -(-a // b), min=min, max=max)
    return int(eval(py, {"__builtins__": {}}, env))  # noqa: S307 (trusted repo files)


def dims(fields, key, scope):
    vals = [evaluate(e, scope) for e in split_top(fields[key])] if key in fields else []
    vals += [1] * (3 - len(vals))
    return vals


def compile_unit(src, obj, consts, log):
    cmd = ["g++", "-std=c++20", "-O2", "-ffp-contract=off", "-pthread", "-w",
           "-I", EMU, "-include", os.path.join(EMU, "emu.h"), "-x", "c++", "-c", src, "-o", obj]
    cmd[1:1] = ["-D%s=%d" % kv for kv in consts.items()]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        log.write(r.stderr)
    return r.returncode == 0


def cases(problem):
    for t in problem["tests"]:
        sizes = t["sizes"]
        if isinstance(sizes, dict):
            combos = [{}]
            for name, vals in sizes.items():
                vals = vals if isinstance(vals, list) else [vals]
                combos = [dict(c, **{name: v}) for c in combos for v in vals]
        else:
            combos = sizes
        for c in combos:
            yield t.get("name", ""), c, t["data"]


def main(argv):
    build = argv[0] if argv else "build"
    quick = "--quick" in argv[1:]
    names = [a for a in argv[1:] if not a.startswith("--")]
    if not names:
        names = sorted(p for p in KERNELS if os.path.isdir(os.path.join(ROOT, "problems", p)))
    out = os.path.join(ROOT, build, "emu")
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "build.log"), "w")
    thread_cap = 40000 if quick else 600000
    work_cap = 3e7 if quick else 1.5e9
    passed = failed = skipped = 0

    for pid in names:
        pdir = os.path.join(ROOT, "problems", pid)
        with open(os.path.join(pdir, "problem.json")) as f:
            problem = json.load(f)
        main_obj = os.path.join(out, pid + "_main.o")
        subprocess.run(["g++", "-std=c++20", "-O2", "-pthread", "-I", EMU, "-c",
                        os.path.join(EMU, pid.replace("-", "_") + "_main.cpp"), "-o", main_obj],
                       check=True)
        ref_consts, ref_launches = directives(os.path.join(pdir, "reference.cu"))
        ref_obj = os.path.join(out, pid + "_reference.o")
        if not compile_unit(os.path.join(pdir, "reference.cu"), ref_obj, ref_consts, log):
            print("FAIL %s/reference.cu: does not compile for the emulator" % pid)
            failed += 1
            continue
        for ctl, expect in problem["controls"].items():
            path = os.path.join(pdir, ctl)
            src = open(path).read()
            label = "%s/%s" % (pid, ctl)
            if any(u in src for u in UNEMULATED):
                print("skip %-40s needs the GPU (tensor cores, fp16 or inline PTX)" % label)
                skipped += 1
                continue
            consts, launches = directives(path)
            if len(launches) != 1 or launches[0][0] != KERNELS[pid] or "smem" in launches[0][1]:
                print("skip %-40s launch plan not supported by the emulator" % label)
                skipped += 1
                continue
            obj = os.path.join(out, pid + "_" + ctl.replace("/", "_") + ".o")
            binary = obj[:-2]
            if not compile_unit(path, obj, consts, log):
                print("FAIL %-40s does not compile for the emulator (see %s)" % (label, log.name))
                failed += 1
                continue
            subprocess.run(["g++", "-pthread", main_obj, ref_obj, obj, "-o", binary], check=True)
            verdict, detail, ran, notes = "AC", "", 0, []
            for idx, (tname, sizes, data) in enumerate(cases(problem)):
                scope = dict(sizes)
                scope.update(consts)
                grid, block = dims(launches[0][1], "grid", scope), dims(launches[0][1], "block", scope)
                rscope = dict(sizes)
                rscope.update(ref_consts)
                rgrid = dims(ref_launches[0][1], "grid", rscope)
                rblock = dims(ref_launches[0][1], "block", rscope)
                threads = max(grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2],
                              rgrid[0] * rgrid[1] * rgrid[2] * rblock[0] * rblock[1] * rblock[2])
                work = 1
                for v in sizes.values():
                    work *= v
                if threads > thread_cap or work > work_cap:
                    continue
                if block[0] * block[1] * block[2] > 1024:
                    verdict, detail = "RE", "block of %s threads" % block
                    break
                cmd = [binary, "--sizes", ",".join(str(v) for v in sizes.values()),
                       "--profile", data, "--seed", str(idx + 1),
                       "--grid", "%d,%d,%d" % tuple(grid), "--block", "%d,%d,%d" % tuple(block),
                       "--ref-grid", "%d,%d,%d" % tuple(rgrid),
                       "--ref-block", "%d,%d,%d" % tuple(rblock)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                line = (r.stdout.strip().splitlines() or ["RE: exit %d %s" % (r.returncode, r.stderr[-200:])])[-1]
                ran += 1
                code = line.split(":")[0].split(" ")[0]
                if code != "AC":
                    verdict, detail = code, "%s %s: %s" % (tname, sizes, line)
                    break
                notes.append(line)
            got = CODES.get(verdict, verdict)
            ok = got == expect
            worst = [float(m.group(1)) for n in notes for m in [re.search(r"worst ([0-9.e+-]+)", n)] if m]
            extra = " (worst error %.3g of the bound)" % max(worst) if worst else ""
            print("%s %-40s %-17s expected %-17s over %d cases%s%s" % (
                "ok  " if ok else "FAIL", label, got, expect, ran, extra,
                ("\n       " + detail) if detail else ""))
            if ok:
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
