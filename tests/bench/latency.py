#!/usr/bin/env python3
"""latency.py - what a learner feels, through the real server (make bench).

    tests/bench/latency.py BASE_URL WORKDIR [--quick] [--label TEXT] [--problems DIR]
                           [--ok PROBLEM/FILE] [--wa PROBLEM/FILE] [--skip-solutions]
                           [--budget S] [--only PARTS] [--solutions P,P,...]

Signs up learners on the blockwise-server at BASE_URL (already running, with
judged workers connected) and measures, from POST /api/submissions to the
submission's state "done" as a learner's page would see it (polled every 5 ms):

  run       a Run of vector-add's solution on an idle system: p50, p90
  run_wa    a Run that fails its first test (softmax's starter): p50, p90
  submit    a Submit of vector-add's solution: p50, p90
  burst8    8 learners x 5 Runs of vector-add's solution at once (the issue's
            row): verdicts per minute, p50, p90, every verdict Accepted
  burst     a class: 30 learners x 3 Runs at once, the same figures; with 30
            learners always waiting, p90 is about 30 / throughput (Little's law)
  burst_wa  the class burst with softmax's starter (every verdict WA)
  Each burst also says how the judge spent it: the mean number of judgings
  in the judge at once (the sum of their total_ms over the wall time) and the
  p50 of each judging's phases, to compare with the idle Run's breakdown.
  precision 10 Submits of vector-add's solution while a burst of Runs flows:
            max/min of the timed median per shape
  solutions a Submit of every problem's solution: p50 of each
  breakdown the judge's own timing of a Run and a Submit (result.timing)

Triton beside CUDA (issue 27; within --triton-budget S seconds, default 150,
what does not fit is listed as skipped), each with the judge's compile
breakdown (compile ms, the compiler's CPU ms, builds from the cache and
compiled, the first test case's builds ready at, the wait for a warm compiler):
  triton_run     a fresh-edit Run (a new "# ..." comment appended: nothing
                 cached) of every problem's solution.py and starter.py: p50 of
                 3 for vector-add, softmax, layernorm-forward, sgemm and
                 flash-attention (first), of 1 for the others (last, after the
                 parts below); the starters' Runs fail their first test
  triton_submit  a Submit of flash-attention's solution.py
  triton_burst   8 learners x 5 fresh Runs of vector-add's solution.py
  triton_launch  sgemm's solution.py edited in its launch only, each time anew: a
                 launcher's first grid in solve written another way (((grid), i)[0]),
                 a directive file's first @launch grid; every build from the cache
                 (the table says which was edited: "solve" or "directive")

--budget S: the Submits of every problem's solution stop when fewer than 20 of
S seconds are left (the rest are listed as skipped), so the table is written.
--only run,submit,...: only those parts (of run, run_wa, submit, burst8, burst,
burst_wa, precision, solutions, triton_run, triton_submit, triton_burst,
triton_launch), for a short call of the GPU machine;
--solutions P,P: the sweep Submits only those problems' solutions.
--skip-triton: none of the Triton parts (a later slot count's pass).
--triton-solution FILE: the Triton parts judge FILE instead of solution.py (the CPU
smoke test judges fake-add's launcher.py, a solve(...) launcher). Each Triton line
says the file's form: (launcher), a def solve, or (directive), # @launch lines.
Writes WORKDIR/latency.json (every figure and sample) and prints a table.
--quick: fewer repetitions, smaller bursts, the solutions of 3 problems only
(for the CPU smoke test on the fake driver, tests/cpu/bench-smoke.sh, which
also points --problems, --ok and --wa at tests/fixtures/fake-gpu). The
defaults: problems/, vector-add/solution.cu and softmax/starter.cu.
"""
import http.client
import json
import os
import statistics
import sys
import threading
import time
import urllib.parse


class Learner:
    def __init__(self, base, name):
        u = urllib.parse.urlparse(base)
        self.host, self.port = u.hostname, u.port
        self.cookie = None
        self.csrf = None
        body = json.dumps({"name": name, "password": "password-1"})
        status, reply, headers = self.call("POST", "/api/auth/signup", body)
        if status not in (200, 201):
            status, reply, headers = self.call("POST", "/api/auth/signin", body)
        if status not in (200, 201):
            raise RuntimeError(f"sign-up of {name}: HTTP {status} {reply}")
        self.csrf = reply.get("csrf")

    def call(self, method, path, body=None):
        c = http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.csrf and method == "POST":
            headers["X-CSRF-Token"] = self.csrf
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        for k, v in r.getheaders():
            if k.lower() == "set-cookie":
                self.cookie = v.split(";", 1)[0]
        c.close()
        try:
            reply = json.loads(data) if data else {}
        except ValueError:
            reply = {"raw": data[:200].decode(errors="replace")}
        return r.status, reply, r.getheaders()

    def judge(self, problem, source, mode, deadline_s=600, language="cuda"):
        """Posts one submission and waits for it: (seconds, the submission)."""
        body = json.dumps({"problem": problem, "mode": mode, "source": source,
                           "language": language})
        t0 = time.monotonic()
        status, reply, _ = self.call("POST", "/api/submissions", body)
        if status != 201:
            raise RuntimeError(f"POST {problem} {mode}: HTTP {status} {reply}")
        sid = reply["id"]
        while time.monotonic() - t0 < deadline_s:
            status, sub, _ = self.call("GET", f"/api/submissions/{sid}")
            if status == 200 and sub.get("state") in ("done", "cancelled"):
                return time.monotonic() - t0, sub
            time.sleep(0.005)
        raise RuntimeError(f"submission {sid} not done within {deadline_s} s")


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(q / 100.0 * (len(xs) - 1)))))
    return xs[k]


PROBLEMS = "problems"
TRITON_SOLUTION = "solution.py"  # --triton-solution: the file the Triton parts judge
PARTS = ("run", "run_wa", "submit", "burst8", "burst", "burst_wa", "precision", "solutions",
         "triton_run", "triton_submit", "triton_burst", "triton_launch")
TRITON_PARTS = ("triton_run", "triton_submit", "triton_burst", "triton_launch")
# The Triton figures (H200, 2 slots, before issue 27) and targets, per problem.
TRITON_TARGETS = {"vector-add": (0.35, 1.00), "softmax": (0.45, 1.47),
                  "layernorm-forward": (2.0, 6.2), "sgemm": (2.0, 6.7),
                  "flash-attention": (4.0, 12.9)}


def source(problem, file):
    with open(os.path.join(PROBLEMS, problem, file)) as f:
        return f.read()


def outside_s(times, subs):
    """Per sample: the seconds a learner waited beyond the judge's own total_ms (the
    server, the queue, the claim, the transfers, the result's post and the page's poll)."""
    out = []
    for t, sub in zip(times, subs):
        total = ((sub.get("result") or {}).get("timing") or {}).get("total_ms")
        if total is not None:
            out.append(t - total / 1000.0)
    return out


def figures(times, subs):
    """What a series of serial submissions measured: percentiles, every sample,
    the waits outside the judge, the verdicts and the last one's judge timing and PyTorch
    figures (a Submit waits for a measurement in progress: part of its wait outside)."""
    last = subs[-1].get("result") or {}
    return {"p50_s": pct(times, 50), "p90_s": pct(times, 90), "samples_s": times,
            "outside_s": outside_s(times, subs), "verdicts": [s.get("verdict") for s in subs],
            "timing": last.get("timing"), "pytorch": last.get("pytorch")}


def serial(learner, problem, file, mode, n):
    times, subs = [], []
    src = source(problem, file)
    for i in range(n):
        # a comment makes each source new: the build cache would otherwise skip the compile
        t, sub = learner.judge(problem, src + f"\n// bench {time.time_ns()} {i}\n", mode)
        times.append(t)
        subs.append(sub)
    return times, subs


# The phases of a burst's judgings that the table shows (result.timing, "tests." for
# its tests_breakdown): where a judging's time goes when others share the GPU and CPU.
BURST_PHASES = ("total", "runners", "compile", "compile.first", "compile.compiler_wait",
                "tests", "tests.compare", "tests.submission",
                "tests.submission_alloc", "tests.submission_setup", "tests.submission_launch", "tests.submission_checks",
                "tests.submission_return", "tests.submission_free", "tests.submission_lend",
                "tests.reference_wait", "tests.memory_wait", "finish")


def in_judge(subs, wall):
    """How the judge spent a burst: mean judgings at once and the p50 of their phases."""
    timings = [((s.get("result") or {}).get("timing") or {}) for s in subs]
    totals = [t["total_ms"] for t in timings if "total_ms" in t]
    phases = {}
    for t in timings:
        flat = dict(t)
        flat.update({"tests." + k: v for k, v in (t.get("tests_breakdown") or {}).items()})
        flat.update({"compile." + k: v for k, v in (t.get("compile_breakdown") or {}).items()})
        for k, v in flat.items():
            if k.endswith("_ms") and isinstance(v, (int, float)):
                phases.setdefault(k[:-3], []).append(v)
    return {"concurrency": sum(totals) / 1000.0 / wall if wall > 0 else 0,
            "p50_ms": {k: pct(v, 50) for k, v in sorted(phases.items())}}


def fresh(src, language, tag):
    """src with a new comment appended (nothing of it cached), in the language's comments."""
    return src + ("\n# " if language == "triton" else "\n// ") + f"{tag} {time.time_ns()}\n"


def burst(learners, problem, file, mode, runs, language="cuda"):
    src = source(problem, file)
    times, verdicts, subs, lock = [], [], [], threading.Lock()
    errors = []

    def one(lr, k):
        for r in range(runs):
            try:
                t, sub = lr.judge(problem, fresh(src, language, f"{lr.name} {k} {r}"), mode,
                                  language=language)
                with lock:
                    times.append(t)
                    verdicts.append(sub.get("verdict"))
                    subs.append(sub)
            except Exception as e:  # noqa: BLE001 - reported in the summary
                with lock:
                    errors.append(str(e))

    threads = [threading.Thread(target=one, args=(lr, k)) for k, lr in enumerate(learners)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    return {
        "jobs": len(times),
        "wall_s": wall,
        "verdicts_per_min": 60.0 * len(times) / wall if wall > 0 else 0,
        "p50_s": pct(times, 50),
        "p90_s": pct(times, 90),
        "verdicts": {v: verdicts.count(v) for v in set(verdicts)},
        "errors": errors[:5],
        # a Judge Error is the judge's own failure: its reasons, as the learner saw them
        "judge_errors": sorted({s.get("message") or "(no message)" for s in subs
                                if s.get("verdict") == "JE"})[:3],
        "samples_s": times,
        "judge": in_judge(subs, wall),
    }


def compile_of(sub):
    """The judge's compile breakdown of one submission, for the table."""
    tm = ((sub.get("result") or {}).get("timing") or {})
    cb = tm.get("compile_breakdown") or {}
    return {"compile_ms": tm.get("compile_ms"), "compiler_cpu_ms": cb.get("compiler_cpu_ms"),
            "first_ms": cb.get("first_ms"), "wait_ms": cb.get("compiler_wait_ms"),
            "cached": cb.get("builds_cached"), "compiled": cb.get("builds_compiled"),
            "stopped": cb.get("stopped"), "total_ms": tm.get("total_ms")}


def compile_text(cs):
    """p50 of a series' compile breakdowns: 'compile 844 ms (CPU 2100, first 120, wait 0), builds 0+3'."""
    def p50(k):
        xs = [c[k] for c in cs if isinstance(c.get(k), (int, float))]
        return pct(xs, 50) if xs else float("nan")
    return (f"compile {p50('compile_ms'):.0f} ms (CPU {p50('compiler_cpu_ms'):.0f}, first "
            f"{p50('first_ms'):.0f}, wait {p50('wait_ms'):.0f}), builds cached+compiled "
            f"{p50('cached'):.0f}+{p50('compiled'):.0f}")


def triton_form(src):
    """A Triton file's form: "launcher" (a top-level def solve) or "directive"."""
    import re
    return "launcher" if re.search(r"^def solve\(", src, re.M) else "directive"


def triton_serial(learner, problem, file, mode, n):
    """n fresh Triton judgings of problem/file: figures() plus each one's compile breakdown.
    Fresh: a comment appended at the end, outside a launcher's launch code too (its builds'
    key covers it), so nothing is cached."""
    times, subs = [], []
    src = source(problem, file)
    for i in range(n):
        t, sub = learner.judge(problem, fresh(src, "triton", f"bench {i}"), mode, language="triton")
        times.append(t)
        subs.append(sub)
    f = figures(times, subs)
    f["compile"] = [compile_of(s) for s in subs]
    f["form"] = triton_form(src)
    f["screened"] = [b.get("screened") for b in (subs[-1].get("result") or {}).get("benches") or []]
    return f


def launch_edit(src, i):
    """src edited in its launch only, differently for each i: ("solve", text) for a launcher
    (its first kernel[grid](...) in solve gets the grid ((grid), i)[0], the same grid written
    another way; a solve that launches through a helper gets a statement of its own first),
    ("directive", text) for a directive file (its first @launch's grid=( gets "i * 0 + "),
    or (None, src) when there is neither."""
    import re
    m = re.search(r"^def solve\(.*?:[ \t]*(#.*)?\n", src, re.M | re.S)
    if m:
        end = re.compile(r"^\S", re.M).search(src, m.end())  # the next top-level line
        body_end = end.start() if end else len(src)
        for launch in re.compile(r"\b[A-Za-z_]\w*\[").finditer(src, m.end(), body_end):
            depth = 0
            for k in range(launch.end() - 1, body_end):
                depth += {"[": 1, "]": -1}.get(src[k], 0)
                if depth == 0:
                    break
            if depth == 0 and src[k + 1:k + 2] == "(":
                grid = src[launch.end():k]
                return "solve", src[:launch.end()] + f"(({grid}), {i})[0]" + src[k:]
        return "solve", src[:m.end()] + f"    _bench_edit = {i}  # a launch-only edit\n" + \
            src[m.end():]
    if "grid=(" in src:
        return "directive", src.replace("grid=(", f"grid=({i + 2} * 0 + ", 1)
    return None, src


def launch_edits(learner, problem, file, n):
    """A Run of problem/file (its builds then cached), then n Runs edited in the launch only
    (launch_edit: solve's first grid for a launcher, the first @launch's for directives), each
    time differently: every build should come from the cache."""
    src = source(problem, file)
    learner.judge(problem, src, "run", language="triton")
    times, subs, kinds = [], [], set()
    for i in range(n):
        kind, edited = launch_edit(src, i + 2)
        if kind is None:
            raise RuntimeError(f"{problem}/{file}: no launch to edit (neither solve nor @launch)")
        kinds.add(kind)
        t, sub = learner.judge(problem, edited, "run", language="triton")
        times.append(t)
        subs.append(sub)
    f = figures(times, subs)
    f["compile"] = [compile_of(s) for s in subs]
    f["edit"] = "/".join(sorted(kinds))
    return f


def triton_parts(res, a, learners, only, quick, budget_s):
    """The Triton parts within budget_s seconds: the quick targets' Runs (vector-add,
    softmax), the launch-only edit, the burst and flash-attention's Submit, then the slow
    targets' Runs (three of flash-attention's take about a minute), then every other
    problem's, so that a short budget still measures every kind of target."""
    end = time.monotonic() + budget_s
    res["triton"] = {"runs": {}, "skipped": []}
    tr = res["triton"]
    status, st, _ = a.call("GET", "/api/status")
    alive = ((((st or {}).get("workers") or {}).get("languages") or {}).get("triton") or {})
    if status != 200 or not alive.get("gpu"):
        tr["skipped"].append("every Triton part: no worker here runs Triton (Python with triton "
                             "on the GPU worker's PATH, or BLOCKWISE_PYTHON)")
        return

    def left(need):
        return end - time.monotonic() >= need

    solution = TRITON_SOLUTION
    problems = sorted(d for d in os.listdir(PROBLEMS)
                      if os.path.exists(os.path.join(PROBLEMS, d, solution)))
    named = [p for p in TRITON_TARGETS if p in problems]
    others = [p for p in problems if p not in TRITON_TARGETS]
    if quick:
        named, others = problems[:1], problems[1:2]

    def runs_of(ps):
        for p in ps:
            n = 3 if p in named else 1
            for file in (solution, "starter.py"):
                key = f"{p}/{file}"
                if not os.path.exists(os.path.join(PROBLEMS, p, file)):
                    continue
                if not left(20 if p == "flash-attention" else 5):
                    tr["skipped"].append(key)
                    continue
                try:
                    tr["runs"][key] = triton_serial(a, p, file, "run", n)
                except Exception as e:  # noqa: BLE001 - reported in the table
                    tr["runs"][key] = {"error": str(e)}

    quick_targets = named if quick else [p for p in named if TRITON_TARGETS[p][0] < 1.0]
    slow_targets = [p for p in named if p not in quick_targets]
    if "triton_run" in only:
        # warm: the worker's pool, the problem bundles
        try:
            triton_serial(a, problems[0], solution, "run", 1)
        except Exception as e:  # noqa: BLE001 - reported in the table
            tr["error"] = str(e)
        runs_of(quick_targets)
    p_launch = "sgemm" if "sgemm" in problems else problems[0] if quick else None
    if "triton_launch" in only and p_launch:
        if left(30):
            try:
                tr["launch"] = launch_edits(a, p_launch, solution, 3 if quick else 5)
                tr["launch"]["problem"] = p_launch
            except Exception as e:  # noqa: BLE001
                tr["launch"] = {"error": str(e)}
        else:
            tr["skipped"].append("launch-only edit of sgemm")
    if "triton_burst" in only:
        p = "vector-add" if "vector-add" in problems else problems[0]
        who, runs = learners[:min(8, len(learners))] or [a], 2 if quick else 5
        if left(40):
            tr["burst"] = burst(who, p, solution, "run", runs, language="triton")
            tr["burst"]["label"] = f"{len(who)}x{runs} Runs of {p}"
        else:
            tr["skipped"].append(f"burst {len(who)}x{runs}")
    if "triton_submit" in only:
        p = "flash-attention" if "flash-attention" in problems else problems[0]
        if left(40):
            try:
                tr["submit"] = triton_serial(a, p, solution, "submit", 1)
                tr["submit"]["problem"] = p
            except Exception as e:  # noqa: BLE001
                tr["submit"] = {"error": str(e)}
        else:
            tr["skipped"].append(f"Submit of {p}")
    if "triton_run" in only:
        runs_of(slow_targets)
        runs_of(others)


def triton_table(res, line):
    """The Triton lines, each beside its target and the issue's figure before it."""
    tr = res.get("triton")
    if not tr:
        return
    runs = tr.get("runs", {})
    for key, v in runs.items():
        p, file = key.split("/", 1)
        if "error" in v:
            line(f"Triton Run {key}", f"error: {v['error'][:120]}")
            continue
        tgt = ""
        if file != "starter.py" and p in TRITON_TARGETS:
            tgt = f"p50 <= {TRITON_TARGETS[p][0]:.2f} s (was {TRITON_TARGETS[p][1]:.2f})"
        elif file == "starter.py":
            tgt = "failing test 1: p50 <= 0.25 s (was 1.0-2.2)"
        line(f"Triton Run {key} ({v.get('form', '?')}) p50/p90", f"{v['p50_s']:.3f} / {v['p90_s']:.3f} s "
             f"{sorted(set(v['verdicts']))} {compile_text(v['compile'])}", tgt)
    starters = [x for k, v in runs.items() if k.endswith("/starter.py") and "samples_s" in v
                for x in v["samples_s"]]
    wa = [x for k, v in runs.items() if k.endswith("/starter.py") and "samples_s" in v
          for x, vd in zip(v["samples_s"], v["verdicts"]) if vd != "AC"]
    if starters:
        line("Triton starters, all Runs p50/p90", f"{pct(starters, 50):.3f} / {pct(starters, 90):.3f} s "
             f"over {len(starters)}; failing ones p50 {pct(wa, 50):.3f} s over {len(wa)}",
             "failing test 1: p50 <= 0.25 s (CUDA 0.12)")
    if "launch" in tr:
        v = tr["launch"]
        if "error" in v:
            line("Triton launch-only edit", f"error: {v['error'][:120]}")
        else:
            line(f"Triton launch-only edit {v.get('problem', '')} ({v.get('edit', '?')}) p50/p90",
                 f"{v['p50_s']:.3f} / {v['p90_s']:.3f} s "
                 f"{sorted(set(v['verdicts']))} {compile_text(v['compile'])}",
                 "p50 <= 0.8 s, builds compiled 0")
    if "burst" in tr:
        b = tr["burst"]
        j = b["judge"]["p50_ms"]
        line(f"Triton burst {b.get('label', '')}",
             f"{b['verdicts_per_min']:.1f} verdicts/min, p50 {b['p50_s']:.2f} s, p90 {b['p90_s']:.2f} s "
             f"{b['verdicts']}; judge p50 compile {j.get('compile', float('nan')):.0f} ms, "
             f"total {j.get('total', float('nan')):.0f} ms",
             ">= 200/min, p90 <= 3 s (was 116/min; CUDA 255/min)")
        for m in b.get("judge_errors", []):
            line("  Triton burst Judge Error", m[:300])
    if "submit" in tr:
        v = tr["submit"]
        if "error" in v:
            line("Triton Submit", f"error: {v['error'][:120]}")
        else:
            line(f"Triton Submit {v.get('problem', '')} ({v.get('form', '?')})", f"{v['p50_s']:.2f} s {v['verdicts']} "
                 f"{compile_text(v['compile'])}", "<= 10 s (was 26-27)")
            tm = v.get("timing") or {}
            if tm:
                tb, bb = tm.get("tests_breakdown") or {}, tm.get("bench_breakdown") or {}
                line("  Triton Submit in the judge",
                     f"compile {tm.get('compile_ms', 0):.0f} tests {tm.get('tests_ms', 0):.0f} "
                     f"(reference wait {tb.get('reference_wait_ms', 0):.0f}, "
                     f"{tb.get('reference_reused', 0)} cases reused) bench {tm.get('bench_ms', 0):.0f} "
                     f"(gate {bb.get('gate_ms', 0):.0f}, runner {bb.get('runner_ms', 0):.0f}, "
                     f"samples {bb.get('samples_ms', 0):.0f}, switch {bb.get('switch_ms', 0):.0f}) ms; "
                     f"configurations screened out per shape {v.get('screened', [])}; "
                     f"{bb.get('screenings', 0)} screenings, {bb.get('timings', 0)} full timings, "
                     f"{bb.get('screenings_stood', 0)} screenings stood as timings")
            py = v.get("pytorch") or {}
            shown = "shown" if py.get("measured") else (py.get("reason") or "absent")[:160]
            line("  Triton Submit outside the judge",
                 f"{(v.get('outside_s') or [float('nan')])[-1]:.2f} s (the server, the queue, a wait for "
                 f"PyTorch's figures); PyTorch's time: {shown}")
    if tr.get("skipped"):
        line("Triton skipped (budget)", ", ".join(tr["skipped"]))
    if tr.get("error"):
        line("Triton warm-up", f"error: {tr['error'][:200]}")


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    global PROBLEMS, TRITON_SOLUTION
    base, work = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    end = time.monotonic() + float(option("--budget", "1e9"))
    label = option("--label", "")
    PROBLEMS = option("--problems", "problems")
    TRITON_SOLUTION = option("--triton-solution", "solution.py")
    ok_p, ok_f = option("--ok", "vector-add/solution.cu").split("/", 1)
    wa_p, wa_f = option("--wa", "softmax/starter.cu").split("/", 1)
    n, n_learners, runs = (3, 4, 2) if quick else (10, 30, 3)
    res = {"label": label, "quick": quick}
    only = set(option("--only", ",".join(PARTS)).replace(",", " ").split())
    unknown = only - set(PARTS)
    if unknown:
        sys.exit(f"latency.py: --only: unknown parts {sorted(unknown)} (of {', '.join(PARTS)})")
    a = Learner(base, f"bench{os.getpid()}a")
    a.name = "a"

    serial(a, ok_p, ok_f, "run", 1)  # warm: bundles, caches, clocks
    if "run" in only:
        res["run"] = figures(*serial(a, ok_p, ok_f, "run", n))
    if "run_wa" in only:
        res["run_wa"] = figures(*serial(a, wa_p, wa_f, "run", n))
    if "submit" in only:
        res["submit"] = figures(*serial(a, ok_p, ok_f, "submit", max(2, n // 2)))

    learners = []
    for k in range(n_learners if only & {"burst8", "burst", "burst_wa", "precision",
                                         "triton_burst"} else 0):
        lr = Learner(base, f"bench{os.getpid()}l{k}")
        lr.name = f"l{k}"
        learners.append(lr)
    if "burst8" in only:
        res["burst8"] = burst(learners[:min(8, n_learners)], ok_p, ok_f, "run", 2 if quick else 5)
    if only & set(TRITON_PARTS) and "--skip-triton" not in sys.argv:
        # its own budget, leaving the CUDA parts after it a minute of the pass's
        triton_parts(res, a, learners, only, quick,
                     min(float(option("--triton-budget", "150")), end - time.monotonic() - 60))
    skipped = res.setdefault("skipped", [])
    for k, f in (("burst", ok_f), ("burst_wa", wa_f)):
        if k in only and end - time.monotonic() < 45:
            skipped.append(k)
        elif k in only:
            res[k] = burst(learners, ok_p if k == "burst" else wa_p, f, "run", runs)

    # precision while Runs flow: Submits from one learner, Runs from the others
    flow = {"stop": False}

    def background():
        while not flow["stop"]:
            burst(learners[1:4], ok_p, ok_f, "run", 1)

    bg = threading.Thread(target=background)
    medians = {}
    precise = "precision" in only and end - time.monotonic() >= 45
    if "precision" in only and not precise:
        skipped.append("precision")
    if precise:
        bg.start()
    try:
        for i in range((3 if quick else 10) if precise else 0):
            _, sub = a.judge(ok_p, source(ok_p, ok_f) + f"\n// p{i}\n", "submit")
            for b in sub.get("result", {}).get("benches", []):
                medians.setdefault(b["name"], []).append(b["median_ms"])
    finally:
        flow["stop"] = True
        if bg.is_alive():
            bg.join()
    res["precision"] = {k: {"medians_ms": v, "max_over_min": max(v) / min(v)}
                        for k, v in medians.items() if v and min(v) > 0}

    problems = sorted(d for d in os.listdir(PROBLEMS)
                      if os.path.exists(os.path.join(PROBLEMS, d, "problem.json")))
    if quick:
        problems = problems[:3]
    if "--solutions" in sys.argv:
        problems = [p for p in option("--solutions", "").split(",") if p]
    if "--skip-solutions" in sys.argv or "solutions" not in only:
        problems = []
    res["solutions"] = {}
    for p in problems:
        if end - time.monotonic() < 20:
            res["solutions"][p] = {"error": "skipped: the bench's budget ran out"}
            continue
        try:
            t, sub = a.judge(p, source(p, "solution.cu") + f"\n// s {time.time_ns()}\n", "submit")
            r = sub.get("result") or {}
            res["solutions"][p] = {"s": t, "verdict": sub.get("verdict"), "score": r.get("score"),
                                   "sol_pct": {b["name"]: b.get("sol_pct") for b in r.get("benches", [])},
                                   "timing": r.get("timing")}
        except Exception as e:  # noqa: BLE001 - reported in the table
            res["solutions"][p] = {"error": str(e)}
    # The sweep's Submits find the worker's build cache cold for each reference.cu:
    # flash-attention again (its own source changed, so compiled again) is the warm figure.
    if "s" in res["solutions"].get("flash-attention", {}) and end - time.monotonic() > 15:
        try:
            t, sub = a.judge("flash-attention", source("flash-attention", "solution.cu") +
                             f"\n// w {time.time_ns()}\n", "submit")
            res["flash_warm"] = {"s": t, "verdict": sub.get("verdict"),
                                 "timing": sub.get("result", {}).get("timing")}
        except Exception as e:  # noqa: BLE001 - reported in the table
            res["flash_warm"] = {"error": str(e)}

    with open(os.path.join(work, "latency.json"), "w") as f:
        json.dump(res, f, indent=1)

    def line(name, v, target=""):
        print(f"{label:<10} {name:<34} {v}{'   target ' + target if target else ''}")

    for k, what, tgt in (("run", "Run vector-add", "p50 <= 0.30 s (was 1.43)"),
                         ("run_wa", "Run failing test 1", "p50 <= 0.15 s (was 0.67)"),
                         ("submit", "Submit vector-add", "p50 <= 1.0 s (was 1.67)")):
        if k in res:
            line(f"{what} p50 / p90", f"{res[k]['p50_s']:.3f} / {res[k]['p90_s']:.3f} s", tgt)
    n8, runs8 = min(8, n_learners), 2 if quick else 5
    for k, waiting, who, tgt in (
            ("burst8", n8, f"{n8}x{runs8}", ">= 240/min, p90 <= 3 s (was 42.6/min, p50 11.2 s)"),
            ("burst", n_learners, f"{n_learners}x{runs}", f">= 240/min (p90 about {n_learners} / rate)"),
            ("burst_wa", n_learners, f"{n_learners}x{runs}", ">= 300/min (was 86.5/min)")):
        if k not in res:
            continue
        b = res[k]
        rate = b["verdicts_per_min"] / 60.0
        little = f", {waiting} waiting / rate = {waiting / rate:.2f} s" if rate > 0 else ""
        line(f"{k} {who}", f"{b['verdicts_per_min']:.1f} verdicts/min, p50 {b['p50_s']:.2f} s, "
             f"p90 {b['p90_s']:.2f} s{little} {b['verdicts']}", tgt)
        for m in b.get("judge_errors", []):
            line(f"  {k} Judge Error", m[:300])
        j = b["judge"]
        shown = [x for x in BURST_PHASES if x in j["p50_ms"]]
        line(f"  {k} in the judge", f"{j['concurrency']:.2f} judgings at once; p50 " +
             " ".join(f"{x} {j['p50_ms'][x]:.0f}" for x in shown) + " ms")
    triton_table(res, line)
    if res.get("skipped"):
        line("skipped (budget)", ", ".join(res["skipped"]))
    for shape, v in res["precision"].items():
        line(f"precision {shape}", f"max/min {v['max_over_min']:.4f} over {len(v['medians_ms'])}", "<= 1.02 (was 1.0022)")
    for p, v in res["solutions"].items():
        sol = ", ".join(f"{b} {x:.0f}%" for b, x in (v.get("sol_pct") or {}).items() if x is not None)
        score = f" score {v['score']:.1f}" if v.get("score") is not None else ""
        line(f"Submit {p}", f"{v.get('s', float('nan')):.2f} s {v.get('verdict', v.get('error', ''))}{score}"
             f"{' (SoL ' + sol + ')' if sol else ''}", "flash-attention <= 3 s" if p == "flash-attention" else "")
    if "flash_warm" in res:
        v = res["flash_warm"]
        line("Submit flash-attention, warm", f"{v.get('s', float('nan')):.2f} s {v.get('verdict', v.get('error', ''))}", "<= 3 s (reference build cached)")
    for k in ("run", "run_wa", "submit"):
        if k not in res:
            continue
        o = res[k]["outside_s"]
        line(f"outside the judge {k} p50 / p90", f"{pct(o, 50) * 1000:.0f} / {pct(o, 90) * 1000:.0f} ms"
             " (the wait beyond the judge's total_ms)")
    for k in ("run", "run_wa", "submit", "flash_warm"):
        tm = (res.get(k) or {}).get("timing") or {}
        if not tm:
            continue
        parts = [f"{x[:-3]} {tm[x]:.0f}" for x in sorted(tm) if x.endswith("_ms")]
        parts += [f"{x[:-3] if x.endswith('_ms') else x} {v:.0f}"
                  for x, v in sorted((tm.get("tests_breakdown") or {}).items())]
        if tm.get("bench_ms"):
            parts += [f"bench.{x[:-3] if x.endswith('_ms') else x} {v:.0f}"
                      for x, v in sorted((tm.get("bench_breakdown") or {}).items())]
        line(f"breakdown {k}", " ".join(parts) + " ms")


if __name__ == "__main__":
    main()
