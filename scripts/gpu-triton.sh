#!/usr/bin/env bash
# gpu-triton.sh - Triton submissions on the GPU machine (issue 11), in one
# device call of at most 600 s:
#   1. tests/gpu/triton.sh: the compile sandbox with the real Triton (the unit
#      tests with BW_TRITON_REAL=1, the hostile corpus, PTX equal to Triton's own);
#   2. `judged validate --tests-only --language triton` of every problem, in
#      parallel shards: every .py control against its declared verdict, with
#      its compile time (one request per program: all of its variants);
#   3. timed Submits of solution.py beside solution.cu for a few problems
#      (medians per shape, score, goals), as far as the budget goes.
# Everything that matters is in $OUT/summary.txt; the JSON of every result
# and the logs in $OUT/triton-logs.tgz.
#   scripts/gpu-triton.sh BUILD [BUDGET_S] [SHARDS]      (from the repository root)
# PROBLEMS="sgemm softmax" limits step 2 to those problems; SUBMITS="p1 p2"
# names step 3's problems; SKIP_SANDBOX=1 skips step 1.
set -u
build=${1:-build}
budget=${2:-560}
shards=${3:-4}
out=${OUT:-/tmp/gpu-triton}
mkdir -p "$out"
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
judged=$build/bin/judged
export BLOCKWISE_PYTHON=${BLOCKWISE_PYTHON:-$(command -v python3)}

main() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$BLOCKWISE_PYTHON" -c 'import triton, sys; print("python", sys.version.split()[0], "triton", triton.__version__)'
"$judged" calibrate >/dev/null 2>&1 # once, before the shards share its cached figures

if [ -z "${SKIP_SANDBOX:-}" ]; then
echo "== 1. tests/gpu/triton.sh (the compile sandbox with the real Triton)"
timeout -k 5 200 tests/gpu/triton.sh "$build" >"$tmp/triton-sh.log" 2>&1
echo "  exit $?: $(tail -n 1 "$tmp/triton-sh.log")"
grep -E '^(FAIL|  \| FAIL|  \| not ok)' "$tmp/triton-sh.log" | head -n 20 | sed 's/^/  /'
fi

echo "== 2. every problem's Triton controls, tests only ($shards shards, $(left) s left)"
if [ -n "${PROBLEMS:-}" ]; then
    dirs=()
    for p in $PROBLEMS; do dirs+=("problems/$p/"); done
else
    mapfile -t dirs < <(ls -d problems/*/)
fi
limit=$(($(left) - ${STEP3_S:-150}))
[ "$limit" -gt 60 ] || limit=60
# One validate per problem (its JSON survives a shard's deadline), shards in parallel.
for ((k = 0; k < shards; k++)); do
    (
        for ((i = k; i < ${#dirs[@]}; i += shards)); do
            id=$(basename "${dirs[$i]}")
            [ "$(left)" -gt $((${STEP3_S:-150} - 10)) ] || break
            timeout -k 5 $(($(left) - ${STEP3_S:-150} + 10)) "$judged" validate --json --tests-only \
                --language triton "${dirs[$i]}" >"$tmp/validate-$id.json" 2>"$tmp/validate-$id.err"
        done
    ) &
done
wait
python3 - "$tmp" "${dirs[@]}" <<'PY'
import json, os, sys
tmp, dirs = sys.argv[1], sys.argv[2:]
rows, bad, missing = 0, 0, []
for pdir in dirs:
    pid = os.path.basename(pdir.rstrip("/"))
    try:
        d = json.load(open(f"{tmp}/validate-{pid}.json"))
    except Exception as e:
        missing.append(f"{pid}: no JSON ({e}); stderr: " + open(f"{tmp}/validate-{pid}.err").read()[-300:]
                       if os.path.exists(f"{tmp}/validate-{pid}.err") else f"{pid}: not run (time)")
        continue
    for pid in sorted(d):
        for r in d[pid]:
            rows += 1
            res = r.get("result", {})
            ok = r["ok"]
            bad += not ok
            msg = "" if ok else " | " + (res.get("message") or "")[:220]
            print(f"  {'ok ' if ok else 'BAD'} {pid:22s} {r['file']:30s} want {r['expected']:3s} got "
                  f"{r['got']:8s} compile {res.get('compile_ms', 0):7.0f} ms{' (cached)' if res.get('compile_cached') else ''}"
                  f" tests {res.get('tests_ms', 0):6.0f} ms{msg}")
print(f"  {rows} Triton controls judged, {bad} with another verdict than declared")
for m in missing:
    print("  " + m)
PY

echo "== 3. timed Submits: solution.py beside solution.cu ($(left) s left)"
for p in ${SUBMITS:-vector-add softmax sgemm layernorm-forward flash-attention matmul-bias-relu gemv}; do
    for f in solution.py solution.cu; do
        [ "$(left)" -gt 50 ] || { echo "  $p/$f: skipped (time)"; continue; }
        timeout -k 5 $(($(left) - 20)) "$judged" check --json "problems/$p" "problems/$p/$f" \
            >"$tmp/submit-$p-$f.json" 2>"$tmp/submit-$p-$f.err"
        python3 - "$tmp/submit-$p-$f.json" "$p/$f" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print(f"  {sys.argv[2]:32s} no result (timed out or failed)"); sys.exit()
shapes = "; ".join(f"{b['name']} {b['median_ms']:.4f} ms {b.get('sol_pct', 0):.0f}%" for b in r.get("benches", []))
print(f"  {sys.argv[2]:32s} {r['verdict']} score {r.get('score', 0):.1f} compile {r.get('compile_ms', 0):.0f} ms: {shapes}")
if r['verdict'] != 'AC':
    print(f"      {(r.get('message') or '')[:300]}")
for g in r.get("goals", []):
    print(f"      goal {g['name']}: {g['status']} - {g.get('detail', '')[:200]}")
PY
    done
done
}

main 2>&1 | tee "$out/summary.txt"
(cd "$tmp" && tar czf "$out/triton-logs.tgz" ./*.json ./*.err ./*.log 2>/dev/null)
