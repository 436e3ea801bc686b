#!/usr/bin/env bash
# hardening.sh - blockwise-server against learners, instructors, admins and
# attackers who would read, block or bury others (issue 28), on loopback with
# the real binary, curl as the clients and as a worker, the real judged:
#   - small things: an unknown problem's leaderboard is 404, a 100 KiB header
#     gets 431 in the JSON error shape, make run PORT=N (unsafe links in
#     statements are a unit test, test_server);
#   - worker tokens: create-worker with an unwritable --token-file leaves no
#     worker; rotate and delete, from the command line and the admin API;
#   - the queue serves learners in turns: 100 parked Runs of one learner do
#     not hold up another's;
#   - a judged killed with SIGKILL mid-job is lost within 15 s (its
#     heartbeats kept the job for longer than a lease before), the job
#     requeued, the learner and the admin told;
#   - slow clients: the whole-request deadline and the cap on connections
#     per address; event streams and long-polls unaffected;
#   - password hashing off the HTTP threads: /api/health p99 under 50 ms
#     while 200 sign-ins run 50 at a time; 429 busy when the queue is full;
#     sign-ups per address;
#   - sign-in lockouts spare known devices: the right password still signs in
#     from the admin's browser during a guessing attack from the same
#     address, a classroom's typos are forgiven, admins unlock (API, CLI).
# Every load is bounded in count and time; the whole suite has a deadline.
#
#   tests/cpu/hardening.sh BUILD_DIR
set -u
build=${1:-build}
bin=${SERVER_BIN:-$build/bin/blockwise-server}
. tests/cpu/lib/server-suite.sh
finish() {
    [ -n "${JUDGED:-}" ] && kill -KILL "$JUDGED" 2>/dev/null
    stop_server
    [ -n "${WATCHDOG:-}" ] && kill "$WATCHDOG" 2>/dev/null
    if [ "$fail" -ne 0 ] && [ -f "$T/server.log" ]; then
        echo "--- the server's log (last 40 lines)"
        tail -40 "$T/server.log"
    fi
    rm -rf "$T"
    pg_test_cleanup
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
server_suite_needs

T=$(mktemp -d /tmp/bw-hardening-test.XXXXXX)
. tests/lib/postgres.sh
if ! suite_database bw_hardening "$T/blockwise.db"; then
    echo "skipped: PostgreSQL: $PG_WHY"
    echo "0 passed, 0 failed, 1 skipped"
    rm -rf "$T"
    exit 0
fi
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
cat >"$T/base.conf" <<EOF
listen = 127.0.0.1
port = $PORT
database = "$DB"
problems = tests/fixtures/problems
web = ""
threads = 4
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_run = 200
quota_submit = 20
quota_in_flight = 3
claim_wait = 2
sse_heartbeat = 1
log_level = info
EOF
CONF=$T/base.conf
conf() { # conf FILE KEY=VALUE...: the base config with these keys replaced
    local f=$1
    shift
    local keys
    keys=$(printf '%s\n' "$@" | sed 's/=.*//' | paste -sd'|' -)
    grep -v -E "^($keys) *=" "$T/base.conf" >"$f"
    printf '%s\n' "$@" | sed 's/=/ = /' >>"$f"
}

trap 'stop_server KILL; rm -rf "$T"; pg_test_cleanup' INT
suite_deadline "${BW_HARDENING_TEST_DEADLINE:-560}"

echo admin-password >"$T/admin.pw"
"$bin" -c "$CONF" create-admin admin --password-file "$T/admin.pw" >/dev/null 2>&1
start_server || finish
signin admin admin-password -c "$T/admin.jar"
field .csrf >"$T/admin.csrf"
check "the admin signs in" '[ "$STATUS" = 200 ]'

# --- item 8: small things --------------------------------------------------------
req GET /api/problems/no-such-problem/leaderboard
check "an unknown problem's leaderboard is 404 in the JSON error shape" \
    '[ "$STATUS" = 404 ] && [ "$(err)" = not_found ] && [[ "$(field .error.message)" == *"no-such-problem"* ]]'
req GET /api/problems/vector-add/leaderboard
check "a served problem's leaderboard is 200" '[ "$STATUS" = 200 ] && [ "$(field .problem)" = vector-add ]'
big=$(head -c $((100 * 1024)) /dev/zero | tr '\0' a)
req GET /api/health "" -H "X-Big: $big"
check "a 100 KiB header is 431 in the JSON error shape" \
    '[ "$STATUS" = 431 ] && [ "$(err)" = headers_too_large ] && grep -qi "^Content-Type: application/json" <<<"$HDRS"'
req GET /api/health "" -H "X-Small: $(head -c 8000 /dev/zero | tr '\0' a)"
check "an 8 KB header is fine" '[ "$STATUS" = 200 ]'
check "the server survived it" 'kill -0 "$SERVER_PID" 2>/dev/null'
out=$(make -s -n run PORT=8081 2>/dev/null | grep serve.sh)
check "make run PORT=8081 runs scripts/serve.sh 8081" '[[ "$out" == *"scripts/serve.sh 8081"* ]]'

# --- item 7: worker tokens: created atomically, rotated, deleted ------------------
out=$("$bin" -c "$CONF" create-worker w-lost --token-file "$T/no-such-dir/w.token" 2>&1)
rc=$?
req GET /api/admin/workers "" -b "$T/admin.jar"
check "create-worker with an unwritable --token-file fails (exit 1, naming the file)" \
    '[ $rc -eq 1 ] && [[ "$out" == *"$T/no-such-dir/w.token"* ]]'
check "and leaves no worker behind" '[ "$STATUS" = 200 ] && [ "$(field "[.workers[] | select(.name == \"w-lost\")] | length")" = 0 ]'
"$bin" -c "$CONF" create-worker w-lost --token-file "$T/w1.token" >/dev/null 2>&1
rc=$?
check "the same name then works, the token file mode 0600, no temporary file left" \
    '[ $rc -eq 0 ] && [ "$(stat -c %a "$T/w1.token")" = 600 ] && [[ "$(cat "$T/w1.token")" == bww_* ]] && [ -z "$(ls "$T" | grep "w1.token.tmp")" ]'
REG='{"hostname":"h","version":"v","can_execute":false}'
worker "$T/w1.token" POST /api/judge/register "$REG"
check "its token registers" '[ "$STATUS" = 200 ]'
cp "$T/w1.token" "$T/w1.old"
out=$("$bin" -c "$CONF" rotate-worker w-lost --token-file "$T/w1.token" 2>&1)
rc=$?
worker "$T/w1.old" POST /api/judge/register "$REG"
check "rotate-worker: the old token is refused at once (401)" '[ $rc -eq 0 ] && [ "$STATUS" = 401 ]'
worker "$T/w1.token" POST /api/judge/register "$REG"
check "rotate-worker: the new one in the file works" '[ "$STATUS" = 200 ] && ! cmp -s "$T/w1.token" "$T/w1.old"'
out=$("$bin" -c "$CONF" rotate-worker w-lost --token-file "$T/no-such-dir/w.token" 2>&1)
rc=$?
worker "$T/w1.token" POST /api/judge/register "$REG"
check "rotate-worker with an unwritable file changes nothing" '[ $rc -eq 1 ] && [ "$STATUS" = 200 ]'
"$bin" -c "$CONF" rotate-worker nobody-here >/dev/null 2>&1
rc=$?
check "rotate-worker of an unknown worker fails" '[ $rc -eq 1 ]'

as admin POST /api/admin/workers '{"name":"w-api"}'
printf '%s' "$(field .token)" >"$T/w2.token"
W2=$(field .id)
as admin POST "/api/admin/workers/$W2/token" ''
NEWTOK=$(field .token)
worker "$T/w2.token" POST /api/judge/register "$REG"
check "POST /api/admin/workers/ID/token gives a new token; the old one is 401" \
    '[ "$STATUS" = 401 ] && [[ "$NEWTOK" == bww_* ]]'
printf '%s' "$NEWTOK" >"$T/w2.token"
worker "$T/w2.token" POST /api/judge/register "$REG"
check "and the new one works" '[ "$STATUS" = 200 ]'
as admin POST /api/admin/workers/999999/token ''
check "rotating an unknown worker is 404" '[ "$STATUS" = 404 ] && [ "$(err)" = not_found ]'
signup lena
as lena POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// held"}'
HELD=$(field .id)
worker "$T/w2.token" POST /api/judge/claim '{"wait":0}'
check "the API's worker holds a job" '[ "$STATUS" = 200 ] && [ "$(field .submission)" = "$HELD" ]'
as admin DELETE "/api/admin/workers/$W2" ''
check "DELETE /api/admin/workers/ID is 204" '[ "$STATUS" = 204 ]'
as lena GET "/api/submissions/$HELD"
check "the job it held is queued again, the attempt not counted" \
    '[ "$(field .state)" = queued ] && [ "$(field .attempts)" = 0 ]'
worker "$T/w2.token" POST /api/judge/register "$REG"
check "a deleted worker's token is 401" '[ "$STATUS" = 401 ]'
as admin GET /api/admin/workers
check "a deleted worker is not listed" '[ "$(field "[.workers[] | select(.id == $W2)] | length")" = 0 ]'
as admin POST /api/admin/workers '{"name":"w-api"}'
check "its name can be given to a new worker" '[ "$STATUS" = 201 ]'
as admin DELETE "/api/admin/workers/$W2" ''
check "deleting it again is 404" '[ "$STATUS" = 404 ]'
out=$("$bin" -c "$CONF" delete-worker w-lost 2>&1)
rc=$?
worker "$T/w1.token" POST /api/judge/register "$REG"
check "delete-worker: its token is 401 at once" '[ $rc -eq 0 ] && [ "$STATUS" = 401 ] && [[ "$out" == *"deleted"* ]]'
req GET /metrics
check "deleted workers are not counted as disabled" \
    '[[ "$BODY" == *"blockwise_workers_disabled 0"* ]]'
as lena POST "/api/submissions/$HELD/cancel" ''

# --- item 5: one learner cannot bury the queue ---------------------------------------
stop_server TERM
conf "$T/fair.conf" quota_in_flight=150
CONF=$T/fair.conf
start_server || finish
signup parker
signup late
for i in $(seq 100); do
    as parker POST /api/submissions "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"// parked $i\"}"
    [ "$i" = 1 ] && FIRST=$(field .id)
done
check "a learner parks 100 Runs" '[ "$STATUS" = 201 ] && [ "$(field .position)" = 100 ]'
as late POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// late"}'
LATE=$(field .id)
check "another learner's Run, submitted after them, is second in the queue (not 101st)" \
    '[ "$STATUS" = 201 ] && [ "$(field .position)" = 2 ]'
as late GET "/api/submissions?limit=1"
check "the list shows the same position" '[ "$(field ".submissions[0].position")" = 2 ]'
as admin POST /api/admin/workers '{"name":"w-fair"}'
printf '%s' "$(field .token)" >"$T/wf.token"
worker "$T/wf.token" POST /api/judge/register '{"hostname":"h","version":"v","can_execute":true,"gpu":{"name":"NVIDIA H200"}}'
RESULT='{"result":{"verdict":"CE","message":"compile error","executed":true,"tests":[],"benches":[],"score":0}}'
order=()
for i in 1 2 3; do
    worker "$T/wf.token" POST /api/judge/claim '{"wait":0}'
    order+=("$(field .submission)")
    worker "$T/wf.token" POST "/api/judge/leases/$(field .lease)/result" "$RESULT"
done
as late GET "/api/submissions/$LATE"
check "the second claim is the late learner's Run, judged while 98 of the 100 still wait (order ${order[*]})" \
    '[ "${order[0]}" = "$FIRST" ] && [ "${order[1]}" = "$LATE" ] && [ "$(field .state)" = done ] && [ "$(field .verdict)" = CE ]'
as admin GET /api/admin/queue
check "the admin's queue lists the parked Runs in turn order" \
    '[ "$(field "[.queue[] | select(.state == \"queued\")] | length")" = 98 ] && [ "$(field ".queue[0].position")" = 1 ]'

# --- item 6: a killed judged is found lost within 15 s --------------------------------
judged_bin=$build/bin/judged
JUDGED=
if ! "$judged_bin" --help 2>&1 | grep -q -- '--server'; then
    skip=$((skip + 1))
    echo "skip - a killed judged (no judged --server in this build)"
else
    stop_server TERM
    conf "$T/lost.conf" claim_wait=25 # and the default lease
    CONF=$T/lost.conf
    start_server || finish
    "$bin" -c "$CONF" create-worker w-judged --token-file "$T/wj.token" >/dev/null
    # judged compiles through a stand-in that waits 30 s first: a job longer than a lease.
    printf '#!/bin/sh\nsleep 30\nexec %s "$@"\n' "$(realpath "$build/bin/blockwise-compile")" >"$T/slow-compile"
    chmod +x "$T/slow-compile"
    BLOCKWISE_COMPILE=$T/slow-compile "$judged_bin" --server "$BASE" --token-file "$T/wj.token" \
        --gpu 0 --cache "$T/judged-cache" >>"$T/judged.log" 2>&1 &
    JUDGED=$!
    # A second worker waits in a 25 s long-poll the whole time (Triton only:
    # it never takes this CUDA job).
    as admin POST /api/admin/workers '{"name":"w-idle"}'
    printf '%s' "$(field .token)" >"$T/wi.token"
    worker "$T/wi.token" POST /api/judge/register \
        '{"hostname":"h","version":"v","can_execute":true,"languages":[{"name":"triton"}]}'
    curl -s -m 60 -o /dev/null -H "Authorization: Bearer $(cat "$T/wi.token")" \
        -H 'Content-Type: application/json' -d '{"wait":25}' "$BASE/api/judge/claim" &
    IDLE=$!
    signup dying
    ARGS=$(jq -r '[.tensors[].name] + .sizes | join(", ")' tests/fixtures/problems/vector-add/problem.json)
    src="// @launch vector_add grid=(1) block=(1) args=($ARGS)
extern \"C\" __global__ void vector_add(const float* x) { int i = 0 }"
    as dying POST /api/submissions "$(jq -n --arg s "$src" '{problem: "vector-add", mode: "run", source: $s}')"
    DYING=$(field .id)
    curl -sN -m 90 -b "$T/dying.jar" "$BASE/api/submissions/$DYING/events" >"$T/dying.events" &
    EV=$!
    for _ in $(seq 150); do
        as dying GET "/api/submissions/$DYING"
        [ "$(field .state)" = judging ] && break
        sleep 0.2
    done
    sleep 17 # past a lease (12 s): only heartbeats can keep the job
    as dying GET "/api/submissions/$DYING"
    check "judged's heartbeats keep a job longer than a lease: judging, attempt 1, 17 s on" \
        '[ "$(field .state)" = judging ] && [ "$(field .attempts)" = 1 ]'
    as admin GET /api/admin/workers
    check "both workers are alive, the one in a 25 s long-poll too (the lease is 12 s)" \
        '[ "$(field "[.workers[] | select(.alive)] | length")" = 2 ] && [ "$(field ".workers[] | select(.name == \"w-judged\") | .current_submission")" = "$DYING" ]'
    kill -KILL "$JUDGED"
    wait "$JUDGED" 2>/dev/null
    JUDGED=
    t0=$(date +%s.%N)
    for _ in $(seq 125); do
        as dying GET "/api/submissions/$DYING"
        [ "$(field .state)" = queued ] && break
        sleep 0.2
    done
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    check "after kill -9, its job is queued again within 15 s (${took} s)" \
        '[ "$(field .state)" = queued ] && awk -v t="$took" "BEGIN { exit !(t <= 15) }"'
    check "the submission says it is being judged again, and why" \
        '[ "$(field .attempts)" = 1 ] && [[ "$(field .message)" == "judging again (attempt 1 of 3 failed): the worker stopped answering"* ]]'
    for _ in $(seq 50); do # the event follows the requeue's commit; give the stream 5 s
        grep -q "^event: requeued" "$T/dying.events" && break
        sleep 0.1
    done
    check "the learner's stream got a requeued event" \
        'grep -q "^event: requeued" "$T/dying.events" && grep -q "judging again" "$T/dying.events"'
    grep -q "^event: requeued" "$T/dying.events" || sed 's/^/    | stream: /' "$T/dying.events" | tail -20
    # Every lease the killed judged held, and its last contact of any kind (a
    # claim, a long-poll the server counts every lease/3), dates from its last
    # heartbeat or at most a heartbeat period (lease/3) after it; the job above
    # was requeued when that heartbeat's lease ran out. So the admin sees the
    # worker lost within lease/3 of the requeue, plus the server's 1 s tick and
    # the second its times are counted in.
    t0=$(date +%s.%N)
    lost='[ "$(field ".workers[] | select(.name == \"w-judged\") | [.alive, .current_submission] | map(tostring) | join(\" \")")" = "false null" ]'
    for _ in $(seq 50); do
        as admin GET /api/admin/workers
        eval "$lost" && break
        sleep 0.2
    done
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    seen=$(field '.workers[] | select(.name == "w-judged") | "alive \(.alive), holding \(.current_submission)"')
    check "the admin sees the killed worker not alive and holding nothing within 7 s of that (${took} s: $seen)" \
        "$lost"' && awk -v t="$took" "BEGIN { exit !(t <= 7) }"'
    kill "$IDLE" "$EV" 2>/dev/null
    wait "$IDLE" "$EV" 2>/dev/null
fi

# --- item 4: slow clients are closed; one address cannot take every connection ----------
# slow_client LIMIT INTERVAL [HEAD]: connects from 127.0.0.1, sends HEAD (a
# request's start), then one more byte every INTERVAL seconds; prints how
# many seconds the connection stayed open (LIMIT at most).
slow_client() {
    local limit=$1 interval=$2 head=${3:-'POST /api/auth/signin HTTP/1.1\r\nHost: x\r\nX-Slow: '}
    local start end rc
    trap '' PIPE
    start=$(date +%s.%N)
    exec 3<>"/dev/tcp/127.0.0.1/$PORT" 2>/dev/null || { echo 0; return; }
    printf "$head" >&3 2>/dev/null
    end=$((SECONDS + limit))
    while [ $SECONDS -lt $end ]; do
        read -r -t "$interval" -u 3 _ # >128: timed out, the connection still open
        rc=$?
        [ $rc -gt 128 ] || break
        printf 'a' >&3 2>/dev/null || break
    done
    awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }'
    exec 3>&-
}
stop_server TERM
conf "$T/slow.conf" request_deadline=2 connections_per_address=8 claim_wait=6
CONF=$T/slow.conf
start_server || finish
as admin POST /api/admin/workers '{"name":"w-slow"}'
printf '%s' "$(field .token)" >"$T/ws.token"
worker "$T/ws.token" POST /api/judge/register '{"hostname":"h","version":"v","can_execute":false,"languages":[{"name":"triton"}]}'
pids=()
for i in $(seq 12); do
    slow_client 10 0.3 >"$T/sc.$i" &
    pids+=($!)
done
sleep 1
other=$(curl -s -o /dev/null -w '%{http_code}' -m 5 --interface 127.0.0.2 "$BASE/api/health")
same=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$BASE/api/health")
wait "${pids[@]}"
times=$(sort -n "$T"/sc.* | tr '\n' ' ')
refused=$(awk '$1 < 0.6' "$T"/sc.* | wc -l)
held=$(awk '$1 >= 1.9 && $1 <= 4.5' "$T"/sc.* | wc -l)
check "12 slow clients from one address: 4 over connections_per_address (8) closed at once, 8 closed by request_deadline (2 s) within 4.5 s (open for: $times)" \
    '[ "$refused" = 4 ] && [ "$held" = 8 ]'
check "meanwhile another address is served (200), the full one is not" \
    '[ "$other" = 200 ] && [ "$same" = 000 ]'
t=$(slow_client 10 0.3 'POST /api/auth/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{')
check "a body trickling in is closed by the deadline too ($t s)" \
    'awk -v t="$t" "BEGIN { exit !(t >= 1.9 && t <= 4.5) }"'
signup slowpoke
as slowpoke POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// streamed"}'
SID=$(field .id)
start=$SECONDS
curl -sN -m 5 -b "$T/slowpoke.jar" "$BASE/api/submissions/$SID/events" >"$T/stream" 2>/dev/null
hb=$(grep -c '^: hb' "$T/stream")
worker "$T/ws.token" POST /api/judge/claim '{"wait":5}'
took=$((SECONDS - start))
check "an event stream (5 s, $hb heartbeats) and a claim long-poll (5 s) outlive the deadline" \
    '[ "$hb" -ge 3 ] && [ "$STATUS" = 204 ] && [ "$took" -ge 9 ]'
req GET /metrics
check "metrics count the connections closed by the deadline and refused by the cap" \
    '[ "$(grep -oP "blockwise_http_deadline_closed_total \K[0-9]+" <<<"$BODY")" -ge 9 ] && [ "$(grep -oP "blockwise_http_address_refused_total \K[0-9]+" <<<"$BODY")" -ge 4 ]'
as slowpoke POST "/api/submissions/$SID/cancel" ''
check "the server survived the slow clients" 'kill -0 "$SERVER_PID" 2>/dev/null'

# --- item 3: password hashing off the HTTP threads; sign-ups per address ----------------
# A hash of 32 MiB (about 30 ms here), one hashing thread (this 2-core machine's
# default: half the CPUs), and 50 learners signing in 4 times each, 50 at once.
stop_server TERM
conf "$T/hash.conf" pwhash_ops=1 pwhash_mem_kib=32768 pwhash_threads=1 signup_address_limit=0
CONF=$T/hash.conf
start_server || finish
for i in $(seq 50); do
    req POST /api/auth/signup "{\"name\":\"load$i\",\"password\":\"password-load\"}"
done
check "50 learners sign up (signup_address_limit = 0: no limit)" '[ "$STATUS" = 201 ]'
# health_under_load: 200 sign-ins, 50 at a time (one curl, --parallel), while
# /api/health is timed 20 times a second, each on a fresh connection (one more
# curl, --rate): two processes, so that forking curls does not load this
# 2-core machine more than the server does. Sets P50, P99, SAMPLES, CODES.
for i in $(seq 200); do
    [ "$i" -gt 1 ] && echo next
    printf 'url = "%s/api/auth/signin"\nheader = "Content-Type: application/json"\n' "$BASE"
    printf 'data = "{\\"name\\":\\"load%d\\",\\"password\\":\\"password-load\\"}"\n' $(((i - 1) % 50 + 1))
    printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\nmax-time = 120\n'
done >"$T/load.curl"
for i in $(seq 3000); do printf 'url = "%s/api/health"\noutput = "/dev/null"\n' "$BASE"; done >"$T/health.curl"
health_under_load() {
    curl -s -Z --parallel-max 50 -K "$T/load.curl" >"$T/load.codes" 2>/dev/null &
    local lp=$!
    stdbuf -oL curl -s --rate 20/s -m 150 -H 'Connection: close' -w '%{time_total}\n' \
        -K "$T/health.curl" >"$T/health.times" 2>/dev/null &
    local hp=$!
    wait "$lp"
    kill "$hp" 2>/dev/null
    wait "$hp" 2>/dev/null
    SAMPLES=$(wc -l <"$T/health.times")
    P50=$(sort -n "$T/health.times" | awk '{ a[NR] = $1 } END { print a[int(NR * 0.5 + 0.5)] }')
    P99=$(sort -n "$T/health.times" | awk '{ a[NR] = $1 } END { i = int(NR * 0.99 + 0.999); if (i > NR) i = NR; print a[i] }')
    CODES=$(sort "$T/load.codes" | uniq -c | awk '{ printf "%s x%s ", $2, $1 }')
}
attempt=1
health_under_load
if ! awk -v p="$P99" 'BEGIN { exit !(p != "" && p < 0.05) }'; then
    # Other work on this shared machine can take a core for a moment: one more try.
    echo "# p99 ${P99} s over ${SAMPLES} samples on the first try; once more"
    attempt=2
    health_under_load
fi
check "/api/health p99 under 50 ms while 200 sign-ins run 50 at a time (p50 ${P50} s, p99 ${P99} s, ${SAMPLES} samples, try ${attempt})" \
    'awk -v p="$P99" "BEGIN { exit !(p != \"\" && p < 0.05) }" && [ "$SAMPLES" -ge 20 ]'
check "and every sign-in succeeded ($CODES)" '[ "$(grep -c "^200$" "$T/load.codes")" = 200 ]'

stop_server TERM
conf "$T/busy.conf" pwhash_ops=1 pwhash_mem_kib=32768 pwhash_threads=1 pwhash_queue=2 \
    signup_address_limit=5
CONF=$T/busy.conf
start_server || finish
pids=()
for i in $(seq 20); do
    curl -s -m 60 -o "$T/bb.$i" -D "$T/bh.$i" -w '%{http_code}\n' -H 'Content-Type: application/json' \
        -d "{\"name\":\"load$i\",\"password\":\"password-load\"}" "$BASE/api/auth/signin" >"$T/bs.$i" &
    pids+=($!)
done
wait "${pids[@]}"
n200=$(cat "$T"/bs.* | grep -c '^200$')
n429=0 good=0
for i in $(seq 20); do
    [ "$(cat "$T/bs.$i")" = 429 ] || continue
    n429=$((n429 + 1))
    grep -qi '^Retry-After: [1-9]' "$T/bh.$i" && [ "$(jq -r .error.code "$T/bb.$i")" = busy ] && good=$((good + 1))
done
# At least the 2 that fit the queue sign in: a third only when the (niced) hashing thread took
# the first from the queue before all 20 had arrived, which a loaded machine does not promise.
check "20 sign-ins at once with pwhash_queue = 2: the excess is 429 busy with Retry-After, the rest sign in ($n200 x 200, $n429 x 429)" \
    '[ "$n429" -ge 10 ] && [ "$good" = "$n429" ] && [ $((n200 + n429)) = 20 ] && [ "$n200" -ge 2 ]'
req POST /api/auth/signup '{"name":"admin","password":"password-x"}'
check "a taken name is 409 before any hashing, and uses no sign-up" '[ "$STATUS" = 409 ]'
for i in $(seq 7); do
    req POST /api/auth/signup "{\"name\":\"many$i\",\"password\":\"password-many\"}"
    echo "$STATUS" >>"$T/signups"
done
check "sign-ups from one address: 5 (signup_address_limit), then 429 throttled with Retry-After ($(sort "$T/signups" | uniq -c | tr -s ' ' | tr '\n' ','))" \
    '[ "$(grep -c 201 "$T/signups")" = 5 ] && [ "$STATUS" = 429 ] && [ "$(err)" = throttled ] && grep -qi "^Retry-After: 7[0-9][0-9]" <<<"$HDRS" && [[ "$(field .error.message)" == *"sign-ups from this address"* ]]'
other=$(curl -s -o /dev/null -w '%{http_code}' -m 30 --interface 127.0.0.2 -H 'Content-Type: application/json' \
    -d '{"name":"elsewhere","password":"password-else"}' "$BASE/api/auth/signup")
check "another address still signs up" '[ "$other" = 201 ]'
req GET /metrics
check "metrics count 429 busy and throttled sign-ups" \
    '[ "$(grep -oP "blockwise_pwhash_busy_total \K[0-9]+" <<<"$BODY")" -ge 10 ] && [ "$(grep -oP "blockwise_signup_throttled_total \K[0-9]+" <<<"$BODY")" = 2 ]'
pids=()
for i in 1 2 3; do
    curl -s -m 30 -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
        -d "{\"name\":\"load$i\",\"password\":\"password-load\"}" "$BASE/api/auth/signin" >"$T/stop.$i" &
    pids+=($!)
done
sleep 0.05
t0=$SECONDS
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
rc=$?
SERVER_PID=
wait "${pids[@]}"
check "SIGTERM with sign-ins waiting for a hash: a clean stop (exit $rc, $((SECONDS - t0)) s), each answered or closed ($(cat "$T"/stop.* | tr '\n' ' '))" \
    '[ $rc -eq 0 ] && [ $((SECONDS - t0)) -le 5 ] && ! grep -qE "^(5[0-9][0-9])$" <(grep -v 503 "$T"/stop.*)'

# --- item 2: a guesser cannot lock out the real user, nor a classroom ---------------
# curl is the trusted proxy: X-Forwarded-For names the client's address.
stop_server TERM
conf "$T/lock.conf" signin_account_failures=3 signin_address_failures=6 signin_lockout=30 \
    signin_window=60 trusted_proxies=127.0.0.1
CONF=$T/lock.conf
start_server || finish
sin() { # sin NAME PASSWORD ADDRESS [CURL ARGS...]: a sign-in from ADDRESS
    local name=$1 pw=$2 addr=$3
    shift 3
    signin "$name" "$pw" -H "X-Forwarded-For: $addr" "$@"
}
device_of() { awk '$6 == "bw_device" { print $7 }' "$1"; }
# A browser whose session ended (signed out, expired) still holds its
# known-device cookie: that alone is sent (a live session would need CSRF).
browser() { echo "Cookie: bw_device=$(device_of "$1")"; }
sin admin admin-password 198.51.100.7 -c "$T/admin-browser.jar"
check "a right password sets a known-device cookie: HttpOnly, SameSite=Strict, Path=/api/auth" \
    '[ "$STATUS" = 200 ] && grep -qi "^Set-Cookie: bw_device=[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*; Path=/api/auth; Max-Age=15552000; HttpOnly; SameSite=Strict" <<<"$HDRS"'
signup kim -H "X-Forwarded-For: 198.51.100.7"
check "so does a sign-up" '[ "$STATUS" = 201 ] && [ -n "$(device_of "$T/kim.jar")" ]'
for i in 1 2 3 4 5; do sin admin "guess-$i" 198.51.100.7; done
check "a guesser behind the same address: the fourth guess at admin is already 429" \
    '[ "$STATUS" = 429 ] && [ "$(err)" = throttled ]'
for n in amy ben cal dan; do sin "$n" guess 198.51.100.7; done
sin lou lou-password 198.51.100.7
check "and guesses at other names lock the address for new devices" \
    '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"from this address"* ]]'
sin admin admin-password 198.51.100.7
check "the admin from a new browser is locked out too (429)" '[ "$STATUS" = 429 ]'
sin admin admin-password 198.51.100.7 -H "$(browser "$T/admin-browser.jar")"
check "the right password from the admin's own browser signs in during the attack, same address" \
    '[ "$STATUS" = 200 ] && [ "$(field .user.name)" = admin ]'
sin kim password-kim 198.51.100.7 -H "$(browser "$T/kim.jar")"
check "so does a learner's browser behind the same NAT" '[ "$STATUS" = 200 ]'
sin admin admin-password 198.51.100.7 -H "$(browser "$T/kim.jar")"
check "another user's device cookie counts for nothing" '[ "$STATUS" = 429 ]'
good=$(device_of "$T/admin-browser.jar")
bad=${good%?}$([ "${good: -1}" = A ] && echo B || echo A)
sin admin admin-password 198.51.100.7 -H "Cookie: bw_device=$bad"
check "nor does a forged one" '[ "$STATUS" = 429 ]'
sin admin admin-password 198.51.100.77 -H "Cookie: bw_device=$good"
check "the genuine one again, from another address: it is the browser that counts" '[ "$STATUS" = 200 ]'

for i in 1 2 3 4 5 6 7; do
    req POST /api/auth/signup "{\"name\":\"pupil$i\",\"password\":\"password-pupil\"}" -H "X-Forwarded-For: 203.0.113.9"
done
codes=
for i in 1 2 3 4 5 6 7; do
    sin "pupil$i" typo-password 198.51.100.20
    sin "pupil$i" password-pupil 198.51.100.20
    codes+="$STATUS "
done
check "7 learners behind one address (limit 6), each mistyping once then right: all sign in ($codes)" \
    '[ "$codes" = "200 200 200 200 200 200 200 " ]'

signup dora -H "X-Forwarded-For: 198.51.100.8"
for i in 1 2 3; do sin dora "guess-$i" 198.51.100.9; done
sin dora password-dora 198.51.100.8 -H "$(browser "$T/dora.jar")"
check "dora's name is locked for new devices, not for her browser" '[ "$STATUS" = 200 ]'
for i in 1 2 3; do sin dora "typo-$i" 198.51.100.8 -H "$(browser "$T/dora.jar")"; done
sin dora password-dora 198.51.100.8 -H "$(browser "$T/dora.jar")"
check "three failures from her browser lock the browser: it is a new device until then (429)" \
    '[ "$STATUS" = 429 ] && grep -q "failed sign-ins as dora from a known device" "$T/server.log"'

as admin POST /api/admin/unlock '{"name":"dora"}'
check "POST /api/admin/unlock {name} lifts a name's lockout" '[ "$STATUS" = 200 ] && [ "$(field .unlocked)" = true ]'
sin dora password-dora 198.51.100.10
check "and dora signs in from anywhere" '[ "$STATUS" = 200 ]'
as admin POST /api/admin/unlock '{"address":"198.51.100.7"}'
check "POST /api/admin/unlock {address} lifts an address's lockout" '[ "$STATUS" = 200 ] && [ "$(field .unlocked)" = true ]'
signup lou -H "X-Forwarded-For: 203.0.113.9"
sin lou password-lou 198.51.100.7
check "and a new device at that address signs in" '[ "$STATUS" = 200 ]'
as admin POST /api/admin/unlock '{"name":"dora","address":"198.51.100.7"}'
check "unlock takes a name or an address, not both (400)" '[ "$STATUS" = 400 ] && [ "$(err)" = invalid ]'
as admin POST /api/admin/unlock '{"address":"not-an-address"}'
check "and a numeric address (400, field address)" '[ "$STATUS" = 400 ] && [ "$(field .error.field)" = address ]'
as kim POST /api/admin/unlock '{"name":"kim"}'
check "learners cannot unlock (401 without a session here, or 403)" '[ "$STATUS" = 401 ] || [ "$STATUS" = 403 ]'

for n in amy ben cal dan eve fay; do sin "$n" guess 198.51.100.60; done
sin lou password-lou 198.51.100.60
locked=$STATUS
out=$("$bin" -c "$CONF" unlock-address 198.51.100.60 2>&1)
rc=$?
for _ in $(seq 30); do
    sin lou password-lou 198.51.100.60
    [ "$STATUS" = 200 ] && break
    sleep 0.1
done
check "blockwise-server unlock-address: the running server lifts the lockout within a second ($locked, then $STATUS)" \
    '[ $rc -eq 0 ] && [ "$locked" = 429 ] && [ "$STATUS" = 200 ]'
for i in 1 2 3; do sin lou "guess-$i" 198.51.100.61; done
sin lou password-lou 198.51.100.62
locked=$STATUS
"$bin" -c "$CONF" unlock lou >/dev/null 2>&1
rc=$?
for _ in $(seq 30); do
    sin lou password-lou 198.51.100.62
    [ "$STATUS" = 200 ] && break
    sleep 0.1
done
check "blockwise-server unlock NAME likewise ($locked, then $STATUS)" \
    '[ $rc -eq 0 ] && [ "$locked" = 429 ] && [ "$STATUS" = 200 ] && grep -q "auth: sign-ins as lou unlocked from the command line" "$T/server.log"'

finish
