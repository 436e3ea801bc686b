#!/usr/bin/env python3
"""run.py - judge a problem's Triton controls on the CPU, through the Triton simulator.

    tests/tritonsim/run.py BUILD PROBLEM [--only FILE ...] [--cost N] [--seed S]
                           [--time-limit SECONDS] [--all-cases]

PROBLEM is an id under problems/ or a problem directory. For each Triton
control of its problem.json (the .py entries of "controls"), run.py gets the
plan the judge would run (every @tune combination, every test case) from
`BUILD/bin/judged plan`; runs the test cases
whose cost is at most --cost (default 1e8; see case_cost(): the problem's
bytes + flops formulas, the programs launched and the blocks of the
reference's simulation; --all-cases runs all of them; a case whose buffers
would take more than MAX_CASE_BYTES of memory here, such as the tests past
2^31 elements, is never run, and says so);
and checks the verdict against the one problem.json declares. The inputs are
the judge's (its generator, the same bits as on the GPU for the seed), the
expected outputs are reference.cu's on tests/cpusim's CUDA simulator, and the
comparison is the judge's comparator with the problem's tolerances, all
through host.cpp. A control expected to fail stops at its first failing case,
like the judge; every @tune combination must pass every case picked. Ends
with "N passed, N failed, N skipped" (a control is skipped when none of its
cases fits the cost, or when one expected to fail passed every case run while
some were too large to run here: its failing case may be among them).

This is a development aid, not the judge: the kernels run on tsim (a numpy
interpreter of the Triton language, tests/tritonsim/tsim: see its modules for
what is and is not modelled), large cases are skipped, and only the GPU
proves a control. Needs numpy (Debian: apt-get install python3-numpy); run it
with a Python that has it (/usr/bin/python3 on the development machine).
"""
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # tsim is imported from the source tree: leave no __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The source tree BUILD was built from (set by main): its headers, its tests/cpusim and its
# problems/ are used, so that run.py can judge another worktree's problems (README.md).
SRC = ROOT
CPUSIM = os.path.join(ROOT, "tests", "cpusim")
PROGRAM_COST = 20000
REF_BLOCK_COST = 20000
REF_THREAD_COST = 100
DEFAULT_COST = 1e8
# A case's buffers live in numpy arrays and files here: the inputs and outputs in their dtypes
# and the reference's outputs in fp64 (8 bytes an element). A larger case (vector-add's
# 2^31 + 129 elements: 43 GB) is left out even with --all-cases.
MAX_CASE_BYTES = 2 << 30
DTYPE_BYTES = {"fp64": 8, "int64": 8, "uint64": 8, "fp32": 4, "int32": 4, "uint32": 4,
               "fp16": 2, "bf16": 2, "int8": 1, "uint8": 1}


def numpy_or_exit():
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.stderr.write("run.py: numpy is missing for %s (Debian: apt-get install python3-numpy;"
                         " then run /usr/bin/python3 %s)\n" % (sys.executable, sys.argv[0]))
        sys.exit(2)


def cpusim_module():
    spec = importlib.util.spec_from_file_location("cpusim_run", os.path.join(CPUSIM, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def stale(target, sources):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(s) > t for s in sources)


def build_host(build, pdir, out):
    """BUILD/tritonsim/<id>/host: host.cpp + reference.cu for the CUDA simulator + the judge's
    libraries. Returns its path, or None (the log says why)."""
    os.makedirs(out, exist_ok=True)
    host = os.path.join(out, "host")
    libs = [os.path.join(build, "lib%s.a" % lib)
            for lib in ("worker", "plan", "problem", "wire", "sandbox", "common")]
    for lib in libs:
        if not os.path.exists(lib):
            print("FAIL %s is missing: build first (make -j2)" % lib)
            return None
    ref = os.path.join(pdir, "reference.cu")
    sources = [ref, os.path.join(HERE, "host.cpp"), os.path.join(CPUSIM, "cuda_sim.h"),
               os.path.join(CPUSIM, "checks.cpp"), os.path.join(CPUSIM, "checks.h"),
               os.path.join(CPUSIM, "gen_host.c")] + libs
    if not stale(host, sources):
        return host
    cs = cpusim_module()
    log = open(os.path.join(out, "build.log"), "w")
    ref_tu = os.path.join(out, "reference.cpp")
    consts = cs.write_tu(ref, "ref", ref_tu)
    objs = []
    steps = [(["-D%s=%d" % kv for kv in consts.items()] + ["-c", ref_tu, "-o", ref_tu[:-4] + ".o"],
              "reference.cu"),
             (["-c", os.path.join(HERE, "host.cpp"), "-o", os.path.join(out, "host.o")],
              "host.cpp"),
             (["-c", os.path.join(CPUSIM, "checks.cpp"), "-o", os.path.join(out, "checks.o")],
              "checks.cpp")]
    for args, what in steps:
        if not cs.cxx(args, log):
            print("FAIL %s does not build for the simulator (see %s)" % (what, log.name))
            return None
        objs.append(args[-1])
    gen = os.path.join(out, "gen_host.o")
    r = subprocess.run(["gcc", "-std=c11", "-O2", "-I", SRC, "-c",
                        os.path.join(CPUSIM, "gen_host.c"), "-o", gen], capture_output=True,
                       text=True)
    if r.returncode:
        log.write(r.stderr)
        print("FAIL gen_host.c does not build (see %s)" % log.name)
        return None
    if not cs.cxx(objs + [gen] + libs + ["-ljansson", "-lm", "-o", host], log):
        print("FAIL the host tool does not link (see %s)" % log.name)
        return None
    return host


def get_plan(build, pdir, ctl):
    """(plan, None), or (None, the directive errors: a Compile Error), from `judged plan`."""
    judged = os.path.join(build, "bin", "judged")
    if not os.path.exists(judged):
        raise RuntimeError("%s is missing: build first (make -j2)" % judged)
    r = subprocess.run([judged, "plan", pdir, os.path.join(pdir, ctl)], capture_output=True,
                       text=True, timeout=120)
    if r.returncode == 0:
        return json.loads(r.stdout), None
    if r.returncode == 1:
        prefix = os.path.join(pdir, ctl) + ":"
        return None, "\n".join(ln[len(prefix):] if ln.startswith(prefix) else ln
                               for ln in r.stderr.strip().splitlines())
    raise RuntimeError("judged plan failed (exit %d): %s" % (r.returncode, r.stderr.strip()))


def evaluate(expr, scope):
    env = dict(scope, cdiv=lambda a, b: -(-a // b), min=min, max=max)
    return eval(str(expr), {"__builtins__": {}}, env)


def case_cost(problem, case, ref):
    """The estimated work of one case: the problem's bytes + flops formulas, PROGRAM_COST per
    program the control launches, and the reference's simulation (REF_BLOCK_COST per block,
    REF_THREAD_COST per thread: tests/cpusim runs a block's threads as OS threads)."""
    scope = dict(case["sizes"])
    scope.update({k: v for k, v in case.get("scalars", {}).items()})
    work = 0.0
    for key in ("bytes", "flops"):
        if key in problem:
            try:
                work += float(evaluate(problem[key], scope))
            except Exception:
                pass
    programs = 0
    for L in case.get("launches", []):
        g = L["grid"]
        programs += g[0] * g[1] * g[2]
    r = ref.get(case["index"], {"blocks": 0, "threads": 0})
    return work + PROGRAM_COST * programs + REF_BLOCK_COST * r["blocks"] + \
        REF_THREAD_COST * r["threads"]


def case_bytes(case):
    """The memory one case takes here: every buffer of the plan in its dtype, and each output
    again as the reference's 8-byte values."""
    total = 0
    for b in case.get("buffers", []):
        total += b["count"] * DTYPE_BYTES.get(b["dtype"], 8)
        if b.get("role") in ("out", "inout"):
            total += b["count"] * 8
    return total


def reference_costs(host, pdir):
    r = subprocess.run([host, "refcost", "--problem", pdir, "--ref",
                        os.path.join(pdir, "reference.cu")], capture_output=True, text=True,
                       timeout=120)
    if r.returncode:
        raise RuntimeError("host refcost: %s" % r.stderr.strip())
    return {x["index"]: x for x in json.loads(r.stdout)}


def file_digest(paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


KEEP_STAMPS = 4


def reference_case(host, pdir, out, index, seed, stamp):
    """The directory holding case `index`'s inputs and reference outputs, cached under
    out/cases/STAMP/ (STAMP: a digest of problem.json, reference.cu and the host tool; the
    KEEP_STAMPS most recent are kept)."""
    top = os.path.join(out, "cases")
    d = os.path.join(top, stamp, "%s-%s" % (seed, index))
    mark = os.path.join(d, "done")
    if os.path.exists(mark):
        return d, None
    if not os.path.isdir(os.path.join(top, stamp)):
        os.makedirs(os.path.join(top, stamp))
        old = sorted((os.path.getmtime(os.path.join(top, x)), x) for x in os.listdir(top))
        for _, x in old[:-KEEP_STAMPS]:
            shutil.rmtree(os.path.join(top, x), ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    r = subprocess.run([host, "case", "--problem", pdir, "--ref", os.path.join(pdir, "reference.cu"),
                        "--case", str(index), "--seed", seed, "--out", d], capture_output=True,
                       text=True, timeout=1800)
    if r.returncode:
        return None, (r.stderr or r.stdout).strip()
    open(mark, "w").close()
    return d, None


def worker(spec_path):
    """Runs one control over its picked (config, case) pairs; prints one JSON line each."""
    spec = json.load(open(spec_path))
    sys.path.insert(0, HERE)
    import numpy as np  # noqa: F401
    from tsim import runner
    from tsim.errors import CompileError
    path = spec["control"]
    try:
        mod = runner.load_module(path)
    except CompileError as e:
        print(json.dumps({"verdict": "Compile Error", "message": str(e), "notes": [],
                          "config": "", "case": ""}))
        return 0
    for job in spec["jobs"]:
        if "dir" not in job:
            d, err = reference_case(spec["host"], spec["problem"], spec["out"],
                                    job["case"]["index"], spec["seed"], spec["stamp"])
            if d is None:
                print(json.dumps({"verdict": "Judge Error", "notes": [], "config": job["config"],
                                  "case": job["case"]["name"], "message": "the reference: " + err}))
                return 0
            job["dir"] = d
        out = tempfile.mkdtemp(prefix="tsim-")
        try:
            res = runner.run_case(mod, path, job["case"], job["dir"], out, spec["time_limit"])
            if res["verdict"] is None:
                res = compare(spec, job, out, res)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        res["config"] = job["config"]
        res["case"] = job["case"]["name"]
        print(json.dumps(res), flush=True)
        if res["verdict"] != "Accepted" and spec["stop_at_failure"]:
            break
    return 0


def compare(spec, job, out, res):
    """host compare on the outputs in `out` (the reference files are linked in beside them)."""
    for f in os.listdir(job["dir"]):
        if f.endswith(".ref") or f.endswith(".scale"):
            os.symlink(os.path.join(job["dir"], f), os.path.join(out, f))
    r = subprocess.run([spec["host"], "compare", "--problem", spec["problem"], "--case",
                        str(job["case"]["index"]), "--dir", out], capture_output=True, text=True,
                       timeout=600)
    lines = r.stdout.strip().splitlines()
    if r.returncode or not lines or not lines[-1].startswith("VERDICT "):
        res["verdict"] = "Judge Error"
        res["message"] = "host compare: " + (r.stderr or r.stdout).strip()[-2000:]
        return res
    res["verdict"] = lines[-1][len("VERDICT "):]
    fails = [ln[5:] for ln in lines if ln.startswith("FAIL ")]
    res["message"] = "\n".join(ln for ln in lines[:-1] if not ln.startswith("ok   ")) if fails \
        else ""
    res["worst"] = {}
    for ln in lines:
        if ln.startswith("ok   "):
            name, v = ln[5:].split(" ", 1)
            res["worst"][name] = v
    return res


def same_verdict(got, expect):
    alias = {"ac": "accepted", "wa": "wrong answer", "mv": "memory violation",
             "re": "runtime error", "ce": "compile error", "tle": "time limit",
             "im": "input modified"}
    return got.lower() == alias.get(expect.lower(), expect.lower())


def main(argv):
    if argv and argv[0] == "--worker":
        return worker(argv[1])
    if len(argv) < 2:
        print(__doc__)
        return 2
    numpy_or_exit()
    build, prob = argv[0], argv[1]
    rest = argv[2:]
    opt = {"--cost": DEFAULT_COST, "--seed": "0x5EED5EED", "--time-limit": 120.0}
    only, all_cases = [], False
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--only" and i + 1 < len(rest):
            only.append(rest[i + 1])
            i += 2
        elif a in opt and i + 1 < len(rest):
            opt[a] = rest[i + 1]
            i += 2
        elif a == "--all-cases":
            all_cases = True
            i += 1
        else:
            print("run.py: unknown argument %s\n%s" % (a, __doc__))
            return 2
    cost_cap = float(opt["--cost"])
    seed = opt["--seed"]
    time_limit = float(opt["--time-limit"])
    global SRC, CPUSIM
    build = os.path.abspath(build)
    if os.path.exists(os.path.join(os.path.dirname(build), "common", "problem.h")):
        SRC = os.path.dirname(build)
        CPUSIM = os.path.join(SRC, "tests", "cpusim")
    pdir = prob if os.path.isdir(prob) else os.path.join(SRC, "problems", prob)
    pdir = os.path.abspath(pdir)
    if not os.path.exists(os.path.join(pdir, "problem.json")):
        print("run.py: no problem.json in %s" % pdir)
        return 2
    problem = json.load(open(os.path.join(pdir, "problem.json")))
    pid = problem["id"]
    controls = [(c, v) for c, v in problem.get("controls", {}).items() if c.endswith(".py")]
    for o in only:
        if o not in dict(controls):
            print("run.py: %s is not a Triton control of %s" % (o, pid))
            return 2
    if only:
        controls = [(c, v) for c, v in controls if c in only]
    if not controls:
        print("no Triton controls in %s/problem.json" % pid)
        print("0 passed, 0 failed, 0 skipped")
        return 0
    out = os.path.join(build, "tritonsim", pid)
    host = build_host(build, pdir, out)
    if host is None:
        print("0 passed, %d failed, 0 skipped" % len(controls))
        return 1
    stamp = file_digest([os.path.join(pdir, "problem.json"), os.path.join(pdir, "reference.cu"),
                         host])
    ref_costs = reference_costs(host, pdir)
    passed = failed = skipped = 0
    for ctl, expect in controls:
        label = "%s/%s" % (pid, ctl)
        try:
            plan, error = get_plan(build, pdir, ctl)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("FAIL %-44s %s" % (label, e))
            failed += 1
            continue
        if plan is None:
            got = "Compile Error"
            ok = same_verdict(got, expect)
            print("%s %-44s %-17s expected %s" % ("ok  " if ok else "FAIL", label, got, expect))
            if not ok or error:
                print("       " + error.replace("\n", "\n       ")[:1500])
            passed, failed = passed + ok, failed + (not ok)
            continue
        jobs, over, too_big = [], set(), {}
        for cfg in plan["configs"]:
            for case in cfg["cases"]:
                if case["kind"] != "test":
                    continue
                if "error" in case:
                    jobs.append({"config": cfg["name"], "case": case, "error": case["error"]})
                    continue
                if case_bytes(case) > MAX_CASE_BYTES:
                    over.add(case["index"])
                    too_big[case["name"]] = case_bytes(case)
                    continue
                if not all_cases and case_cost(problem, case, ref_costs) > cost_cap:
                    over.add(case["index"])
                    continue
                jobs.append({"config": cfg["name"], "case": case})
        for name, nbytes in too_big.items():
            print("note %-44s case %s left out: it needs %.1f GB here, over run.py's %.0f GiB "
                  "(MAX_CASE_BYTES); only the GPU judges it" % (label, name, nbytes / 1e9,
                                                                MAX_CASE_BYTES / 2**30))
        plan_errors = [j for j in jobs if "error" in j]
        jobs = [j for j in jobs if "error" not in j]
        if not jobs and not plan_errors:
            print("skip %-44s no test case within --cost %g" % (label, cost_cap))
            skipped += 1
            continue
        results = []
        if plan_errors:
            j = plan_errors[0]
            results.append({"verdict": "Runtime Error", "message": "plan: " + j["error"],
                            "notes": [], "config": j["config"], "case": j["case"]["name"]})
        else:
            spec = {"control": os.path.join(pdir, ctl), "problem": pdir, "host": host,
                    "time_limit": time_limit, "jobs": jobs, "stop_at_failure": True,
                    "out": out, "seed": seed, "stamp": stamp}
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(spec, f)
            try:
                r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", f.name],
                                   capture_output=True, text=True,
                                   timeout=time_limit * (len(jobs) + 1) + 300)
                for ln in r.stdout.splitlines():
                    if ln.startswith("{"):
                        results.append(json.loads(ln))
                if r.returncode or not results:
                    results.append({"verdict": "Judge Error", "notes": [], "config": "", "case": "",
                                    "message": "the simulator stopped (exit %d): %s"
                                    % (r.returncode, r.stderr.strip()[-2000:])})
            except subprocess.TimeoutExpired:
                results.append({"verdict": "Time Limit", "notes": [], "config": "", "case": "",
                                "message": "the simulator ran past its overall deadline"})
            finally:
                os.unlink(f.name)
        failures = [x for x in results if x["verdict"] != "Accepted"]
        got = failures[0]["verdict"] if failures else "Accepted"
        ok = same_verdict(got, expect)
        if not failures and not ok and too_big:
            # Accepted on every case run, expected to fail: the failing case may be one that no
            # --cost lets run here (a case left out by --cost alone stays a failure: raise it).
            print("skip %-44s Accepted on the %d cases run, expected %s: not proven here, the "
                  "case%s too large for this machine (%s) may be where it fails" % (
                      label, len({j["case"]["index"] for j in jobs}), expect,
                      "" if len(too_big) == 1 else "s", ", ".join(sorted(too_big))))
            skipped += 1
            continue
        worst = {}
        for x in results:
            for name, v in x.get("worst", {}).items():
                if v != "exact":
                    worst[name] = max(worst.get(name, 0.0), float(v))
                else:
                    worst.setdefault(name, "exact")
        detail = ", ".join("%s worst %.3g of the bound" % (n, v) if v != "exact" else "%s exact" % n
                           for n, v in worst.items())
        n_cases = len({x["case"] for x in results if x.get("case")})
        n_cfg = len(plan["configs"])
        counts = "%d case%s, %d config%s" % (n_cases, "" if n_cases == 1 else "s", n_cfg,
                                              "" if n_cfg == 1 else "s") if n_cases else ""
        if over and counts:
            counts += ", %d left out (by --cost or memory)" % len(over)
        print("%s %-44s %-17s expected %-17s %s%s" % (
            "ok  " if ok else "FAIL", label, got, expect, counts,
            (" (" + detail + ")") if detail and not failures else ""))
        if failures:
            x = failures[0]
            where = "case %s%s: " % (x["case"], (", " + x["config"]) if x.get("config") else "") \
                if x.get("case") else ""
            text = "\n".join(ln.rstrip() for ln in x["message"].strip().splitlines())
            print("       %s%s" % (where, text.replace("\n", "\n       ")[:3000]))
        notes = []
        for x in results:
            for n in x.get("notes", []):
                if n not in notes:
                    notes.append(n)
        for n in notes[:5]:
            print("       note: " + n)
        passed, failed = passed + ok, failed + (not ok)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
