#!/usr/bin/env bash
# tolerance-oracle.sh - builds and runs tests/oracle/tolerance.c (sampled mode):
# the tolerances of vector-add, softmax and sgemm accept correct fp32 kernels
# with margin and reject TF32, fp16 accumulation and unstable softmax.
# Arg 1: build directory. Ends with "N passed, N failed, N skipped".
set -u
build=${1:-build}
mkdir -p "$build/oracle"
cc=${CC:-gcc}
# -ffp-contract=off: the simulated fp32 sums must round after every operation.
if ! "$cc" -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
    -Wstrict-prototypes -Wformat=2 -Wvla -ffp-contract=off tests/oracle/tolerance.c \
    -o "$build/oracle/tolerance" -lm; then
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
exec "$build/oracle/tolerance"
