#!/usr/bin/env bash
# gpu-next.sh - the GPU work outstanding (issues 11 and 12), for one device
# call of at most 600 s:
#   A. (in the background, from the start) issue 12's neutral values: every
#      CUDA control of the problems that gained "below" / "all -inf" tests,
#      tests only (the new wrong/zero_init.cu and wrong/flt_max_init.cu must be
#      rejected, every other control keep its verdict);
#   B. the Triton controls not yet judged on the H200 and timed Submits of
#      solution.py beside solution.cu (scripts/gpu-triton.sh, aimed);
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
triton_left="autotuned-matmul block-pointer-matmul flash-attention grouped-matmul layernorm-forward online-softmax sdpa split-k-matmul vector-max"
submits="vectorized-add split-k-matmul matmul-bias-relu gemv flash-attention"

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
OUT=$tmp/triton PROBLEMS=$triton_left SUBMITS=$submits SKIP_SANDBOX=1 STEP3_S=170 \
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
