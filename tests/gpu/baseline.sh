#!/usr/bin/env bash
# baseline.sh - on the GPU machine: PyTorch's time on every problem's benchmark shapes as the
# worker measures it (judged baseline: each problem's baseline.py, timed the judge's way), held
# against an independent timing of the same PyTorch call for the matmul and attention problems
# (scripts/triton-speed.py's torch_time: the driver's warm-up, CUDA events, L2 zeroed before each
# call, median of 20; inputs drawn from the benchmark's data profile, as the worker's are: a
# tensor-core GEMM's power, so its clock, depends on its operands) in the same run: within 5%.
# Each problem's independent timing follows its own judged measurement at once, in a fresh
# Python as the worker's is, and each of its shapes after the driver's rest (BW_BASELINE_REST_MS,
# 1 s): on a power-capped GPU a large GEMM keeps its boost clock for its first ~150 ms of work
# only, so torch_time's shapes timed back to back (each 150 ms of work after the last) ran up
# to 10% slower than the same shapes timed from rest (an H200, 2026-12-05; the H100's course:
# scripts/diag/power-course.py); and each with the driver's warm-up (BW_BASELINE_WARMUP_MS,
# 500 ms: past the boost, whose end moves from run to run). Then, as long as the budget lasts, each baseline.py against the
# reference on the problem's small test cases (judged baseline --check; what does not fit is
# named with the command that runs it). Needs PyTorch ($BLOCKWISE_PYTHON, else python3). One
# call of the GPU machine; not part of make gpu-test (it would not fit that one call), so it is
# not executable: run it on its own,
#   bash tests/gpu/baseline.sh BUILD          (BASELINE_BUDGET_S, default 570)
# BASELINE_PROBLEMS="sgemm sdpa ..." measures and checks only those problems (a short call).
# BASELINE_CHECK=0 leaves out the checks against the reference (a call about timing only).
set -u
build=${1:-build}
judged=$build/bin/judged
budget=${BASELINE_BUDGET_S:-570}
only=" ${BASELINE_PROBLEMS:-} "
chosen() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }
py=${BLOCKWISE_PYTHON:-python3}
start=$(date +%s)
pass=0 fail=0 skip=0
if [ ! -e /dev/nvidia0 ] && ! command -v nvidia-smi >/dev/null; then
    echo "skip: no GPU on this machine"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
if ! "$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    echo "skip: $py has no PyTorch with CUDA (set BLOCKWISE_PYTHON)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$build/test-logs"

# The independent timing of one matmul or attention problem's shapes (python3 agree.py
# M.json P): torch_time of its baseline.py on inputs drawn from each benchmark's data profile,
# against the judged figure of the shape: within 5%.
cat >"$T/agree.py" <<'PY'
import importlib.util, json, sys, time
import torch
spec = importlib.util.spec_from_file_location("triton_speed", "scripts/triton-speed.py")
ts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ts)
d = sys.argv[2]
try:
    r = json.load(open(sys.argv[1])).get(d) or {}
except ValueError:
    r = {}
shapes = r.get("shapes") or []
if r.get("error") or not shapes or any(s.get("error") or not s.get("median_ms") for s in shapes):
    sys.exit(0)  # not measured: the measurement lines say why
REST_S = r["method"]["rest_ms"] / 1000  # the driver's rest before each shape
WARMUP_S = r["method"]["warmup_ms"] / 1000  # and its warm-up
for s in shapes:
    call, kw = ts.baseline_call(d, s["name"], torch)
    torch.cuda.synchronize()
    time.sleep(REST_S)  # from rest, as the driver times each shape
    ref = ts.torch_time(call, torch, warmup_s=WARMUP_S)
    ratio = s["median_ms"] / ref
    what = f"{d} {s['name']}: judged {s['median_ms']:.4f} ms, torch_time {ref:.4f} ms: {ratio:.3f}"
    if abs(ratio - 1) <= 0.05:
        print("ok   " + what + " (within 5% required)")
    else:  # the judged samples' spread: a spread one says the GPU's clock moved while sampling
        print(f"FAIL {what} (within 5% required; judged {s.get('samples')} samples, p10-p90 "
              f"{s.get('p10_ms', 0):.4f}-{s.get('p90_ms', 0):.4f} ms)")
    del call, kw
    torch.cuda.empty_cache()
PY
# The SM clock, power and temperature now: a power-capped GPU's clock is what moves a timing.
gpu_state() {
    nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>/dev/null |
        head -n 1 || echo "unknown"
}
AGREE="sgemm matmul-bias-relu autotuned-matmul grouped-matmul split-k-matmul block-pointer-matmul sdpa flash-attention"
: >"$T/agree.txt"

# 1. Every problem's baseline, measured as a worker does, one judged call each (a problem that
#    hangs costs only its own), while the budget lasts; a matmul or attention problem's
#    independent timing right after it (a fresh Python each: about 10 s more a problem).
for d in problems/*/; do
    p=$(basename "$d")
    [ -f "$d/baseline.py" ] && chosen "$p" || continue
    if [ $(($(date +%s) - start)) -gt $((budget - 60)) ]; then
        skip=$((skip + 1))
        echo "skip $p: over the ${budget} s budget (run: $judged baseline $d)"
        continue
    fi
    before=$(gpu_state)
    timeout 150 "$judged" baseline --json "$d" >"$T/m-$p.json" 2>"$T/m-$p.err" ||
        echo "  judged baseline $p: exit $? $(tail -c 300 "$T/m-$p.err")"
    # the matmul and attention problems: their independent timing now, on the same GPU state
    case " $AGREE " in *" $p "*)
        echo "info $p: the GPU before judged baseline: $before; before torch_time: $(gpu_state)" >>"$T/agree.txt"
        timeout 120 "$py" "$T/agree.py" "$T/m-$p.json" "$p" >>"$T/agree.txt" 2>&1 ||
            echo "FAIL $p: the independent timing: exit $? $(tail -n 3 "$T/agree.txt" | tr '\n' ' ')" >>"$T/agree.txt"
        ;;
    esac
done
"$py" -c 'import glob, json, sys
out = {}
for f in glob.glob(sys.argv[1] + "/m-*.json"):
    try:
        out.update(json.load(open(f)))
    except ValueError:
        pass
json.dump(out, open(sys.argv[1] + "/all.json", "w"), indent=1)' "$T"
echo "judged baseline: $(($(date +%s) - start)) s (figures: $build/test-logs/baseline-measure.json)"
cp "$T/all.json" "$build/test-logs/baseline-measure.json" 2>/dev/null

# 2. Each problem's measurement on every shape (the agreement lines came with it, above).
"$py" - "$T/all.json" >"$T/list.txt" 2>&1 <<'PY'
import json, os, sys
try:
    got = json.load(open(sys.argv[1]))
except ValueError:
    got = {}
for d in sorted(os.listdir("problems")):
    r = got.get(d)
    if not os.path.exists(f"problems/{d}/baseline.py") or r is None:
        continue  # no baseline, or skipped over the budget (said above)
    if r.get("error") or not r.get("shapes"):
        print(f"FAIL {d}: not measured: {r.get('error', 'no figures')[:300]}")
        continue
    bad = [s for s in r["shapes"] if s.get("error") or not s.get("median_ms")]
    if bad:
        print(f"FAIL {d}: {bad[0]['name']}: {bad[0].get('error', 'no time')[:300]}")
        continue
    line = ", ".join(f"{s['name']} {s['median_ms']:.4f} ms (n {s['samples']}, {s['stop']})"
                     for s in r["shapes"])
    print(f"ok   {d}: PyTorch {r['torch']} on {len(r['shapes'])} shapes: {line}")
PY
cat "$T/list.txt" "$T/agree.txt"
pass=$((pass + $(cat "$T/list.txt" "$T/agree.txt" | grep -c '^ok ')))
fail=$((fail + $(cat "$T/list.txt" "$T/agree.txt" | grep -c '^FAIL')))
grep -q "^Traceback" "$T/list.txt" && fail=$((fail + 1)) # agree.py's exit said so above
[ "$(cat "$T/all.json")" != "{}" ] || { fail=$((fail + 1)); echo "FAIL judged baseline measured nothing: $(cat "$T"/m-*.err | tail -c 600)"; }

# 3. baseline.py against the reference, problem by problem, while the budget lasts.
[ "${BASELINE_CHECK:-1}" = 0 ] && echo "skip the checks against the reference: BASELINE_CHECK=0" && skip=$((skip + 1))
for d in problems/*/; do
    [ "${BASELINE_CHECK:-1}" = 0 ] && break
    p=$(basename "$d")
    [ -f "$d/baseline.py" ] && chosen "$p" || continue
    if [ $(($(date +%s) - start)) -gt $((budget - 20)) ]; then
        skip=$((skip + 1))
        echo "skip $p --check: over the ${budget} s budget (run: $judged baseline --check $d)"
        continue
    fi
    if timeout 120 "$judged" baseline --check "$d" >"$T/check.txt" 2>&1; then
        if grep -q "^skip" "$T/check.txt"; then
            skip=$((skip + 1))
            echo "skip $p --check: $(grep -o 'not checked.*' "$T/check.txt")"
            continue
        fi
        pass=$((pass + 1))
        echo "ok   $p: baseline.py matches the reference ($(grep -o '[0-9]* test cases' "$T/check.txt"))"
    else
        fail=$((fail + 1))
        echo "FAIL $p --check: $(head -c 900 "$T/check.txt")"
    fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
