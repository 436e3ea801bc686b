#!/usr/bin/env bash
# gpu-triton-timed.sh - the timed half of the Triton controls' validate, in one
# device call: every control declared Accepted in a problem.json and written
# in Triton (solution.py, naive.py, ...) is Submitted (`judged check`, timed on
# every benchmark shape with all its checks and goals) and must stay Accepted.
# A timed validate differs from a tests-only one only for the controls that
# pass every test, so with `judged validate --tests-only --language triton`
# (scripts/gpu-triton.sh) this is the whole timed validate of Triton, at a
# quarter of its compile time. One line per control, then a summary line;
# the JSON of each Submit in $OUT/triton-timed/.
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
pass=0 fail=0 skip=0
for p in "${ps[@]}"; do
    [ -f "problems/$p/problem.json" ] || continue
    mapfile -t files < <(python3 -c '
import json, sys
for f, v in json.load(open(sys.argv[1]))["controls"].items():
    if f.endswith(".py") and v == "Accepted":
        print(f)' "problems/$p/problem.json")
    for f in "${files[@]}"; do
        left=$((deadline - SECONDS))
        tag="$p/$f"
        if [ "$left" -lt 30 ]; then
            echo "skip $tag: over the ${budget} s budget"
            skip=$((skip + 1))
            continue
        fi
        j="$out/${p}__${f//\//_}.json"
        s=$SECONDS
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
        if [ "${line%% *}" = AC ] || [ "${line%% *}" = Accepted ]; then
            pass=$((pass + 1))
            echo "ok   $tag ($((SECONDS - s)) s): $line"
        else
            fail=$((fail + 1))
            echo "FAIL $tag ($((SECONDS - s)) s, exit $rc): $line $(tail -c 200 "$j.err")"
        fi
    done
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
