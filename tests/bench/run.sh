#!/usr/bin/env bash
# run.sh - Blockwise's judge benchmarks (make bench), on the GPU machine, on an
# existing build, within one call of it: BENCH_BUDGET_S (default 570) seconds
# in all. Full logs go to $OUT (or BUILD/bench); a short table is last.
#
#   1. calibration: the judge's copy bandwidth (recalibrated)
#   2. latency of `judged check --tests-only` and a full `judged check` of P1's solution
#   3. precision: P1's solution judged 10 times; max/min of its median per shape
#   4. accuracy: the same kernel and size timed independently (CuPy + events +
#      L2 flush), and the judge's copy bandwidth vs PyTorch's device-to-device copy
#   5. the trusted comparison's throughput on this CPU (tests/bench/compare_bench.c)
#   6. the server: tests/bench/server.sh
#   7. what a learner feels: tests/bench/latency.sh, through the server and one
#      worker: Run and Submit latency, class bursts and how the judge spent them,
#      precision while Runs flow, every problem's Submit with its score and
#      speed of light (with the default slot count, 2), then the bursts again
#      with 1 and 3 slots, in the same run, as far as the budget goes; Triton
#      beside CUDA in the first pass (issue 27: every problem's solution.py and
#      starter.py Run, flash-attention's Submit, a class burst, a launch-only
#      edit of sgemm, with the judge's compile breakdown and the targets),
#      within TRITON_BUDGET_S (default 150) of it.
# A part that cannot finish in what is left of the budget is skipped and says
# so in the table; the learner-felt part gets all that is left.
#   tests/bench/run.sh BUILD        BENCH_SLOTS="2 1 3" to choose the slot counts
# accuracy.py needs CuPy and PyTorch: $BLOCKWISE_PYTHON (else python3) runs it.
set -u
build=${1:-build}
out=${OUT:-$build/bench}
mkdir -p "$out"
judged=$build/bin/judged
p1=problems/vector-add
log=$out/bench.log
summary=$out/summary.txt
: >"$log"
: >"$summary"
deadline=$((SECONDS + ${BENCH_BUDGET_S:-570}))
left() { echo $((deadline - SECONDS)); }

# part NAME NEEDS_S: true when NEEDS_S seconds are left, else a "skipped" line
part() {
    echo "== $1 ($(left) s left)" | tee -a "$log"
    [ "$(left)" -ge "$2" ] && return 0
    echo "$1: skipped, $(left) s left of the budget and it needs about $2 s" | tee -a "$summary"
    return 1
}

wall() { # COMMAND... -> prints seconds of wall time, output appended to the log
    local s e
    s=$(date +%s.%N)
    "$@" >>"$log" 2>&1
    e=$(date +%s.%N)
    python3 -c "print(f'{$e-$s:.3f}')"
}

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "machine: ${gpu:-no GPU}, $(nproc) CPUs" | tee -a "$summary"
part calibration 30 && "$judged" calibrate --recalibrate >>"$log" 2>&1

t_tests=() t_full=()
if part "judged check latency" 30; then
    "$judged" check --tests-only "$p1" "$p1/solution.cu" >>"$log" 2>&1 # warm caches
    for i in 1 2 3 4 5; do t_tests+=("$(wall "$judged" check --tests-only "$p1" "$p1/solution.cu")"); done
    for i in 1 2 3; do t_full+=("$(wall "$judged" check "$p1" "$p1/solution.cu")"); done
fi
if part "precision (10 full checks of P1's solution)" 40; then
    for i in $(seq 1 10); do
        "$judged" check --json "$p1" "$p1/solution.cu" >"$out/p1-run$i.json" 2>>"$log"
    done
fi
if part "accuracy and copy bandwidth (CuPy / PyTorch)" 60; then
    n=$(python3 -c 'import json; print([b for b in json.load(open("problems/vector-add/problem.json"))["benchmarks"]][0]["sizes"]["N"])')
    timeout 120 "${BLOCKWISE_PYTHON:-python3}" tests/bench/accuracy.py tests/hostile/run/good.cu vector_add "$n" 256 >"$out/accuracy.json" 2>>"$log"
    "$judged" check --json "$p1" tests/hostile/run/good.cu >"$out/good.json" 2>>"$log"
fi

python3 - "$out" "${t_tests[*]}" "${t_full[*]}" <<'PY' | tee -a "$summary"
import glob, json, statistics, sys
out, t_tests, t_full = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def load(p):
    try: return json.load(open(p))
    except Exception as e: return {"error": str(e)}
if t_tests:
    print(f"latency  check --tests-only: median {statistics.median(map(float, t_tests)):.3f} s (a judged process each: CUDA starts in it)")
    print(f"latency  full check:         median {statistics.median(map(float, t_full)):.3f} s")
shapes = {}
for r in [load(p) for p in sorted(glob.glob(f"{out}/p1-run*.json"))]:
    for b in r.get("benches", []):
        shapes.setdefault(b["name"], []).append(b["median_ms"])
for name, ms in shapes.items():
    print(f"precision {name}: {len(ms)} checks, median of medians {statistics.median(ms):.4f} ms, "
          f"max/min {max(ms)/min(ms):.4f} (target <= 1.02, was 1.0022)")
acc, good = load(f"{out}/accuracy.json"), load(f"{out}/good.json")
if "kernel_median_ms" in acc and good.get("benches"):
    j = good["benches"][0]["median_ms"]
    print(f"accuracy  judge {j:.4f} ms vs CuPy events {acc['kernel_median_ms']:.4f} ms: "
          f"ratio {j/acc['kernel_median_ms']:.4f} (target within 3%, was 0.9991)")
    g = good.get("gpu", {})
    if g.get("copy_gbps"):
        print(f"calibration copy {g['copy_gbps']:.0f} GB/s vs PyTorch {acc['torch_copy_gbps']:.0f} GB/s: "
              f"ratio {g['copy_gbps']/acc['torch_copy_gbps']:.4f} (target within 5%)")
elif acc or good:
    print("accuracy  not measured:", acc.get("error", ""), good.get("message", ""))
PY

part "trusted comparison on the CPU" 30 && timeout 120 "$build/tests/compare_bench" | tee -a "$log" "$summary"
part "store: submissions/s and claims/s, SQLite and PostgreSQL with 1 and 2 servers" 60 &&
    timeout 150 tests/bench/store.sh "$build" | tee -a "$summary"
part "server (problem list vs nginx, 2,000 event streams, 1,000 submissions)" 150 &&
    timeout $(($(left) - 120)) tests/bench/server.sh "$build" | tee -a "$summary"
if part "what a learner feels (server + one judged worker)" 120; then
    OUT=$out timeout -k 5 $(($(left) - 5)) tests/bench/latency.sh "$build" --slots "${BENCH_SLOTS:-2 1 3}" \
        --budget $(($(left) - 15)) --triton-budget "${TRITON_BUDGET_S:-150}" |
        tee -a "$summary"
fi
echo "== summary ($((${BENCH_BUDGET_S:-570} - $(left))) s)"
cat "$summary"
# On the GPU machine's call, what comes back is 8 files of $OUT: the summary, the logs, one archive.
[ -n "${OUT:-}" ] && scripts/pack-out.sh "$out" summary.txt '*.log' >>"$log"
exit 0
