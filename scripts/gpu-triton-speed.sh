#!/usr/bin/env bash
# gpu-triton-speed.sh - issue 27 ("Triton verdicts at CUDA speed") on the GPU
# machine, in one device call of at most 600 s, on an existing build:
#   1. the real Triton's compile tests (BW_TRITON_REAL=1 test_triton_compile):
#      the pool's warm compilers and their resident memory, isolation between
#      two requests through warm compilers, the hostile programs;
#   2. where a Triton Run's time goes: `judged check --tests-only --json` of the
#      issue's five solutions and two starters (compile, first builds, the
#      compiler's CPU, the tests), each with a fresh judged (so no warm pool:
#      the worst case of a lone check);
#   3. what a learner feels, through the server and one worker with 2 slots:
#      tests/bench/latency.sh's Triton parts beside the CUDA Run figures
#      (LATENCY_ONLY, default run,run_wa,burst8 and every triton_* part).
# The summary is $OUT/summary.txt (default /tmp/gpu-triton-speed); logs beside it.
#   scripts/gpu-triton-speed.sh BUILD [BUDGET_S]     (from the repository root)
set -u
build=${1:-build}
budget=${2:-570}
out=${OUT:-/tmp/gpu-triton-speed}
mkdir -p "$out"
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }
export BLOCKWISE_PYTHON=${BLOCKWISE_PYTHON:-$(command -v python3)}
judged=$build/bin/judged

main() {
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
echo "$(nproc) CPUs; Triton $("$BLOCKWISE_PYTHON" -c 'import triton; print(triton.__version__)' 2>&1)"
"$judged" calibrate >/dev/null 2>&1

echo "== 1. the real Triton's compile tests ($(left) s left)"
for t in ${TESTS:-a_warm a_pool hostile}; do
    BW_TRITON_REAL=1 timeout -k 5 150 "$build/tests/test_triton_compile" "$t"
done >"$out/test_triton_compile.log" 2>&1
grep -E "warm compilers|warm compiler's|^FAIL|passed" "$out/test_triton_compile.log" | sed 's/^/  /'

echo "== 2. judged check --tests-only, a fresh judged each ($(left) s left)"
for f in vector-add/solution.py softmax/solution.py layernorm-forward/solution.py \
    sgemm/solution.py flash-attention/solution.py vector-add/starter.py softmax/starter.py; do
    [ "$(left)" -lt 200 ] && { echo "  $f: skipped (time)"; continue; }
    t0=$(date +%s%N)
    timeout 120 "$judged" check --tests-only --json "problems/${f%%/*}" "problems/$f" \
        >"$out/check.json" 2>>"$out/check.log"
    python3 - "$f" "$((($(date +%s%N) - t0) / 1000000))" "$out/check.json" <<'PY'
import json, sys
f, wall, path = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"  {f:32s} no result: {e}")
    sys.exit()
t = d["timing"]
c = t.get("compile_breakdown", {})
print(f"  {f:32s} {d['verdict']} in {wall} ms (judging {t['total_ms']:.0f} ms): compile {t['compile_ms']:.0f}"
      f" (first builds {c.get('first_ms', 0):.0f}, wait {c.get('compiler_wait_ms', 0):.0f},"
      f" CPU {c.get('compiler_cpu_ms', 0):.0f}, builds {c.get('builds_compiled', 0)},"
      f" streamed {c.get('streamed')}, stopped {c.get('stopped')}), runners {t['runners_ms']:.0f},"
      f" tests {t['tests_ms']:.0f} (waiting for builds {c.get('tests_build_wait_ms', 0):.0f})")
PY
done

echo "== 3. through the server, 2 slots ($(left) s left)"
if [ "$(left)" -gt 120 ]; then
    OUT=$out timeout -k 5 $(($(left) - 10)) tests/bench/latency.sh "$build" --slots 2 \
        --only "${LATENCY_ONLY:-run,run_wa,burst8,triton_run,triton_launch,triton_burst,triton_submit}" \
        --budget $(($(left) - 20)) --triton-budget $(($(left) - 80)) 2>&1 | sed 's/^/  /'
    grep -h "triton pool" "$out"/latency-judged-slots2.log | head -3 | sed 's/^/  /'
fi
echo "== done with $(left) s left"
}

main 2>&1 | tee "$out/summary.txt"
