#!/usr/bin/env bash
# run.sh - Blockwise's judge benchmarks (make bench), on the GPU machine, on an
# existing build. Full logs go to $OUT (or BUILD/bench); a short table is last.
#
#   1. latency: `judged check --tests-only` and full `judged check` of P1's solution
#   2. precision: P1's solution judged 10 times; max/min of its median per shape
#   3. accuracy: the same kernel and size timed independently (CuPy + events + L2 flush)
#   4. calibration: the judge's copy bandwidth vs PyTorch's device-to-device copy
#   5. speed-of-light % of every problem's solution at its benchmark shapes
#   6. the trusted comparison's throughput on this CPU (tests/bench/compare_bench.c)
#   7. the server: tests/bench/server.sh
#   8. what a learner feels: tests/bench/latency.sh (Run and Submit latency
#      through the server and a worker, class bursts, every solution's Submit,
#      precision while Runs flow), with 1 and 2 job slots compared
set -u
build=${1:-build}
out=${OUT:-$build/bench}
mkdir -p "$out"
judged=$build/bin/judged
p1=problems/vector-add
log=$out/bench.log
: >"$log"

wall() { # COMMAND... -> prints seconds of wall time, output appended to the log
    local s e
    s=$(date +%s.%N)
    "$@" >>"$log" 2>&1
    e=$(date +%s.%N)
    python3 -c "print(f'{$e-$s:.3f}')"
}

echo "== calibration" | tee -a "$log"
"$judged" calibrate --recalibrate | tee -a "$log"

echo "== latency" | tee -a "$log"
"$judged" check --tests-only "$p1" "$p1/solution.cu" >>"$log" 2>&1 # warm caches
t_tests=() t_full=()
for i in 1 2 3 4 5; do t_tests+=("$(wall "$judged" check --tests-only "$p1" "$p1/solution.cu")"); done
for i in 1 2 3; do t_full+=("$(wall "$judged" check "$p1" "$p1/solution.cu")"); done
echo "tests-only: ${t_tests[*]} s; full: ${t_full[*]} s" | tee -a "$log"

echo "== precision (10 full checks of P1's solution)" | tee -a "$log"
for i in $(seq 1 10); do
    "$judged" check --json "$p1" "$p1/solution.cu" >"$out/p1-run$i.json" 2>>"$log"
done

echo "== accuracy and copy bandwidth (CuPy / PyTorch)" | tee -a "$log"
n=$(python3 -c 'import json; print([b for b in json.load(open("problems/vector-add/problem.json"))["benchmarks"]][0]["sizes"]["N"])')
python3 tests/bench/accuracy.py tests/hostile/run/good.cu vector_add "$n" 256 >"$out/accuracy.json" 2>>"$log"
"$judged" check --json "$p1" tests/hostile/run/good.cu >"$out/good.json" 2>>"$log"
"$judged" calibrate >"$out/calibration.txt" 2>>"$log"

echo "== speed of light of every solution" | tee -a "$log"
for d in problems/*/; do
    "$judged" check --json "$d" "$d/solution.cu" >"$out/sol-$(basename "$d").json" 2>>"$log"
done

python3 - "$out" "${t_tests[*]}" "${t_full[*]}" <<'PY' | tee "$out/summary.txt"
import glob, json, os, statistics, sys
out, t_tests, t_full = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def load(p):
    try: return json.load(open(p))
    except Exception as e: return {"error": str(e)}
print("machine:", load(f"{out}/p1-run1.json").get("gpu", {}).get("name", "?"))
print(f"latency  check --tests-only: median {statistics.median(map(float, t_tests)):.3f} s (target <= 0.5)")
print(f"latency  full check:         median {statistics.median(map(float, t_full)):.3f} s (target <= 3)")
runs = [load(p) for p in sorted(glob.glob(f"{out}/p1-run*.json"))]
shapes = {}
for r in runs:
    for b in r.get("benches", []):
        shapes.setdefault(b["name"], []).append(b["median_ms"])
for name, ms in shapes.items():
    print(f"precision {name}: {len(ms)} runs, median of medians {statistics.median(ms):.4f} ms, max/min {max(ms)/min(ms):.4f} (target <= 1.02)")
acc, good = load(f"{out}/accuracy.json"), load(f"{out}/good.json")
if "kernel_median_ms" in acc and good.get("benches"):
    j = good["benches"][0]["median_ms"]
    print(f"accuracy  judge {j:.4f} ms vs CuPy events {acc['kernel_median_ms']:.4f} ms: ratio {j/acc['kernel_median_ms']:.4f} (target within 3%)")
    g = good.get("gpu", {})
    if g.get("copy_gbps"):
        print(f"calibration copy {g['copy_gbps']:.0f} GB/s vs PyTorch {acc['torch_copy_gbps']:.0f} GB/s: ratio {g['copy_gbps']/acc['torch_copy_gbps']:.4f} (target within 5%)")
else:
    print("accuracy  not measured:", acc.get("error", ""), good.get("message", ""))
for p in sorted(glob.glob(f"{out}/sol-*.json")):
    r = load(p)
    name = os.path.basename(p)[4:-5]
    parts = ", ".join(f"{b['name']} {b['sol_pct']:.1f}%" for b in r.get("benches", []))
    print(f"SoL      {name}: {r.get('verdict', '?')} score {r.get('score', 0):.1f} ({parts})")
PY

echo "== trusted comparison on the CPU (part of every verdict's latency)" | tee -a "$log"
"$build/tests/compare_bench" | tee -a "$log" "$out/summary.txt"

echo "== server (problem list vs nginx, 2,000 event streams, 1,000 submissions)" | tee -a "$log"
tests/bench/server.sh "$build" | tee -a "$out/summary.txt"

echo "== what a learner feels (server + one judged worker; 1 and 2 job slots)" | tee -a "$log"
OUT=$out tests/bench/latency.sh "$build" --slots "1 2" | tee -a "$out/summary.txt"
