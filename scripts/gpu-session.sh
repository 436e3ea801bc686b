#!/usr/bin/env bash
# gpu-session.sh - one batched session on the GPU machine: machine facts, then
# the named steps, each under its own time limit, full logs in $OUT (or
# /tmp/gpu-session), a short summary last. Used by developers through the
# device tool: the machine is costly to start, so one call does many things.
#   scripts/gpu-session.sh BUILD STEP...
# Steps: facts runner calibrate check hostile directives validate gputest bench, and
#   launcher   tests/gpu/triton-launcher.sh (the tutorials' launchers on the real Triton)
#   huge       LANGUAGE=all tests/gpu/huge.sh (the past-2^31 tests, CUDA and Triton controls)
#   baseline   tests/gpu/baseline.sh (PyTorch's time against an independent timing)
#   triton     make gpu-triton (every Triton control, tests only)
#   profile    the driver's profiling setting, then tests/gpu/profile.sh (Profile mode)
#   latency    tests/bench/latency.sh, 2 slots, without every problem's Submit: the Triton
#              targets (Runs, launch-only edit, burst, flash-attention's Submit) beside
#              CUDA's Run and burst, within LATENCY_S (default 420) seconds
#   fold       the launcher whose tensor descriptors take a stride solve passes (1 in every
#              test case, folded as Triton's JIT does) Accepted on the real Triton
#   timed      make gpu-validate (every CUDA control, timed as a Submit)
#   tritontimed scripts/gpu-triton-timed.sh, 2 at a time (every Accepted Triton control Submitted)
# BASELINE_PROBLEMS limits the baseline step to those problems (tests/gpu/baseline.sh).
# A session of three device calls that checks the GPU half of everything:
#   GPU_SKIP="triton-launcher huge profile" make gpu-test          (503 s on 2026-12-05)
#   scripts/gpu-session.sh build facts profile launcher huge       (224 s), then baseline, triton
#   make bench                                                     (506 s)
set -u
build=$1
shift
out=${OUT:-/tmp/gpu-session}
mkdir -p "$out"
judged=$build/bin/judged
summary=$out/summary.txt
: >"$summary"

# GPU_SESSION_BUDGET_S (default 570): the call's whole time; a step's limit is
# cut to what is left, and a step with under 20 s left is skipped, saying so.
deadline=$((SECONDS + ${GPU_SESSION_BUDGET_S:-570}))
step() { # NAME LIMIT_S COMMAND...
    local name=$1 limit=$2
    shift 2
    local s=$SECONDS left=$((deadline - SECONDS))
    [ "$limit" -gt "$left" ] && limit=$left
    if [ "$limit" -lt 20 ]; then
        printf '%-12s skipped: %s s left of GPU_SESSION_BUDGET_S\n' "$name" "$left" | tee -a "$summary"
        return
    fi
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
    directives) step directives 120 tests/gpu/directives.sh "$build" ;;
    validate) step validate 420 tests/gpu/validate.sh "$build" ;;
    timed) step timed 300 env OUT="$out" scripts/gpu-validate.sh "$build" ;;
    tritontimed)
        left=$((deadline - SECONDS))
        [ "$left" -gt 420 ] && left=420
        step tritontimed 420 env OUT="$out" JOBS=2 scripts/gpu-triton-timed.sh "$build" $((left - 10))
        ;;
    gputest) step gputest 580 make --no-print-directory gpu-test BUILD="$build" ;;
    bench) step bench 580 tests/bench/run.sh "$build" ;;
    launcher) step launcher 420 tests/gpu/triton-launcher.sh "$build" ;;
    huge) step huge 240 env LANGUAGE=all tests/gpu/huge.sh "$build" ;;
    baseline)
        left=$((deadline - SECONDS))
        [ "$left" -gt 300 ] && left=300
        step baseline 300 env BASELINE_BUDGET_S=$((left - 20)) bash tests/gpu/baseline.sh "$build"
        ;;
    fold)
        step fold 120 "$judged" check --tests-only problems/autotuned-matmul \
            tests/fixtures/triton-launchers/matmul_descriptor_strides.py
        ;;
    latency)
        # the Triton parts get 60% of the step; the server's start and CUDA's parts the rest
        left=$((deadline - SECONDS))
        limit=${LATENCY_S:-420}
        [ "$left" -lt "$limit" ] && limit=$left
        step latency "$limit" env OUT="$out/latency" tests/bench/latency.sh "$build" --slots 2 \
            --skip-solutions --only run,burst8,triton_run,triton_launch,triton_burst,triton_submit \
            --triton-budget $((limit * 6 / 10)) --budget $((limit - 25))
        ;;
    triton)
        # its own budget within the step's limit, and its own folder (it writes a summary.txt)
        left=$((deadline - SECONDS))
        [ "$left" -gt 420 ] && left=420
        step triton 420 env OUT="$out/triton" scripts/gpu-triton.sh "$build" $((left - 15))
        ;;
    profile)
        # NVreg_RestrictProfilingToAdminUsers=1 leaves the sandboxed runner without counters
        grep -i profil /proc/driver/nvidia/params 2>&1 | sed 's/^/driver: /' | tee -a "$summary"
        step profile 300 bash tests/gpu/profile.sh "$build"
        ;;
    *) echo "unknown step $st" | tee -a "$summary" ;;
    esac
done
echo "=== summary"
cat "$summary"
for f in "$out"/timed.log "$out"/tritontimed.log "$out"/baseline.log; do
    [ -f "$f" ] && { echo "=== $f (all but its ok lines)"; grep -v '^ok' "$f" | cut -c1-300 | tail -n 30; }
done
for f in "$out"/check-*.log "$out"/calibrate.log; do
    [ -f "$f" ] && { echo "=== $f"; tail -n 25 "$f"; }
done
# The device tool brings back 8 files of $OUT: the summary and the facts stay, the rest is archived.
scripts/pack-out.sh "$out" summary.txt facts.log
