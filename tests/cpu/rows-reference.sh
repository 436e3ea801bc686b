#!/usr/bin/env bash
# rows-reference.sh - every reference.cu with a @rows kernel (the benchmark
# checks' reference, docs/problem-format.md) gives the full reference's values
# on the rows it computes: judged in the CUDA simulator (tests/cpusim) on the
# small test cases, causal ones included, the rows kernel on 17 rows of each
# case against the full kernel (within 1e-12 relative). On the GPU,
# tests/gpu/rows.sh asks the same of the benchmark shapes (BLOCKWISE_CHECK_ROWS=1).
#   tests/cpu/rows-reference.sh BUILD
set -u
build=${1:-build}
pass=0 fail=0 skip=0
for ref in problems/*/reference.cu; do
    grep -q '^// @rows ' "$ref" || continue
    p=$(basename "$(dirname "$ref")")
    out=$(timeout 600 python3 tests/cpusim/run.py "$build" "$p" --cost 300000 --only solution.cu 2>&1)
    line=$(grep -E "^(ok|FAIL) +$p/solution.cu" <<<"$out" | head -n 1)
    if [[ "$line" == ok* ]] && grep -qE "reference @rows = full reference on [1-9][0-9]* cases" <<<"$line"; then
        pass=$((pass + 1))
        echo "ok - $p: $(grep -oE 'reference @rows = full reference on [0-9]+ cases' <<<"$line")"
    else
        fail=$((fail + 1))
        echo "FAIL - $p: ${line:-$(tail -n 3 <<<"$out")}"
    fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
