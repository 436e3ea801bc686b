#!/usr/bin/env bash
# gpu-session.sh - one batched session on the GPU machine: machine facts, then
# the named steps, each under its own time limit, full logs in $OUT (or
# /tmp/gpu-session), a short summary last. Used by developers through the
# device tool: the machine is costly to start, so one call does many things.
#   scripts/gpu-session.sh BUILD STEP...    steps: facts runner calibrate check hostile validate gputest bench
set -u
build=$1
shift
out=${OUT:-/tmp/gpu-session}
mkdir -p "$out"
judged=$build/bin/judged
summary=$out/summary.txt
: >"$summary"

step() { # NAME LIMIT_S COMMAND...
    local name=$1 limit=$2
    shift 2
    local s=$SECONDS
    timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    local last
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/$name.log" | tail -n 1)
    printf '%-12s rc=%-3s %4ss  %s\n' "$name" "$rc" $((SECONDS - s)) "$last" | tee -a "$summary"
}

for st in "$@"; do
    case "$st" in
    facts)
        { nvidia-smi; uname -a; ls -l /usr/local/cuda/lib64/libnvrtc.so* 2>&1; ldd "$judged" "$build/bin/blockwise-runner" "$build/bin/blockwise-compile"; } >"$out/facts.log" 2>&1
        grep -E 'H200|H100|Driver Version' "$out/facts.log" | head -3 >>"$summary"
        grep 'not found' "$out/facts.log" >>"$summary"
        ;;
    runner) step runner 240 tests/gpu/runner.sh "$build" ;;
    calibrate) step calibrate 180 "$judged" calibrate --recalibrate ;;
    check)
        for d in problems/*/; do
            n=$(basename "$d")
            step "check-$n" 240 "$judged" check --progress "$d" "$d/solution.cu"
        done
        ;;
    hostile) step hostile 300 tests/gpu/hostile.sh "$build" ;;
    validate) step validate 420 tests/gpu/validate.sh "$build" ;;
    gputest) step gputest 580 make --no-print-directory gpu-test BUILD="$build" ;;
    bench) step bench 580 tests/bench/run.sh "$build" ;;
    *) echo "unknown step $st" | tee -a "$summary" ;;
    esac
done
echo "=== summary"
cat "$summary"
for f in "$out"/check-*.log "$out"/calibrate.log; do
    [ -f "$f" ] && { echo "=== $f"; tail -n 25 "$f"; }
done
