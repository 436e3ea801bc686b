#!/usr/bin/env bash
# dropout-philox.sh - builds tests/cpu/dropout_philox.cu with nvcc once per
# file of problems/dropout that defines the random numbers (host code only,
# no GPU needed) and runs it: tl.rand's Philox stream, the uniform
# conversion, cuRAND equivalence and the statement's known answers. Skips when
# nvcc is absent.  Usage: tests/cpu/dropout-philox.sh BUILD
set -u
build=${1:-build}
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
if [ ! -x "$nvcc" ]; then
    echo "skip: no nvcc at $nvcc"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
out=$build/tests/dropout_philox
mkdir -p "$build/tests"
pass=0 fail=0
for f in problems/dropout/reference.cu problems/dropout/solution.cu problems/dropout/naive.cu \
    problems/dropout/starter.cu; do
    defs=()
    while read -r def; do
        defs+=("-D$def")
    done < <(sed -nE 's@^[[:space:]]*//[[:space:]]*\@const[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)=(-?[0-9]+).*@\1=\2@p' "$f")
    if ! "$nvcc" -O2 -I. -Xcompiler -Wall "${defs[@]}" -DDROPOUT_SOURCE="\"$f\"" \
        -o "$out" tests/cpu/dropout_philox.cu 2>"$out.log"; then
        cat "$out.log"
        echo "FAIL build of dropout_philox for $f"
        fail=$((fail + 1))
        continue
    fi
    res=$("$out")
    echo "$res" | grep -v ' passed, '
    p=$(echo "$res" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1/p')
    q=$(echo "$res" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\2/p')
    pass=$((pass + ${p:-0}))
    fail=$((fail + ${q:-1}))
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
