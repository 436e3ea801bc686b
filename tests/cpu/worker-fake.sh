#!/usr/bin/env bash
# worker-fake.sh - blockwise-server and a judged worker that executes, on
# loopback, without a GPU: the worker's runners use the fake CUDA driver
# (tests/fake/libcuda.c, see tests/cpu/judge-fake.sh), so Runs and Submits go
# through claim, bundle, compile, the runner pool, tests, timing and result,
# as on a GPU worker. Checks:
#   - a worker with --slots 2 judges a burst of Runs (learners at once), every
#     one executed with the right verdict; a Runtime Error, a Time Limit and a
#     Memory Violation in the burst cost nobody else their verdict;
#   - a Submit in the burst is timed (its shapes run alone: the GPU gate);
#   - the worker logs the device memory its jobs' runs share (device_memory.h);
#   - identical sources in the burst are compiled once (compile_cached);
#   - every job is judged exactly once.
#   tests/cpu/worker-fake.sh BUILD           on the fake driver (make test)
#   tests/cpu/worker-fake.sh BUILD --gpu     the same checks on the real GPU, with
#                                            problems/vector-add and tests/hostile/run
#                                            (tests/gpu/burst.sh, make gpu-test)
set -u
build=${1:-build}
gpu=${2:-}
server_bin=$build/bin/blockwise-server
judged_bin=$build/bin/judged
fake=$build/tests/fake
problems=tests/fixtures/fake-gpu pid=fake-add
problem=$problems/$pid
OK=$problem/solution.cu FAULT=$problem/wrong/fault.cu HANG=$problem/wrong/hang.cu
OVERRUN=$problem/wrong/tail_overrun.cu TUNED=$problem/tuned.cu SHAPES=2 GOALS=3
# LASTING: a Submit that takes seconds to judge (on the fake: 200 ms a launch)
LASTING=$problem/slow.cu
# Triton Runs: a correct one and a wrong one, with the wrong one's verdict
TRITON_OK=$problem/solution.py TRITON_BAD=$problem/starter.py TRITON_BAD_V=WA
# a Triton launcher (solve(...), recorded in the compile sandbox): autotuned, two configurations
TRITON_LAUNCHER=$problem/launcher.py
if [ "$gpu" = --gpu ]; then
    problems=problems pid=vector-add problem=problems/vector-add
    OK=$problem/solution.cu FAULT=tests/hostile/run/illegal-address.cu
    HANG=tests/hostile/run/endless.cu OVERRUN=tests/hostile/run/past-tail.cu TUNED=$OK
    LASTING=tests/fixtures/gpu/slow-vector-add.cu # 25 ms a launch
    TRITON_OK=$problem/solution.py TRITON_BAD=$problem/wrong/no_mask.py TRITON_BAD_V=MV
    TRITON_LAUNCHER=tests/fixtures/triton-launchers/vector_add_seed.py
    SHAPES=$(jq '.benchmarks | length' "$problem/problem.json")
    GOALS=$(jq '.goals // [] | length' "$problem/problem.json")
fi
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() {
    local name=$1
    shift
    if eval "$@"; then ok "$name"; else bad "$name (${GOT:-})"; return 1; fi
}
needs=("$server_bin" "$judged_bin" "$build/bin/blockwise-runner")
[ "$gpu" = --gpu ] || needs+=("$fake/libcuda.so.1") # on the GPU machine: the real driver
for need in "${needs[@]}"; do
    [ -e "$need" ] || { echo "  skip: needs make all ($need)"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
for tool in curl jq; do
    command -v $tool >/dev/null || { echo "  skip: $tool missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done

T=$(mktemp -d /tmp/bw-worker-fake.XXXXXX)
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
if [ "$gpu" = --gpu ]; then
    ln -s "$(realpath "$build/bin/blockwise-runner")" "$T/runner"
else
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$(realpath "$fake")" \
        "$(realpath "$build/bin/blockwise-runner")" >"$T/runner"
    chmod +x "$T/runner"
    # Triton through the fake triton package, whose builds the fake driver runs
    . tests/cpu/lib/fake-triton.sh
    fake_triton_venv "$T/venv" && export BLOCKWISE_PYTHON=$T/venv/bin/python3
fi
cat >"$T/server.conf" <<CONF
port = $PORT
database = $T/db
problems = $problems
web = ""
pwhash_ops = 1
pwhash_mem_kib = 8192
lease = 20
claim_wait = 2
quota_in_flight = 50
CONF
"$server_bin" -c "$T/server.conf" create-worker fake --token-file "$T/w.token" >/dev/null
SERVER= JUDGED=
cleanup() {
    [ -n "$JUDGED" ] && kill -KILL "$JUDGED" 2>/dev/null
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
    wait 2>/dev/null
}
finish() {
    cleanup
    if [ "$fail" -ne 0 ]; then
        echo "--- server log"; tail -20 "$T/server.log"
        echo "--- judged log"; tail -40 "$T/judged.log"
    fi
    rm -rf "$T"
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
trap 'cleanup; rm -rf "$T"' INT TERM

"$server_bin" -c "$T/server.conf" >>"$T/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -s "$BASE/api/health" >/dev/null && break; sleep 0.05; done
BLOCKWISE_RUNNER=$T/runner HOME=$T "$judged_bin" --server "$BASE" --token-file "$T/w.token" \
    --gpu 0 --slots 2 --cache "$T/cache" --log-level debug >>"$T/judged.log" 2>&1 &
JUDGED=$!

signup() { # NAME
    curl -s -c "$T/jar.$1" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$1\",\"password\":\"password-1\"}" "$BASE/api/auth/signup" |
        jq -r .csrf >"$T/csrf.$1"
}
submit() { # USER FILE MODE [LANGUAGE] -> id
    jq -n --rawfile s "$2" --arg m "$3" --arg p "$pid" --arg l "${4:-cuda}" \
        '{problem: $p, mode: $m, source: $s, language: $l}' |
        curl -s -m 10 -b "$T/jar.$1" -H "X-CSRF-Token: $(cat "$T/csrf.$1")" \
            -H 'Content-Type: application/json' --data-binary @- "$BASE/api/submissions" | jq -r .id
}
get() { # USER ID JQ
    curl -s -m 10 -b "$T/jar.$1" "$BASE/api/submissions/$2" | jq -r "$3"
}
wait_done() { # USER ID SECONDS
    local end=$((SECONDS + $3))
    while [ $SECONDS -lt $end ]; do
        [ "$(get "$1" "$2" .state)" = done ] && return 0
        sleep 0.2
    done
    return 1
}

for _ in $(seq 200); do grep -q 'registered' "$T/judged.log" && break; sleep 0.1; done
GOT=$(grep -E 'registered|slots' "$T/judged.log" | head -2 | tr '\n' ' ')
check "the worker registers with its (fake) GPU and 2 job slots" \
    '[[ "$GOT" == *"2 job slots"* && "$GOT" != *"compile only"* ]]'
# the device memory its jobs' runs share (device_memory.h): the fake's 1 GiB less 1/8
GOT=$(grep -o 'GPU 0: [0-9.]* GB of its [0-9.]* GB of memory' "$T/judged.log" | head -n 1)
WANT="GPU 0: 0.9 GB of its 1.1 GB of memory"
[ "$gpu" = --gpu ] && WANT=$GOT # a real GPU's figures: the line is there
check "the worker says how much device memory its jobs' runs share ($GOT)" \
    '[ -n "$GOT" ] && [ "$GOT" = "$WANT" ]'

# A burst: four learners, three Runs each, a fault, a hang and an overrun among them.
declare -A want
for u in ann bob cid dee; do signup $u; done
ids=()
for u in ann bob cid dee; do
    for k in 1 2 3; do
        file=$OK v=AC
        [ "$u$k" = bob2 ] && file=$FAULT v=RE
        [ "$u$k" = cid1 ] && file=$HANG v=TLE
        [ "$u$k" = dee3 ] && file=$OVERRUN v=MV
        id=$(submit $u "$file" run)
        ids+=("$u:$id")
        want[$id]=$v
    done
done
SUB=$(submit ann "$TUNED" submit)
all_done=yes wrong=""
for e in "${ids[@]}" "ann:$SUB"; do
    u=${e%%:*} id=${e#*:}
    wait_done "$u" "$id" 120 || { all_done=no; wrong+=" $id:not-done"; continue; }
    v=$(get "$u" "$id" .verdict)
    x=$(get "$u" "$id" .result.executed)
    w=${want[$id]:-AC}
    [ "$v" = "$w" ] && [ "$x" = true ] || wrong+=" $id:$v/$x(want $w)"
done
GOT=$wrong
check "every Run of the burst executed with its verdict (RE, TLE and MV cost nobody else theirs)" \
    '[ "$all_done" = yes ] && [ -z "$wrong" ]'
GOT=$(get ann "$SUB" '[.verdict, (.result.benches | length), (.result.goals | length)] | map(tostring) | join(" ")')
check "the Submit in the burst was timed on every shape with its goals" '[ "$GOT" = "AC $SHAPES $GOALS" ]'
GOT=$(for e in "${ids[@]}"; do get "${e%%:*}" "${e#*:}" .result.compile_cached; done | sort | uniq -c | tr -s ' ' | tr '\n' ',')
check "identical sources were compiled once (the others reused the build)" '[[ "$GOT" == *" true"* ]]'
GOT=$(grep -c 'judging (' "$T/judged.log")
check "the worker judged every job once" '[ "$GOT" -eq 13 ]'

# A Submit cancelled while it is judged: the worker stops judging it at once
# (its slot is free for the next job long before the timing would have ended).
SLOW=$(submit ann "$LASTING" submit)
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ] && [ "$(get ann "$SLOW" .state)" != judging ]; do sleep 0.1; done
sleep 1 # into its tests or timing
curl -s -m 10 -b "$T/jar.ann" -H "X-CSRF-Token: $(cat "$T/csrf.ann")" -X POST \
    "$BASE/api/submissions/$SLOW/cancel" >/dev/null
t0=$SECONDS
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ] && ! grep -q "submission $SLOW: lease .* lost" "$T/judged.log"; do sleep 0.1; done
AFTER=$(submit bob "$OK" run)
wait_done bob "$AFTER" 60
GOT="$(get ann "$SLOW" .state) $(get bob "$AFTER" .verdict) $((SECONDS - t0)) s"
check "a cancelled Submit stops being judged, and the next Run is judged at once" \
    '[[ "$GOT" == "cancelled AC "* ]] && [ $((SECONDS - t0)) -lt 15 ] && grep -q "judging stops" "$T/judged.log"'

# While a source new to the build cache compiles (NVRTC: 100 ms or more), the
# reference, its build cached by the jobs above, runs the first cases (judge.c,
# prepare_reference): their expected outputs are ready when the tests begin.
# A failure prints the Run's timing and the worker's debug lines for it. Until
# 2026-12-03 this failed in 6 of 9 runs on the H200: the Run got a reference
# runner whose lent buffers did not fit vector-add's cases yet, and the
# reference pipe first sized them all for the largest case, 466-490 ms,
# against a compile of 63-89 ms; they now grow with the cases.
{ cat "$OK"; echo "// new to the build cache: $$ $RANDOM"; } >"$T/fresh.cu"
log_at=$(wc -l <"$T/judged.log")
FRESH=$(submit bob "$T/fresh.cu" run)
wait_done bob "$FRESH" 60
GOT=$(get bob "$FRESH" '[.verdict, .result.compile_cached, .result.timing.tests_breakdown.reference_ready] | map(tostring) | join(" ")')
WHY=$(get bob "$FRESH" '.result.timing | (. + .tests_breakdown) | [to_entries[] | select(.value | type == "number") | "\(.key) \(.value)"] | join(", ")')
READY=$GOT GOT="$GOT; timing: $WHY"
check "a Run's first expected outputs are computed while it compiles" '[[ "$READY" == "AC false "[12] ]]' ||
    tail -n +"$((log_at + 1))" "$T/judged.log" | grep -E "submission $FRESH:|runner pool" | head -30

# With Triton (the real one on the GPU machine, the fake package here): the
# worker registers it, and Triton Runs go through the server to their verdicts.
if grep -q "this worker judges Triton submissions too" "$T/judged.log"; then
    TR=$(submit ann "$TRITON_OK" run triton)
    TW=$(submit bob "$TRITON_BAD" run triton)
    wait_done ann "$TR" 180
    wait_done bob "$TW" 180
    GOT="$(get ann "$TR" .language) $(get ann "$TR" .verdict) $(get bob "$TW" .verdict) $(get ann "$TR" .result.executed)"
    check "Triton Runs through the server: ${TRITON_OK#"$problem"/} AC, ${TRITON_BAD#"$problem"/} $TRITON_BAD_V" \
        '[ "$GOT" = "triton AC $TRITON_BAD_V true" ]'
    TL=$(submit ann "$TRITON_LAUNCHER" submit triton)
    wait_done ann "$TL" 180
    GOT="$(get ann "$TL" '[.verdict, .result.executed, (.result.benches | length)] | map(tostring) | join(" ")')"
    check "a Triton launcher (solve, @triton.autotune) Submitted through the server: AC, every shape timed" \
        '[ "$GOT" = "AC true $SHAPES" ]'
    # The build cache keys a Triton build by the module but its launch lines: a
    # launch-only edit (the grid, written another way) compiles nothing and takes
    # no compiler; any other edit (a comment appended) compiles again, on a warm
    # compiler from the worker's pool (its wait for one: none).
    sed 's/grid=(/grid=(0 + /' "$TRITON_OK" >"$T/launch-edit.py"
    { cat "$TRITON_OK"; echo "# an edit that is code's: $$ $RANDOM"; } >"$T/comment-edit.py"
    TL=$(submit ann "$T/launch-edit.py" run triton)
    wait_done ann "$TL" 120
    TC=$(submit ann "$T/comment-edit.py" run triton)
    wait_done ann "$TC" 120
    cb='.result.timing.compile_breakdown'
    GOT="$(get ann "$TL" "[.verdict, $cb.builds_compiled, $cb.builds_cached > 0, .result.compile_cached] | map(tostring) | join(\" \")")"
    check "a launch-only Triton edit compiles nothing: every build from the cache ($GOT)" \
        '[ "$GOT" = "AC 0 true true" ]'
    GOT="$(get ann "$TC" "[.verdict, $cb.builds_cached, $cb.builds_compiled > 0, $cb.compiler_wait_ms < 50] | map(tostring) | join(\" \")") (waited $(get ann "$TC" "$cb.compiler_wait_ms") ms for a compiler)"
    check "an edit of the code compiles again, on a warm compiler ready in the pool" \
        '[[ "$GOT" == "AC 0 true true "* ]]'
else
    skip=$((skip + 1))
    echo "skip - Triton through the server: $(grep -o 'no Triton (.*' "$T/judged.log" | head -1)"
fi
finish
