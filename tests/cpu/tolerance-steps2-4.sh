#!/usr/bin/env bash
# tolerance-steps2-4.sh - builds and runs tests/oracle/tolerance_steps2_4.c,
# the CPU simulation of the tolerances of problems 2-10 and 12 (correct
# arithmetic passes with margin, the classic mistakes fail). Pass --full as
# the second argument for larger sizes.  Usage: tests/cpu/tolerance-steps2-4.sh BUILD [--full]
set -u
build=${1:-build}
cc=${CC:-cc}
out=$build/tests/tolerance_steps2_4
mkdir -p "$build/tests"
if ! "$cc" -std=c11 -O2 -ffp-contract=off -Wall -Wextra -Wshadow -Werror -o "$out" \
    tests/oracle/tolerance_steps2_4.c -lm 2>"$out.log"; then
    cat "$out.log"
    echo "FAIL build of tolerance_steps2_4"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
"$out" ${2:+"$2"}
