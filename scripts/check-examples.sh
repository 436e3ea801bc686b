#!/usr/bin/env bash
# check-examples.sh - build, then judge each problem's example
# submission (its solution.cu) with judged check. Without a GPU, judged
# compiles and says that running needs one.
set -u
cd "$(dirname "$0")/.."
make -j"$(nproc)" all || exit 1
status=0
for d in problems/*/; do
    [ -f "$d/problem.json" ] || continue
    echo "=== judged check $d ${d}solution.cu"
    build/bin/judged check "$d" "${d}solution.cu"
    rc=$?
    # 0 accepted, 4 compiled without a GPU: both are a healthy run.
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then status=1; fi
done
exit $status
