#!/usr/bin/env bash
# gpu-next.sh - the GPU work outstanding after 2026-12-02's first call (issues
# 10 and 11), for one device call of at most 600 s:
#   1. tests/gpu/runner.sh: the runner on the real driver (lent, pinned return
#      buffers: gpu_lent_buffers);
#   2. where a Run's time goes: `judged check --tests-only` of vector-add's
#      solution and softmax's starter (fails its first test), 3 each, with the
#      result's timing breakdown;
#   3. tests/gpu/validate.sh: every CUDA control of the 30 problems, tests only
#      (no verdict may change with the lent buffers);
#   4. tests/gpu/burst.sh and tests/gpu/web.sh (with the Triton solution);
#   5. the Triton controls of softmax, logsumexp, cross-entropy and sdpa (not
#      yet judged with issue 12's tests; sdpa's wrong/no_masked_tiles.py rewritten);
#   6. tests/bench/latency.sh --quick with 2 slots, as far as the budget goes.
# The summary is $OUT/summary.txt; logs and JSON in $OUT/logs.tgz.
#   scripts/gpu-next.sh BUILD [BUDGET_S]     (from the repository root)
set -u
build=${1:-build}
budget=${2:-570}
out=${OUT:-/tmp/gpu-next}
mkdir -p "$out"
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BLOCKWISE_PYTHON=${BLOCKWISE_PYTHON:-$(command -v python3)}
judged=$build/bin/judged

step() { # NAME LIMIT_S COMMAND...: the command's log in $tmp/NAME.log, its summary line
    local name=$1 limit=$2 s=$SECONDS
    shift 2
    [ "$limit" -gt "$(left)" ] && limit=$(($(left) - 5))
    if [ "$limit" -lt 20 ]; then
        echo "  $name: skipped (time)"
        return
    fi
    mkdir -p "$tmp/$name-out"
    OUT=$tmp/$name-out timeout -k 5 "$limit" "$@" >"$tmp/$name.log" 2>&1
    local rc=$?
    printf '  %-10s rc=%-3s %4ss  %s\n' "$name" "$rc" $((SECONDS - s)) \
        "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$tmp/$name.log" | tail -n 1)"
    grep -E '^(FAIL|not ok)|^    \| FAIL' "$tmp/$name.log" | head -n 10 | sed 's/^/    /'
}

cat >"$tmp/timing.py" <<'PY'
import json, sys
j = json.load(sys.stdin)
t = j["timing"]
b = t.get("tests_breakdown", {})
print(f"  {sys.argv[1]:22s} {j['verdict']} total {t['total_ms']:.0f} ms: compile {t['compile_ms']:.0f},"
      f" runners {t['runners_ms']:.0f}, tests {t['tests_ms']:.0f} (reference wait"
      f" {b.get('reference_wait_ms', 0):.0f}, submission {b.get('submission_ms', 0):.0f},"
      f" compare {b.get('compare_ms', 0):.0f})")
PY
timing() { # PROBLEM FILE
    timeout 60 "$judged" check --tests-only --json "problems/$1" "problems/$1/$2" 2>/dev/null |
        python3 "$tmp/timing.py" "$1/$2"
}

main() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$judged" calibrate >/dev/null 2>&1
echo "== 1. runner"
step runner 120 tests/gpu/runner.sh "$build"
echo "== 2. where a Run's time goes (judged check --tests-only)"
for i in 1 2 3; do timing vector-add solution.cu; done
for i in 1 2 3; do timing softmax starter.cu; done
echo "== 3. validate (CUDA controls, tests only)"
step validate 200 tests/gpu/validate.sh "$build"
echo "== 4. burst and web"
step burst 150 tests/gpu/burst.sh "$build"
step web 90 tests/gpu/web.sh "$build"
echo "== 5. Triton controls of softmax logsumexp cross-entropy sdpa ($(left) s left)"
OUT=$tmp/triton PROBLEMS="softmax logsumexp cross-entropy sdpa" SUBMITS="" SKIP_SANDBOX=1 \
    timeout -k 5 $(($(left) > 200 ? 200 : $(left) - 10)) scripts/gpu-triton.sh "$build" 190 4 |
    grep -vE '^(python|NVIDIA)' | sed 's/^/  /'
echo "== 6. latency through the server, 2 slots ($(left) s left)"
step latency $(($(left) - 10)) tests/bench/latency.sh "$build" --quick --slots 2
tail -n 25 "$tmp/latency.log" | sed 's/^/  /'
echo "== done with $(left) s left"
}

main 2>&1 | tee "$out/summary.txt"
cp -r "$tmp/web-out/web-gpu" "$out/" 2>/dev/null
(cd "$tmp" && tar czf "$out/logs.tgz" . 2>/dev/null)
rm -rf "$out/web-gpu/"*.log
true
