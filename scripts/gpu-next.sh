#!/usr/bin/env bash
# gpu-next.sh - the GPU work still outstanding (issues 4 and 5), in priority
# order, for one device call of at most 600 s:
#   0. the verdict latency of P1's solution and the comparison's throughput;
#   1. P20 layernorm-backward: every control with timing, after the runner's
#      dynamic shared-memory fix (its solution was a Runtime Error before);
#   2. the web story with real kernels (tests/gpu/web.sh): its three results
#      as JSON, which tests/cpu/browser.sh replays into the GPU screenshots
#      (BW_GPU_RESULTS=<the fetched web-gpu folder> tests/cpu/browser.sh build);
#   3. the learning-goal brackets of problems/NOTES.md: the kernels each goal
#      must reject (naive.cu of P6, P13, P14, P15; unfused.cu of P16) and the
#      solutions never timed (P20, P21, P30), with every goal's outcome
#      (the figures go to docs/speed-of-light.md and NOTES' goal table).
# The device returns at most 8 files, two folders deep: everything that
# matters is in $OUT/summary.txt, $OUT/checks.json, $OUT/web-gpu/*.json (3)
# and $OUT/web-logs.tgz.
#   scripts/gpu-next.sh BUILD [BUDGET_S]     (from the repository root)
set -u
build=${1:-build}
budget=${2:-560}
out=${OUT:-/tmp/gpu-next}
mkdir -p "$out"
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }
summary=$out/summary.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME PROBLEM FILE LIMIT_S: judged check --json, one line per result
check() {
    local name=$1 p=$2 f=$3 limit=$4
    [ "$(left)" -gt $((limit / 2 + 20)) ] || { echo "  $name: skipped (time)"; return; }
    [ "$limit" -lt "$(left)" ] || limit=$(($(left) - 10))
    timeout -k 5 "$limit" "$build/bin/judged" check --json "problems/$p" "problems/$p/$f" \
        >"$tmp/$name.json" 2>"$tmp/$name.err"
    python3 - "$tmp/$name.json" "$name" <<'PY'
import json, sys
path, name = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception:
    print(f"  {name:34s} no result (timed out or failed)"); sys.exit()
shapes = "; ".join(f"{b['name']} {b['median_ms']:.4f} ms {b.get('sol_pct', 0):.1f}%"
                   for b in r.get("benches", []))
print(f"  {name:34s} {r['verdict']}, score {r.get('score', 0):.1f}: {shapes}")
for g in r.get("goals", []):
    print(f"      goal {g['name']}: {g['status']} - {g.get('detail', '')}")
PY
}

# The steps, unindented for their here-documents; all output also in summary.txt.
main() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== 0. verdict latency of P1's solution after the comparison's fast path (was 2.54 s tests-only, 2.43 s full)"
p1=problems/vector-add
"$build/bin/judged" check --tests-only "$p1" "$p1/solution.cu" >/dev/null 2>&1 # warm caches
for mode in --tests-only --tests-only --tests-only --tests-only --tests-only full full full; do
    s=$(date +%s.%N)
    "$build/bin/judged" check $([ "$mode" = full ] || echo "$mode") --json "$p1" "$p1/solution.cu" >"$tmp/latency.json" 2>/dev/null
    e=$(date +%s.%N)
    python3 -c "import json; t=json.load(open('$tmp/latency.json')).get('timing', {}); print(f'  $mode {$e-$s:.3f} s wall; judge: ' + ', '.join(f'{k} {v:.0f}' for k, v in t.items()))"
done
"$build/tests/compare_bench" | sed 's/^/  /'
echo "== 1. P20 layernorm-backward: validate with timing"
OUT=$tmp scripts/gpu-validate-each.sh "$build" 150 layernorm-backward

echo "== 2. the web story with real kernels"
if [ "$(left)" -gt 160 ]; then
    OUT=$out timeout 150 tests/gpu/web.sh "$build" 2>&1 | tail -n 8
    # the server's and worker's logs in one file: the machine returns 8 files
    [ -d "$out/web-gpu" ] && (cd "$out/web-gpu" && ls ./*.log >/dev/null 2>&1 && tar czf ../web-logs.tgz ./*.log && rm -f ./*.log)
else
    echo "  skipped (time)"
fi

echo "== 3. goal brackets and solutions not timed yet"
check dropout.naive dropout naive.cu 60
check transpose.naive transpose naive.cu 60
check gemv.naive gemv naive.cu 60
check gemv.naive_warp_per_row gemv naive_warp_per_row.cu 60
check sgemm.naive sgemm naive.cu 90
check matmul-bias-relu.unfused matmul-bias-relu unfused.cu 90
check flash-attention.solution flash-attention solution.cu 200
check autotuned-matmul.solution autotuned-matmul solution.cu 200
python3 - "$tmp" "$out/checks.json" <<'PY'
import glob, json, os, sys
merged = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    try:
        merged[os.path.basename(f)[:-5]] = json.load(open(f))
    except Exception:
        pass
json.dump(merged, open(sys.argv[2], "w"))
PY

echo "== done with $(left) s left"
}
main 2>&1 | tee "$summary"
