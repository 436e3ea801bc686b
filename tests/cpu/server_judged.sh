#!/usr/bin/env bash
# server_judged.sh - blockwise-server with the real judged binary as its worker
# (`judged --server URL --token-file F --gpu N --cache DIR`), on loopback:
#   - a kernel with a compile error: claim, compile, result, storage, events;
#   - a kernel that compiles: judged on a GPU, else waiting for a GPU worker;
#   - judged killed with SIGKILL mid-job: lease expiry, requeue, judged again;
#   - the server restarted with jobs queued: none lost, each judged once;
#   - judged stops on SIGTERM;
#   - jobs waiting for a GPU do not hold up a new Run; cancelling one, and
#     one that judged holds (it is refused with 409 and moves on);
#   - judged registers the languages it compiles (CUDA, at its toolkit's
#     version), and a Triton job is never handed to it while it has no Triton.
# Skips when judged has no --server mode yet.
#
#   tests/cpu/server_judged.sh BUILD_DIR
set -u
build=${1:-build}
server_bin=$build/bin/blockwise-server
judged_bin=$build/bin/judged
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() {
    local name=$1
    shift
    if eval "$@"; then ok "$name"; else bad "$name (${GOT:-})"; fi
}

if ! "$judged_bin" --help 2>&1 | grep -q -- '--server'; then
    echo "judged has no --server mode in this build"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
for tool in curl jq; do
    command -v $tool >/dev/null || { echo "$tool missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done

T=$(mktemp -d /tmp/bw-judged-test.XXXXXX)
. tests/lib/postgres.sh
if ! suite_database bw_server_judged "$T/db"; then
    echo "skipped: PostgreSQL: $PG_WHY"
    echo "0 passed, 0 failed, 1 skipped"
    rm -rf "$T"
    exit 0
fi
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
cat >"$T/server.conf" <<EOF
port = $PORT
database = "$DB"
problems = problems
web = ""
pwhash_ops = 1
pwhash_mem_kib = 8192
lease = 4
claim_wait = 2
quota_in_flight = 20
EOF
[ -d problems/vector-add ] || sed -i 's|^problems = problems|problems = tests/fixtures/problems|' "$T/server.conf"
# The same problems, with vector-add offered in Triton too.
. tests/cpu/lib/triton-problem.sh
SRC_PROBLEMS=$(sed -n 's/^problems = //p' "$T/server.conf")
cp -r "$SRC_PROBLEMS" "$T/problems" && triton_problem "$SRC_PROBLEMS/vector-add" "$T/problems" &&
    sed -i "s|^problems = .*|problems = $T/problems|" "$T/server.conf"
"$server_bin" -c "$T/server.conf" create-worker local --token-file "$T/w.token" >/dev/null

SERVER= JUDGED=
start_server() {
    "$server_bin" -c "$T/server.conf" >>"$T/server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 100); do curl -s "$BASE/api/health" >/dev/null && return 0; sleep 0.05; done
    return 1
}
start_judged() {
    env ${SLOW_COMPILE:+BLOCKWISE_COMPILE=$SLOW_COMPILE} "$judged_bin" --server "$BASE" \
        --token-file "$T/w.token" --gpu 0 --cache "$T/cache" >>"$T/judged.log" 2>&1 &
    JUDGED=$!
}
cleanup() {
    [ -n "$JUDGED" ] && kill -KILL "$JUDGED" 2>/dev/null
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
    wait 2>/dev/null
}
finish() {
    cleanup
    if [ "$fail" -ne 0 ]; then
        echo "--- server log"; tail -30 "$T/server.log"
        echo "--- judged log"; tail -30 "$T/judged.log"
    fi
    rm -rf "$T"
    pg_test_cleanup
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
trap 'cleanup; rm -rf "$T"; pg_test_cleanup' INT

start_server || { bad "server starts"; finish; }
CSRF=$(curl -s -c "$T/jar" -H 'Content-Type: application/json' \
    -d '{"name":"learner","password":"password-1"}' "$BASE/api/auth/signup" | jq -r .csrf)
submit() { # FILE MODE -> id
    jq -n --rawfile s "$1" --arg m "$2" '{problem: "vector-add", mode: $m, source: $s}' |
        curl -s -b "$T/jar" -H "X-CSRF-Token: $CSRF" -H 'Content-Type: application/json' \
            --data-binary @- "$BASE/api/submissions" | jq -r .id
}
get() { # ID JQ
    curl -s -b "$T/jar" "$BASE/api/submissions/$1" | jq -r "$2"
}
wait_for() { # ID JQ VALUE SECONDS
    local end=$((SECONDS + $4))
    while [ $SECONDS -lt $end ]; do
        GOT=$(get "$1" "$2")
        [ "$GOT" = "$3" ] && return 0
        sleep 0.2
    done
    return 1
}

PROBLEM_DIR=problems/vector-add
[ -f "$PROBLEM_DIR/problem.json" ] || PROBLEM_DIR=tests/fixtures/problems/vector-add
# The problem's own parameter names, so that the directives pass and NVRTC
# is the one that fails.
ARGS=$(jq -r '[.tensors[].name] + .sizes | join(", ")' "$PROBLEM_DIR/problem.json")
PARAMS=$(jq -r '[.tensors[] | (if .role == "in" then "const float* " else "float* " end) + .name] + [.sizes[] | "long long " + .] | join(", ")' "$PROBLEM_DIR/problem.json")
cat >"$T/ce.cu" <<EOF
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=($ARGS)
extern "C" __global__ void vector_add($PARAMS)
{
    int i = 0   // missing semicolon
}
EOF

# --- a compile error, end to end ---------------------------------------------
start_judged
CE=$(submit "$T/ce.cu" run)
curl -sN -m 60 -b "$T/jar" "$BASE/api/submissions/$CE/events" >"$T/events" &
EV=$!
check "a compile error is judged by judged and stored" 'wait_for "$CE" ".state + \" \" + .verdict" "done CE" 60'
GOT=$(get "$CE" '.result.compile_log + (.result.diagnostics | tostring)')
check "the compiler's diagnostics are stored with the result" '[[ "$GOT" == *"expected a \";\""* ]]'
wait $EV 2>/dev/null
GOT=$(grep '^event:' "$T/events" | tr '\n' ' ')
check "its events arrived on the stream" \
    '[[ "$GOT" == *"event: judging"* && "$GOT" == *"event: compiling"* && "$GOT" == *"event: done"* ]]'

# --- issue 11: what judged compiles; a Triton job is not for a CUDA-only judged ------
check "judged registers what it compiles: CUDA, at its toolkit's version" \
    'grep -qE "worker local registered from .*compiles cuda [0-9]+\.[0-9]+" "$T/server.log"'
TRI=$(jq -n --rawfile s "$T/problems/vector-add/solution.py" \
    '{problem: "vector-add", mode: "run", language: "triton", source: $s}' |
    curl -s -b "$T/jar" -H "X-CSRF-Token: $CSRF" -H 'Content-Type: application/json' \
        --data-binary @- "$BASE/api/submissions" | jq -r .id)
if grep -qE "worker local registered from .*compiles .*triton" "$T/server.log"; then
    skip=$((skip + 1))
    echo "skip - judged registered Triton here: a Triton job is for it"
else
    NEXT=$(submit "$T/ce.cu" run)
    wait_for "$NEXT" ".state + \" \" + .verdict" "done CE" 60 # judged claimed past it
    GOT=$(get "$TRI" '.language + " " + .state + " " + (.attempts | tostring)')
    check "a Triton Run is never handed to judged while it compiles CUDA only" '[ "$GOT" = "triton queued 0" ]'
    curl -s -o /dev/null -b "$T/jar" -H "X-CSRF-Token: $CSRF" -X POST "$BASE/api/submissions/$TRI/cancel"
fi

# --- a kernel that compiles -------------------------------------------------------
GPU=$("$judged_bin" calibrate >/dev/null 2>&1 && echo yes || echo no)
SOLUTION=$PROBLEM_DIR/solution.cu
OK=$(submit "$SOLUTION" run)
if [ "$GPU" = yes ]; then
    check "a correct kernel is Accepted on the GPU" 'wait_for "$OK" ".verdict" "AC" 120'
else
    check "without a GPU it compiles and waits for a GPU worker" \
        'wait_for "$OK" "(.state) + \" \" + (.waiting_for_gpu | tostring)" "queued true" 60'
fi

# --- issue 12: waiting jobs do not block, cancel -----------------------------------
cancel() { # ID -> the reply; HTTP status in $T/cancel.status
    curl -s -o "$T/cancel.json" -w '%{http_code}' -b "$T/jar" -H "X-CSRF-Token: $CSRF" \
        -X POST "$BASE/api/submissions/$1/cancel" >"$T/cancel.status"
    cat "$T/cancel.json"
}
if [ "$GPU" = no ]; then
    OK2=$(submit "$SOLUTION" run)
    wait_for "$OK2" "(.state) + \" \" + (.waiting_for_gpu | tostring)" "queued true" 60
    start=$SECONDS
    CE2=$(submit "$T/ce.cu" run)
    check "with two jobs waiting for a GPU, a new Run still compiles at once (compile error back)" \
        'wait_for "$CE2" ".state + \" \" + .verdict" "done CE" 60'
    GOT="$((SECONDS - start)) s"
    check "and quickly (${GOT})" '[ $((SECONDS - start)) -lt 30 ]'
    GOT=$(cancel "$OK2" | jq -r '.state + " " + .cancelled.from')
    check "a job waiting for a GPU is cancelled by its owner" \
        '[ "$(cat "$T/cancel.status")" = 200 ] && [ "$GOT" = "cancelled waiting_for_gpu" ]'
fi
# The checks below catch judged holding a job. A source judged before comes
# from judged's build cache in milliseconds, and a loaded machine may end a
# compile between two looks: so each try is a new source (a comment), and
# judged compiles through a stand-in that waits 3 s first, until the restart.
printf '#!/bin/sh\nsleep 3\nexec %s "$@"\n' "$(realpath "$build/bin/blockwise-compile")" >"$T/slow-compile"
chmod +x "$T/slow-compile"
kill "$JUDGED" 2>/dev/null
wait "$JUDGED" 2>/dev/null
SLOW_COMPILE=$T/slow-compile
start_judged
fresh_ce() { # TAG -> a file
    { cat "$T/ce.cu"; echo "// $1 $RANDOM"; } >"$T/ce-$1.cu"
    echo "$T/ce-$1.cu"
}
held=
for try in 1 2 3 4 5 6; do
    ID=$(submit "$(fresh_ce cancel-$try)" run)
    wait_for "$ID" .state judging 30 || continue
    GOT=$(cancel "$ID" | jq -r '.state + " " + (.cancelled.from // "")')
    if [ "$(cat "$T/cancel.status")" = 200 ] && [ "$GOT" = "cancelled judging" ]; then
        held=$ID
        break
    fi
done
check "a job is cancelled while judged holds it" '[ -n "$held" ]'
if [ -n "$held" ]; then
    end=$((SECONDS + 30))
    while [ $SECONDS -lt $end ] && ! grep -qE "submission $held: lease .* lost|submission $held was cancelled by learner" "$T/judged.log"; do
        sleep 0.2
    done
    GOT=$(grep -E "submission $held: lease .* lost|submission $held was cancelled by learner" "$T/judged.log" | head -2)
    check "judged is told (409 cancelled) and drops the job" '[ -n "$GOT" ]'
    GOT=$(get "$held" '.state + " " + (.verdict // "none") + " " + (.result | tostring)')
    check "its result is not stored: the submission stays cancelled" '[ "$GOT" = "cancelled none null" ]'
    NEXT=$(submit "$T/ce.cu" run)
    check "judged moves on: the next job is judged" 'wait_for "$NEXT" ".state + \" \" + .verdict" "done CE" 60'
    check "judged is still running" 'kill -0 "$JUDGED" 2>/dev/null'
fi

# --- SIGKILL mid-job ---------------------------------------------------------------
killed=
for try in 1 2 3 4 5; do
    ID=$(submit "$(fresh_ce kill-$try)" run)
    wait_for "$ID" .state judging 30 || continue # judged finished it between two looks
    kill -KILL "$JUDGED"
    wait "$JUDGED" 2>/dev/null
    JUDGED=
    if [ "$(get "$ID" .state)" = judging ]; then
        killed=$ID
        break
    fi
    start_judged
done
check "judged was killed holding a job" '[ -n "$killed" ]'
if [ -n "$killed" ]; then
    check "the lease expires and the job is queued again" 'wait_for "$killed" .state queued 20'
    start_judged
    check "the next judged judges it, once" \
        'wait_for "$killed" "(.state) + \" \" + .verdict + \" \" + (.attempts | tostring)" "done CE 2" 60'
fi

# --- server restart with jobs queued -------------------------------------------
SLOW_COMPILE=
if [ -n "$JUDGED" ]; then
    kill "$JUDGED" 2>/dev/null
    wait "$JUDGED" 2>/dev/null
fi
start_judged
sleep 1
kill -TERM "$JUDGED"
wait "$JUDGED"
rc=$?
JUDGED=
check "judged exits cleanly on SIGTERM" '[ $rc -eq 0 ]'
ids=()
for i in 1 2 3; do ids+=("$(submit "$T/ce.cu" run)"); done
kill -TERM "$SERVER"
wait "$SERVER"
SERVER=
start_server
start_judged
all=yes
for id in "${ids[@]}"; do
    wait_for "$id" "(.state) + \" \" + .verdict + \" \" + (.attempts | tostring)" "done CE 1" 60 || {
        all=no
        echo "submission $id: $GOT"
    }
done
check "queued jobs survive a server restart and are judged once each" '[ "$all" = yes ]'
GOT=$(curl -s "$BASE/metrics" | grep '^blockwise_judging ')
check "no lease is left behind" '[ "$GOT" = "blockwise_judging 0" ]'
finish
