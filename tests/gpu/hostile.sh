#!/usr/bin/env bash
# hostile.sh - each hostile kernel of tests/hostile/run/ gets its verdict, and a
# correct kernel judged right after it is still Accepted (the GPU and the
# judge recovered). Run on the GPU machine: tests/gpu/hostile.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
problem=problems/vector-add
pass=0 fail=0

verdict_of() { # FILE -> prints the verdict code of judging FILE (tests only)
    "$judged" check ${JUDGED_FLAGS:-} --tests-only --json "$problem" "$1" 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["verdict"])' 2>/dev/null || echo "none"
}
code_of() { # "Time Limit" -> TLE
    case "$1" in
    Accepted) echo AC ;; "Wrong Answer") echo WA ;; "Compile Error") echo CE ;;
    "Runtime Error") echo RE ;; "Time Limit") echo TLE ;; "Memory Violation") echo MV ;;
    "Input Modified") echo IM ;; *) echo "?" ;;
    esac
}

for f in tests/hostile/run/*.cu; do
    name=$(basename "$f" .cu)
    [ "$name" = good ] && continue
    want=$(code_of "$(sed -n '1s|^// expect: ||p' "$f")")
    start=$(date +%s.%N)
    got=$(verdict_of "$f")
    secs=$(python3 -c "import time; print(f'{time.time()-$start:.2f}')")
    after=$(verdict_of tests/hostile/run/good.cu)
    if [ "$got" = "$want" ] && [ "$after" = AC ]; then
        echo "ok   $name: $got in ${secs}s; good.cu afterwards: $after"
        pass=$((pass + 1))
    else
        echo "FAIL $name: expected $want, got $got in ${secs}s; good.cu afterwards: $after"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
