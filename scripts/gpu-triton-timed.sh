#!/usr/bin/env bash
# gpu-triton-timed.sh - the timed half of the Triton controls' validate, in one
# device call: every control declared Accepted in a problem.json and written
# in Triton (solution.py, naive.py, ...) is Submitted (`judged check`, timed on
# every benchmark shape with all its checks and goals) and must stay Accepted.
# A timed validate differs from a tests-only one only for the controls that
# pass every test, so with `judged validate --tests-only --language triton`
# (scripts/gpu-triton.sh) this is the whole timed validate of Triton, at a
# quarter of its compile time. One line per control, then a summary line;
# the JSON of each Submit in $OUT/triton-timed/. JOBS=N runs N Submits at a time.
#   scripts/gpu-triton-timed.sh BUILD [BUDGET_S] [PROBLEM...]
set -u
build=${1:-build}
budget=${2:-540}
shift $(($# < 2 ? $# : 2))
out=${OUT:-/tmp}/triton-timed
mkdir -p "$out"
deadline=$((SECONDS + budget))
export BLOCKWISE_PYTHON=${BLOCKWISE_PYTHON:-$(command -v python3)}
ps=("$@")
[ ${#ps[@]} -gt 0 ] || mapfile -t ps < <(ls problems)
one() { # PROBLEM FILE: one Submit, one line
    local p=$1 f=$2 left=$((deadline - SECONDS)) tag="$1/$2" s=$SECONDS rc line
    local j="$out/${p}__${f//\//_}.json"
    if [ "$left" -lt 30 ]; then
        echo "skip $tag: over the ${budget} s budget"
        return
    fi
    timeout -k 5 "$left" "$build/bin/judged" check --json "problems/$p" "problems/$p/$f" >"$j" 2>"$j.err"
    rc=$?
    line=$(python3 - "$j" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"NONE no JSON ({e})")
    sys.exit()
ms = " ".join("%.4g" % b.get("median_ms", 0) for b in r.get("benches", []))
goals = r.get("goals", [])
gp = sum(1 for g in goals if g.get("status") == "passed")
print(f"{r.get('verdict')} ms [{ms}] score {r.get('score', 0):.1f} goals {gp}/{len(goals)} "
      f"| {(r.get('message') or '')[:160]}")
PY
)
    if [ "${line%% *}" = AC ]; then
        echo "ok   $tag ($((SECONDS - s)) s): $line"
    else
        echo "FAIL $tag ($((SECONDS - s)) s, exit $rc): $line $(tail -c 200 "$j.err")"
    fi
}
list=()
for p in "${ps[@]}"; do
    [ -f "problems/$p/problem.json" ] || continue
    mapfile -t files < <(python3 -c '
import json, sys
for f, v in json.load(open(sys.argv[1]))["controls"].items():
    if f.endswith(".py") and v == "Accepted":
        print(f)' "problems/$p/problem.json")
    for f in "${files[@]}"; do list+=("$p" "$f"); done
done
# the GPU's limits measured once, before Submits share the cached figures
"$build/bin/judged" calibrate >/dev/null 2>&1
# JOBS Submits at a time (1 by default): more overlap one's compile with
# another's timing, so their times are not the GPU's alone, but a verdict does
# not depend on them (a shape slowed by a neighbour is still checked).
for ((k = 0; k < ${JOBS:-1}; k++)); do
    for ((i = 2 * k; i < ${#list[@]}; i += 2 * ${JOBS:-1})); do
        one "${list[$i]}" "${list[$((i + 1))]}"
    done >"$out/lines-$k.txt" &
done
wait
cat "$out"/lines-*.txt | tee "$out/summary.txt"
pass=$(grep -c '^ok' "$out/summary.txt") fail=$(grep -c '^FAIL' "$out/summary.txt")
skip=$(grep -c '^skip' "$out/summary.txt")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
