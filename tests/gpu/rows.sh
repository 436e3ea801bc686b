#!/usr/bin/env bash
# rows.sh - on the GPU: every problem whose reference.cu has a @rows kernel
# (the checks of timed runs compute only the rows they need) is Submitted
# twice with its solution: with BLOCKWISE_CHECK_ROWS=1, so that the judge also
# computes the full fp64 reference of every benchmark shape and fails unless
# the rows kernel's values are the full reference's (1e-12 relative); then
# plainly, where the timing phase's time is reported (flash-attention's was
# 32 s with the full reference).
#   tests/gpu/rows.sh BUILD       (part of make gpu-test)
set -u
build=${1:-build}
judged=$build/bin/judged
pass=0 fail=0 skip=0
if [ ! -e /dev/nvidia0 ] && ! command -v nvidia-smi >/dev/null; then
    echo "skip: no GPU on this machine"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>/dev/null; }
for ref in problems/*/reference.cu; do
    grep -q '^// @rows ' "$ref" || continue
    d=$(dirname "$ref")
    p=$(basename "$d")
    BLOCKWISE_CHECK_ROWS=1 timeout 300 "$judged" check --json "$d" "$d/solution.cu" >"$T/$p-check.json" 2>"$T/$p-check.err"
    got=$(field "$T/$p-check.json" 'd["verdict"], d["message"][:300]')
    if [[ "$got" == "('AC'"* ]]; then
        pass=$((pass + 1))
        echo "ok - $p: BLOCKWISE_CHECK_ROWS=1: the rows kernel agrees with the full reference on every benchmark shape (timing $(field "$T/$p-check.json" 'round(d["timing"]["bench_ms"])') ms with both)"
    else
        fail=$((fail + 1))
        echo "FAIL - $p: BLOCKWISE_CHECK_ROWS=1: $got $(tail -c 300 "$T/$p-check.err")"
    fi
    timeout 300 "$judged" check --json "$d" "$d/solution.cu" >"$T/$p.json" 2>"$T/$p.err"
    got=$(field "$T/$p.json" 'd["verdict"]')
    if [ "$got" = AC ]; then
        pass=$((pass + 1))
        echo "ok - $p: Submit with the rows kernel only: $(field "$T/$p.json" 'round(d["total_ms"])') ms in all, timing $(field "$T/$p.json" 'round(d["timing"]["bench_ms"])') ms"
    else
        fail=$((fail + 1))
        echo "FAIL - $p: plain Submit: $got $(tail -c 300 "$T/$p.err")"
    fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
