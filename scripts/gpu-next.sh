#!/usr/bin/env bash
# gpu-next.sh - a device call of at most 600 s for the measurements that are
# not tests (each step can be picked with STEPS):
#   rows      tests/gpu/rows.sh: the @rows kernels of sdpa and flash-attention
#             against the full reference on every benchmark shape, and
#             flash-attention's Submit with them;
#   validate  tests/gpu/validate.sh: every CUDA control, tests only;
#   runner    tests/gpu/runner.sh;
#   timing    where a Run's and a Submit's time go (`judged check` breakdowns:
#             the runner's phases alloc/setup/launch/checks/return/free, a
#             Submit's bench.switch between configurations), and the CPU
#             comparison's speed (compare_bench);
#   latency   tests/bench/latency.sh with 2 slots, full (the issue 10 table,
#             the warm flash-attention Submit, the judge's breakdowns);
#   triton    scripts/triton-speed.py --judge: Triton beside PyTorch, on
#             TRITON_ARGS (PROBLEM or PROBLEM=FILE, a candidate; by default the
#             attention problems);
#   suite     make gpu-test without its tests-only validate (GPU_SKIP), for a
#             call that runs the timed one;
#   timed     the timed validate of the CUDA controls (make gpu-validate's), one problem at a time
#             (scripts/gpu-validate-each.sh), as far as the budget goes, from
#             TIMED_FROM (a problem's name) on: a later call resumes there.
# Used on 2026-12-02 as STEPS="rows runner timing", "timing latency" and
# "latency triton" (docs/speed-of-light.md, the closing notes).
# The summary is $OUT/summary.txt; logs and JSON in $OUT/logs.tgz.
#   scripts/gpu-next.sh BUILD [BUDGET_S]     (from the repository root)
# STEPS="rows runner ..." runs only the steps named (default: the first six).
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
steps=" ${STEPS:-rows validate runner timing latency triton} "
want() { [[ $steps == *" $1 "* ]]; }

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
print(f"  {sys.argv[1]:22s} {j['verdict']} total {t['total_ms']:.0f} ms: compile {t['compile_ms']:.0f}"
      f" (compiler {t.get('compiler_ms', 0):.0f}),"
      f" runners {t['runners_ms']:.0f}, tests {t['tests_ms']:.0f} (reference wait"
      f" {b.get('reference_wait_ms', 0):.0f}, ready {b.get('reference_ready', 0)}, submission {b.get('submission_ms', 0):.0f}"
      f" [kernels {b.get('submission_plan_ms', 0):.0f}, lending {b.get('submission_lend_ms', 0):.0f};"
      f" runner: " + " ".join(f"{k} {b.get('submission_' + k + '_ms', 0):.0f}" for k in ("alloc", "setup", "launch", "checks", "return", "free")) + "],"
      f" compare {b.get('compare_ms', 0):.0f}), build wait {t.get('build_wait_ms', 0):.0f},"
      f" reference load {t.get('reference_load_ms', 0):.0f}, finish {t.get('finish_ms', 0):.0f},"
      f" unaccounted {t['total_ms'] - sum(t.get(k, 0) for k in ('compile_ms', 'runners_ms', 'tests_ms', 'build_wait_ms', 'reference_load_ms', 'finish_ms', 'bench_ms', 'goals_ms')):.0f}")
PY
submit_timing() { # PROBLEM FILE: a Submit's phases
    timeout 120 "$judged" check --json "problems/$1" "problems/$1/$2" 2>/dev/null |
        python3 -c 'import json,sys; j=json.load(sys.stdin); t=j["timing"]; print("  %-30s %s " % (sys.argv[1], j["verdict"]) + ", ".join("%s %.0f" % (k[:-3], v) for k, v in list(t.items()) + [("bench." + x, y) for x, y in t.get("bench_breakdown", {}).items()] if k.endswith("_ms")))' "Submit $1/$2"
}
timing() { # PROBLEM FILE
    timeout 60 "$judged" check --tests-only --json "problems/$1" "problems/$1/$2" 2>/dev/null |
        python3 "$tmp/timing.py" "$1/$2"
}

main() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$judged" calibrate >/dev/null 2>&1
want rows && echo "== 1. rows" && step rows 150 tests/gpu/rows.sh "$build"
want rows && grep -E '^(ok|FAIL)' "$tmp/rows.log" | sed 's/^/    /'
want validate && echo "== 2. validate (CUDA controls, tests only)" && step validate 200 tests/gpu/validate.sh "$build"
want runner && echo "== 3. runner" && step runner 120 tests/gpu/runner.sh "$build"
if want timing; then
echo "== 4. where a Run's time goes (judged check --tests-only)"
for i in 1 2 3; do timing vector-add solution.cu; done
for i in 1 2 3; do timing softmax starter.cu; done
for i in 1 2; do timing vector-add solution.py; done
submit_timing flash-attention solution.cu
submit_timing flash-attention solution.py
submit_timing vector-add solution.cu
echo "  compare_bench (the CPU comparison, 25 M elements):"
timeout 60 "$build/tests/compare_bench" 2>&1 | tail -n 12 | sed 's/^/    /'
fi
if want latency; then
echo "== 5. latency through the server, 2 slots, full ($(left) s left)"
step latency 260 tests/bench/latency.sh "$build" --slots 2
tail -n 45 "$tmp/latency.log" | sed 's/^/  /'
fi
want triton && echo "== 6. Triton attention against PyTorch ($(left) s left)"
if want triton && [ "$(left)" -gt 40 ]; then
    timeout -k 5 $(($(left) - 10)) "$BLOCKWISE_PYTHON" scripts/triton-speed.py --judge "$build" \
        ${TRITON_ARGS:-flash-attention sdpa} >"$tmp/triton-speed.log" 2>&1
    grep -E '^(ok|FAIL|skip)|passed' "$tmp/triton-speed.log" | sed 's/^/  /' | tail -n 80
fi
if want suite; then
echo "== 7. make gpu-test without validate ($(left) s left)"
GPU_SKIP="validate ${GPU_SKIP:-}" step suite 330 make --no-print-directory gpu-test BUILD="$build"
grep -E '^[a-z0-9-]+ +[0-9]+ passed|^  [a-z0-9-]+: (skipped|TIMED)' "$tmp/suite.log" | sed 's/^/  /'
fi
if want timed; then
echo "== 8. the timed validate, problem by problem ($(left) s left)"
ps=()
for d in problems/*/; do
    p=$(basename "$d")
    [[ -n "${TIMED_FROM:-}" && "$p" < "$TIMED_FROM" ]] && continue
    ps+=("$p")
done
for p in "${ps[@]}"; do
    if [ "$(left)" -lt 45 ]; then
        echo "  stopped before $p: $(left) s left (TIMED_FROM=$p resumes)"
        break
    fi
    LANGUAGE=cuda OUT=$tmp/timed timeout -k 5 $(($(left) - 5)) scripts/gpu-validate-each.sh "$build" \
        $(($(left) - 10)) "$p" 2>&1 | sed 's/^/  /'
done
fi
echo "== done with $(left) s left"
}

main 2>&1 | tee "$out/summary.txt"
(cd "$tmp" && tar czf "$out/logs.tgz" . 2>/dev/null)
true
