#!/usr/bin/env bash
# step8-tolerance.sh - the tolerance simulations of problems 26-30
# (tests/cpusim/tolerance.cpp) at their quick sizes: correct arithmetic passes
# each problem's rule with margin, the classic mistakes fail. The full sizes
# (about 3 minutes) are `BUILD/cpusim/tolerance` without --quick.
#   tests/cpu/step8-tolerance.sh BUILD
set -u
build=${1:-build}
out=$build/cpusim/tolerance
mkdir -p "$build/cpusim"
if ! g++ -std=c++20 -O2 -ffp-contract=off -I. tests/cpusim/tolerance.cpp "$build/libproblem.a" "$build/libcommon.a" \
    -o "$out" 2>"$out.log"; then
    cat "$out.log"
    echo "FAIL build of tests/cpusim/tolerance.cpp"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
"$out" --quick
