#!/usr/bin/env bash
# gpu-next.sh - the GPU work outstanding after 2026-12-01 (issues 10-12), for
# one device call of at most 600 s (then `make gpu-test` and `make bench`,
# one call each):
#   A. (in the background) issue 12's neutral-value CUDA controls again, tests
#      only (proven on 2026-12-01; kept as a regression check);
#   B. the Triton controls not yet judged on the H200 with issue 12's new
#      tests (softmax, logsumexp, cross-entropy) and sdpa's rewritten
#      wrong/no_masked_tiles.py; tests/gpu/triton.sh; timed Submits of
#      flash-attention (its Triton Submit took 139 s before the per-shape
#      reference cache) and sdpa, in Triton beside CUDA;
#   C. tests/gpu/burst.sh: the server and a 2-slot worker on the GPU, a burst
#      with failures, a cancelled Submit, Triton Runs through the server.
# Everything that matters is in $OUT/summary.txt; the JSON and logs in
# $OUT/neutral.tgz and $OUT/triton-logs.tgz.
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
neutral="logsumexp cross-entropy softmax online-softmax sdpa flash-attention vector-max"
triton_left="softmax logsumexp cross-entropy sdpa"
submits="flash-attention sdpa"

main() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$build/bin/judged" calibrate >/dev/null 2>&1

echo "== A. neutral values (issue 12): CUDA controls of $neutral, tests only (in the background)"
(
    for p in $neutral; do
        timeout -k 5 300 "$build/bin/judged" validate --json --tests-only --language cuda \
            "problems/$p" >"$tmp/neutral-$p.json" 2>"$tmp/neutral-$p.err"
    done
) &
neutral_pid=$!

echo "== B. Triton ($(left) s left)"
OUT=$tmp/triton PROBLEMS=$triton_left SUBMITS=$submits STEP3_S=200 \
    scripts/gpu-triton.sh "$build" $(($(left) - 130)) 3 | sed 's/^/  /'

wait "$neutral_pid"
echo "== A. results"
python3 - "$tmp" $neutral <<'PY'
import json, sys
tmp, problems = sys.argv[1], sys.argv[2:]
for p in problems:
    try:
        rows = json.load(open(f"{tmp}/neutral-{p}.json"))[p]
    except Exception as e:
        print(f"  {p}: no result ({e})"); continue
    bad = [r for r in rows if not r["ok"]]
    new = [r for r in rows if "zero_init" in r["file"] or "flt_max" in r["file"]]
    print(f"  {p}: {len(rows)} controls, {len(bad)} off their declared verdict")
    for r in new + bad:
        res = r.get("result", {})
        print(f"    {'ok ' if r['ok'] else 'BAD'} {r['file']:28s} want {r['expected']} got {r['got']}: {(res.get('message') or '')[:200]}")
PY

echo "== C. tests/gpu/burst.sh ($(left) s left)"
if [ "$(left)" -gt 60 ]; then
    timeout -k 5 $(($(left) - 5)) tests/gpu/burst.sh "$build" >"$tmp/burst.log" 2>&1
    grep -E '^(ok|FAIL|skip) ' "$tmp/burst.log" | sed 's/^/  /'
    tail -n 1 "$tmp/burst.log" | sed 's/^/  /'
else
    echo "  skipped (time)"
fi
echo "== done with $(left) s left"
}

main 2>&1 | tee "$out/summary.txt"
(cd "$tmp" && tar czf "$out/neutral.tgz" ./neutral-* ./burst.log 2>/dev/null)
[ -f "$tmp/triton/triton-logs.tgz" ] && cp "$tmp/triton/triton-logs.tgz" "$out/"
true
