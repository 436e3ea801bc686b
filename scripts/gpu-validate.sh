#!/usr/bin/env bash
# gpu-validate.sh - the timed validate of every problem (make gpu-validate):
# each control gets its declared verdict, and every Accepted control is timed
# on every benchmark shape with all its checks, as a Submit. All 30 problems
# took 237 s on the H200 (2026-12-02, one problem at a time), one call of the
# GPU machine; a shard runs a part of them:
#   scripts/gpu-validate.sh BUILD [K/N]     problems K, K+N, K+2N, ... (1-based) of the sorted list
# Without K/N, every problem. Ends with the
# summary line of tests/gpu/validate.sh; the JSON goes to $OUT (or BUILD).
set -u
build=${1:-build}
shard=${2:-1/1}
if ! [[ "$shard" =~ ^([0-9]+)/([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 1 ] ||
    [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
    echo "gpu-validate: expected a shard K/N with 1 <= K <= N, got \"$shard\"" >&2
    exit 2
fi
k=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
dirs=()
i=0
for d in problems/*/; do
    [ -f "$d/problem.json" ] || continue
    [ $((i % n)) -eq $((k - 1)) ] && dirs+=("$d")
    i=$((i + 1))
done
echo "gpu-validate: shard $k/$n: ${#dirs[@]} problems (${dirs[*]})"
exec tests/gpu/validate.sh "$build" --timed "${dirs[@]}"
