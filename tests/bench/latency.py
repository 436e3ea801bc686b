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

--budget S: the Submits of every problem's solution stop when fewer than 20 of
S seconds are left (the rest are listed as skipped), so the table is written.
--only run,submit,...: only those parts (of run, run_wa, submit, burst8, burst,
burst_wa, precision, solutions), for a short call of the GPU machine;
--solutions P,P: the sweep Submits only those problems' solutions.
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

    def judge(self, problem, source, mode, deadline_s=600):
        """Posts one submission and waits for it: (seconds, the submission)."""
        body = json.dumps({"problem": problem, "mode": mode, "source": source})
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
PARTS = ("run", "run_wa", "submit", "burst8", "burst", "burst_wa", "precision", "solutions")


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
    the waits outside the judge, the verdicts and the last one's judge timing."""
    return {"p50_s": pct(times, 50), "p90_s": pct(times, 90), "samples_s": times,
            "outside_s": outside_s(times, subs), "verdicts": [s.get("verdict") for s in subs],
            "timing": subs[-1].get("result", {}).get("timing")}


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
BURST_PHASES = ("total", "runners", "compile", "tests", "tests.compare", "tests.submission",
                "tests.submission_setup", "tests.submission_launch", "tests.submission_checks",
                "tests.submission_return", "tests.submission_free", "tests.submission_lend",
                "tests.reference_wait", "finish")


def in_judge(subs, wall):
    """How the judge spent a burst: mean judgings at once and the p50 of their phases."""
    timings = [((s.get("result") or {}).get("timing") or {}) for s in subs]
    totals = [t["total_ms"] for t in timings if "total_ms" in t]
    phases = {}
    for t in timings:
        flat = dict(t)
        flat.update({"tests." + k: v for k, v in (t.get("tests_breakdown") or {}).items()})
        for k, v in flat.items():
            if k.endswith("_ms") and isinstance(v, (int, float)):
                phases.setdefault(k[:-3], []).append(v)
    return {"concurrency": sum(totals) / 1000.0 / wall if wall > 0 else 0,
            "p50_ms": {k: pct(v, 50) for k, v in sorted(phases.items())}}


def burst(learners, problem, file, mode, runs):
    src = source(problem, file)
    times, verdicts, subs, lock = [], [], [], threading.Lock()
    errors = []

    def one(lr, k):
        for r in range(runs):
            try:
                t, sub = lr.judge(problem, src + f"\n// {lr.name} {k} {r} {time.time_ns()}\n", mode)
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
        "samples_s": times,
        "judge": in_judge(subs, wall),
    }


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    global PROBLEMS
    base, work = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    end = time.monotonic() + float(option("--budget", "1e9"))
    label = option("--label", "")
    PROBLEMS = option("--problems", "problems")
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
    for k in range(n_learners if only & {"burst8", "burst", "burst_wa", "precision"} else 0):
        lr = Learner(base, f"bench{os.getpid()}l{k}")
        lr.name = f"l{k}"
        learners.append(lr)
    if "burst8" in only:
        res["burst8"] = burst(learners[:min(8, n_learners)], ok_p, ok_f, "run", 2 if quick else 5)
    if "burst" in only:
        res["burst"] = burst(learners, ok_p, ok_f, "run", runs)
    if "burst_wa" in only:
        res["burst_wa"] = burst(learners, wa_p, wa_f, "run", runs)

    # precision while Runs flow: Submits from one learner, Runs from the others
    flow = {"stop": False}

    def background():
        while not flow["stop"]:
            burst(learners[1:4], ok_p, ok_f, "run", 1)

    bg = threading.Thread(target=background)
    medians = {}
    if "precision" in only:
        bg.start()
    try:
        for i in range((3 if quick else 10) if "precision" in only else 0):
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
        j = b["judge"]
        shown = [x for x in BURST_PHASES if x in j["p50_ms"]]
        line(f"  {k} in the judge", f"{j['concurrency']:.2f} judgings at once; p50 " +
             " ".join(f"{x} {j['p50_ms'][x]:.0f}" for x in shown) + " ms")
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
            parts += [f"bench.{x[:-3]} {v:.0f}" for x, v in sorted((tm.get("bench_breakdown") or {}).items())]
        line(f"breakdown {k}", " ".join(parts) + " ms")


if __name__ == "__main__":
    main()
