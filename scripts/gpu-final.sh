#!/usr/bin/env bash
# gpu-final.sh - a session's last GPU call, in priority order under one time
# budget: correctness of the problems not yet proven on the GPU (validate,
# tests only, and the PyTorch oracle), then the speed of light of every
# solution, then the web story with real kernels, then two workers.
#   scripts/gpu-final.sh BUILD BUDGET_S "PROBLEMS TO VALIDATE"
set -u
build=$1 budget=$2 todo=$3
out=${OUT:-/tmp/gpu-final}
mkdir -p "$out"
deadline=$((SECONDS + budget))
left() { echo $((deadline - SECONDS)); }

echo "== validate (tests only)"
scripts/gpu-validate-each.sh "$build" 25 --tests-only $todo | tee "$out/validate.txt"
echo "== oracle"
[ "$(left)" -gt 60 ] && timeout $(($(left) - 30)) python3 tests/oracle/run.py "$build" $todo >"$out/oracle.log" 2>&1
tail -n $(( $(echo $todo | wc -w) + 3 )) "$out/oracle.log"
echo "== speed of light"
for d in problems/*/; do
    p=$(basename "$d")
    [ "$(left)" -gt 100 ] || { echo "  (no time left for $p)"; continue; }
    timeout 25 "$build/bin/judged" check --json "$d" "$d/solution.cu" >"$out/sol-$p.json" 2>/dev/null
    python3 - "$out/sol-$p.json" "$p" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print(f"  {sys.argv[2]:22s} timed out or failed"); sys.exit()
shapes = ", ".join(f"{b['name']} {b['median_ms']:.3f} ms {b['sol_pct']:.1f}%" for b in r.get("benches", []))
print(f"  {sys.argv[2]:22s} {r['verdict']} score {r['score']:.1f}: {shapes}")
PY
done
if [ "$(left)" -gt 90 ]; then
    echo "== web story with real kernels"
    OUT=$out timeout $(($(left) - 50)) tests/gpu/web.sh "$build" 2>&1 | tail -n 6
fi
if [ "$(left)" -gt 120 ]; then
    echo "== two workers on one GPU"
    BURST=${BURST:-200} timeout $(($(left) - 10)) tests/gpu/two-workers.sh "$build" 2>&1 | tail -n 12
fi
echo "== done with $(left) s left"
