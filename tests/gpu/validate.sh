#!/usr/bin/env bash
# validate.sh - `judged validate` over every problem directory: each control
# (solution, starter, wrong/*, naive kernels) must get its declared verdict.
# Each control counts as one test. Run on the GPU machine:
#   tests/gpu/validate.sh BUILD [--timed] [PROBLEM_DIR...]
# In make gpu-test it runs the tests only (Runs: every verdict, no timing), so
# the suite fits one call of the GPU machine; make gpu-validate passes --timed
# (scripts/gpu-validate.sh: every Accepted control timed too, in shards).
# The CUDA controls only (LANGUAGE=triton for the others): the Triton ones
# compile for 1-25 s each, so they have their own call, make gpu-triton
# (scripts/gpu-triton.sh: parallel shards, with timed Submits).
set -u
build=${1:-build}
shift
mode=--tests-only
if [ "${1:-}" = --timed ]; then
    mode=
    shift
fi
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(problems/*/)
out=${OUT:-$build}/validate${mode:+-tests-only}.json
"$build/bin/judged" validate --json $mode --language "${LANGUAGE:-cuda}" "${dirs[@]}" >"$out" 2>"$build/validate.stderr"
status=$?
python3 - "$out" "$status" <<'PY'
import json, sys
path, status = sys.argv[1], int(sys.argv[2])
try:
    data = json.load(open(path))
except Exception as e:
    print(f"FAIL could not read {path}: {e} (judged exit {status})")
    print("0 passed, 1 failed, 0 skipped")
    sys.exit(1)
p = f = 0
for problem, rows in sorted(data.items()):
    for row in rows:
        r = row.get("result", {})
        extra = ""
        if r.get("benches"):
            extra = " score %.1f" % r.get("score", 0)
        line = f"{problem}/{row['file']}: expected {row['expected']}, got {row['got']}{extra}"
        if row["ok"]:
            p += 1
            print("ok   " + line)
        else:
            f += 1
            print("FAIL " + line + "  " + (r.get("message") or ""))
print(f"{p} passed, {f} failed, 0 skipped")
sys.exit(1 if f else 0)
PY
