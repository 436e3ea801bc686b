#!/usr/bin/env bash
# run-suite.sh - runs one suite of Blockwise's tests and prints one summary line.
#
#   tests/run-suite.sh cpu BUILD [ASAN_BUILD]   unit tests, the same under ASan, shell suites
#   tests/run-suite.sh gpu BUILD                the GPU suite (on the H200 machine)
#
# Every test binary and script ends its output with "N passed, N failed, N skipped";
# this script runs each, keeps its full log under BUILD/test-logs/, prints the
# logs of the ones that failed, and ends with the sum in the same format.
set -u
suite=$1
build=$2
asan=${3:-}
logs=$build/test-logs
mkdir -p "$logs/asan"

total_pass=0 total_fail=0 total_skip=0
failed_names=()

# run NAME COMMAND... : runs one test program, adds its summary line to the totals.
run() {
    local name=$1
    shift
    local log=$logs/$name.log
    local start=$SECONDS
    "$@" >"$log" 2>&1
    local rc=$?
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        # A program that died before its summary counts as one failure.
        line="0 passed, 1 failed, 0 skipped"
        echo "  $name: no summary line (exit $rc); see $log"
    fi
    local p f s
    p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
    s=${s:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "  $name: exit status $rc with no failed test; counted as a failure"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + s))
    printf '%-40s %s  (%ds)\n' "$name" "$line" $((SECONDS - start))
    if [ "$f" -ne 0 ]; then
        failed_names+=("$name")
        sed 's/^/    | /' "$log" | grep -v '^    | ok ' | tail -n 60
    fi
}

case "$suite" in
cpu)
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        run "$(basename "$t")" "$t"
    done
    if [ -n "$asan" ]; then
        for t in "$asan"/tests/test_*; do
            [ -x "$t" ] || continue
            # The sandbox and NVRTC tests fork children that ASan's leak checker
            # cannot follow usefully; leaks are checked in-process only.
            ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
                run "asan/$(basename "$t")" "$t"
        done
    fi
    for s in tests/cpu/*.sh; do
        [ -x "$s" ] || continue
        run "$(basename "$s" .sh)" "$s" "$build"
    done
    ;;
gpu)
    for s in tests/gpu/*.sh; do
        [ -x "$s" ] || continue
        run "$(basename "$s" .sh)" "$s" "$build"
    done
    ;;
*)
    echo "usage: $0 cpu|gpu BUILD [ASAN_BUILD]" >&2
    exit 2
    ;;
esac

if [ ${#failed_names[@]} -gt 0 ]; then
    echo "failed: ${failed_names[*]}"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
