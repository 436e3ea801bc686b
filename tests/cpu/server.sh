#!/usr/bin/env bash
# server.sh - blockwise-server end to end on loopback: the real binary, a real
# SQLite file, curl as the client and as a judge worker (the worker API is
# driven by hand here; tests/cpu/server_judged.sh runs the real judged).
#
#   tests/cpu/server.sh BUILD_DIR
#
# Covers: --check-config, create-admin/create-worker, sign-up/in/out, CSRF,
# content types, roles and the access-control matrix, quotas and 429,
# malformed and oversized requests (each its own 4xx and error code), 404 vs
# 405, submissions list/read, SSE events, the leased queue (claim, progress,
# idempotent result, lease expiry -> requeue, 3 attempts -> Judge Error,
# internal errors disabling a worker), compile-only results waiting for a GPU
# worker, rejudge, scores, gradebook, metrics, static files, restart with
# jobs queued (SIGTERM and SIGKILL) losing nothing; cancelling (owner,
# admin, refusals, a worker's lease ended) and jobs parked for a GPU outside
# the in-flight cap, one queue position in list and page.
set -u
build=${1:-build}
bin=${SERVER_BIN:-$build/bin/blockwise-server}
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { # check NAME CONDITION-STRING...
    local name=$1
    shift
    if eval "$@"; then ok "$name"; else bad "$name (${STATUS:-} ${BODY:0:300})"; fi
}
finish() {
    stop_server
    rm -rf "$T"
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}

if ! command -v jq >/dev/null || ! command -v curl >/dev/null; then
    echo "jq and curl are needed (scripts/install-deps.sh)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
if [ ! -x "$bin" ]; then
    echo "no $bin"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

T=$(mktemp -d /tmp/bw-server-test.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
BASE=http://127.0.0.1:$PORT
mkdir -p "$T/web"
echo '<!doctype html><title>Blockwise</title>' >"$T/web/index.html"
cat >"$T/server.conf" <<EOF
# test configuration
listen = 127.0.0.1
port = $PORT
database = "$T/blockwise.db"
problems = tests/fixtures/problems
web = $T/web
threads = 4
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_run = 4
quota_submit = 2
quota_in_flight = 3
quota_window = 3600
lease = 3
claim_wait = 2
sse_heartbeat = 1
worker_error_limit = 3
problem_error_limit = 50
log_level = info
EOF

SERVER_PID=
start_server() {
    "$bin" -c "$T/server.conf" >>"$T/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 100); do
        curl -s "$BASE/api/health" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "server did not start:"
    tail -20 "$T/server.log"
    return 1
}
stop_server() { # stop_server [SIGNAL]
    if [ -n "$SERVER_PID" ]; then
        kill -"${1:-TERM}" "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=
    fi
}
trap 'stop_server KILL; rm -rf "$T"' INT

# req METHOD PATH [BODY] [CURL ARGS...]: sets STATUS, BODY, HDRS.
req() {
    local method=$1 path=$2 body=${3-}
    shift 3 2>/dev/null || shift $#
    local args=(-s -o "$T/body" -D "$T/hdrs" -w '%{http_code}' -X "$method")
    if [ -n "$body" ]; then
        args+=(-H 'Content-Type: application/json' --data-binary "$body")
    fi
    STATUS=$(curl "${args[@]}" "$@" "$BASE$path")
    BODY=$(cat "$T/body")
    HDRS=$(cat "$T/hdrs")
}
# as USER ...: req with USER's cookie jar and CSRF token.
as() {
    local who=$1
    shift
    local method=$1 path=$2 body=${3-}
    shift 3 2>/dev/null || shift $#
    req "$method" "$path" "$body" -b "$T/$who.jar" -c "$T/$who.jar" \
        -H "X-CSRF-Token: $(cat "$T/$who.csrf" 2>/dev/null)" "$@"
}
field() { jq -r "$1" <<<"$BODY" 2>/dev/null; }
err() { jq -r '.error.code' <<<"$BODY" 2>/dev/null; }
errfield() { jq -r '.error.field' <<<"$BODY" 2>/dev/null; }
worker() { # worker TOKENFILE METHOD PATH [BODY]
    local tf=$1
    shift
    local method=$1 path=$2 body=${3-}
    req "$method" "$path" "$body" -H "Authorization: Bearer $(cat "$tf")"
}
signup() { # signup NAME
    req POST /api/auth/signup "{\"name\":\"$1\",\"password\":\"password-$1\"}" -c "$T/$1.jar"
    field .csrf >"$T/$1.csrf"
}

# --- configuration and the command line ------------------------------------
out=$("$bin" -c "$T/server.conf" --check-config 2>&1)
check "check-config prints configuration OK" '[[ "$out" == *"configuration OK"* ]]'
out=$("$bin" -c "$T/server.conf" --set lease=zero --check-config 2>&1)
rc=$?
check "a bad value is refused with exit 2 and named" '[ $rc -eq 2 ] && [[ "$out" == *"lease"* ]]'
printf 'port = 80\nbogus = 1\n' >"$T/bad.conf"
out=$("$bin" -c "$T/bad.conf" --check-config 2>&1)
check "an unknown key names file and line" '[[ "$out" == *"bad.conf:2"*"bogus"* ]]'

echo 'admin-password' >"$T/admin.pw"
"$bin" -c "$T/server.conf" create-admin admin --password-file "$T/admin.pw" >"$T/cli.log" 2>&1
check "create-admin creates the first admin" 'grep -q "admin admin created" "$T/cli.log"'
"$bin" -c "$T/server.conf" create-worker gpu0 --token-file "$T/w1.token" >>"$T/cli.log" 2>&1
"$bin" -c "$T/server.conf" create-worker cpu0 --token-file "$T/w2.token" >>"$T/cli.log" 2>&1
check "create-worker writes a token file (0600)" \
    '[[ "$(cat "$T/w1.token")" == bww_* ]] && [ "$(stat -c %a "$T/w1.token")" = 600 ]'

start_server || finish

# --- public endpoints, 404 and 405 ---------------------------------------------
req GET /api/problems
check "problem list is public" '[ "$STATUS" = 200 ] && [ "$(field ".problems[0].id")" = vector-add ]'
HASH=$(field '.problems[0].hash')
req GET /api/problems/vector-add
check "problem detail has statement HTML with math and the starter" \
    '[ "$STATUS" = 200 ] && [[ "$(field .statement_html)" == *"<x-equation>"* ]] && [[ "$(field .starter)" == *"@launch"* ]]'
req GET /api/problems/nope
check "unknown problem is 404" '[ "$STATUS" = 404 ] && [ "$(err)" = not_found ]'
req GET /api/nothing-here
check "unknown path is 404" '[ "$STATUS" = 404 ]'
req DELETE /api/problems
check "known path, wrong method is 405 with Allow" \
    '[ "$STATUS" = 405 ] && grep -qi "^Allow: GET" <<<"$HDRS"'
req GET "/api/problems/$(head -c 3000 /dev/zero | tr '\0' a)"
check "an overlong URL is 414" '[ "$STATUS" = 414 ]'
req GET /
check "web/ is served at /" '[ "$STATUS" = 200 ] && [[ "$BODY" == *"<title>Blockwise"* ]]'
check "HTML pages carry a content security policy (this server only)" \
    'grep -qi "^Content-Security-Policy: default-src .self.; script-src .self.;" <<<"$HDRS"'
req GET /../server.conf
check "no escaping web/" '[ "$STATUS" = 404 ]'
req GET /metrics
check "metrics in Prometheus text" \
    '[ "$STATUS" = 200 ] && [[ "$BODY" == *"blockwise_queue_length 0"* ]] && [[ "$BODY" == *"blockwise_judging_latency_seconds_bucket"* ]]'

# --- accounts ----------------------------------------------------------------------
signup alice
check "sign-up answers 201 with a session cookie" \
    '[ "$STATUS" = 201 ] && grep -qi "^Set-Cookie: bw_session=.*HttpOnly; SameSite=Lax" <<<"$HDRS"'
req POST /api/auth/signup '{"name":"alice","password":"password-again"}'
check "a taken name is 409 naming the field" '[ "$STATUS" = 409 ] && [ "$(errfield)" = name ]'
req POST /api/auth/signup '{"name":"Bad Name!","password":"longenough"}'
check "a bad user name is 400 naming the field" '[ "$STATUS" = 400 ] && [ "$(errfield)" = name ]'
req POST /api/auth/signup '{"name":"carol","password":"short"}'
check "a short password is 400 naming the field" '[ "$STATUS" = 400 ] && [ "$(errfield)" = password ]'
signup bob
signup ivan
req POST /api/auth/signin '{"name":"alice","password":"wrong-password"}'
check "a wrong password is 401" '[ "$STATUS" = 401 ] && [ "$(err)" = bad_credentials ]'
req POST /api/auth/signin '{"name":"nobody","password":"wrong-password"}'
check "an unknown user is the same 401" '[ "$STATUS" = 401 ] && [ "$(err)" = bad_credentials ]'
req POST /api/auth/signin '{"name":"admin","password":"admin-password"}' -c "$T/admin.jar"
field .csrf >"$T/admin.csrf"
check "the admin signs in" '[ "$STATUS" = 200 ] && [ "$(field .user.role)" = admin ]'
as alice GET /api/me
check "/api/me shows the user, the CSRF token and the quota" \
    '[ "$STATUS" = 200 ] && [ "$(field .user.name)" = alice ] && [ "$(field .quota.run.limit)" = 4 ]'

# CSRF: a cookie without the token cannot change state.
req POST /api/tokens '{"name":"script"}' -b "$T/alice.jar"
check "a state change without X-CSRF-Token is 403 csrf" '[ "$STATUS" = 403 ] && [ "$(err)" = csrf ]'
req POST /api/tokens '{"name":"script"}' -b "$T/alice.jar" -H "X-CSRF-Token: $(cat "$T/bob.csrf")"
check "another session's CSRF token is refused" '[ "$STATUS" = 403 ] && [ "$(err)" = csrf ]'
as alice POST /api/tokens '{"name":"script"}'
check "with the token it works (API token shown once)" \
    '[ "$STATUS" = 201 ] && [[ "$(field .token)" == bwu_* ]]'
field .token >"$T/alice.api"
req POST /api/tokens '' -b "$T/alice.jar" -H "X-CSRF-Token: $(cat "$T/alice.csrf")" \
    -H 'Content-Type: application/x-www-form-urlencoded' --data-binary 'name=x'
check "a form-encoded body is 415" '[ "$STATUS" = 415 ]'

# --- malformed and oversized requests ----------------------------------------
as alice POST /api/submissions '{"problem": "vector-add", "source": "x", '
check "broken JSON is 400 bad_json with a position" \
    '[ "$STATUS" = 400 ] && [ "$(err)" = bad_json ] && [[ "$(field .error.message)" == *column* ]]'
deep=$(printf '[%.0s' $(seq 40))
as alice POST /api/submissions "{\"problem\":$deep"
check "deep nesting is 400 too_deep" '[ "$STATUS" = 400 ] && [ "$(err)" = too_deep ]'
as alice POST /api/submissions '[1,2]'
check "a non-object body is 400" '[ "$STATUS" = 400 ] && [ "$(err)" = bad_json ]'
as alice POST /api/submissions '{"problem":"vector-add","source":"x","mode":"run","extra":1}'
check "an unknown field is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = extra ]'
as alice POST /api/submissions '{"problem":"vector-add","source":"x","mode":"fast"}'
check "a bad mode is 400 naming mode" '[ "$STATUS" = 400 ] && [ "$(errfield)" = mode ]'
as alice POST /api/submissions '{"problem":"vector-add","source":17,"mode":"run"}'
check "a wrong type is 400 naming source" '[ "$STATUS" = 400 ] && [ "$(errfield)" = source ]'
as alice POST /api/submissions '{"problem":"vector-add","source":"","mode":"run"}'
check "an empty source is 400" '[ "$STATUS" = 400 ] && [ "$(errfield)" = source ]'
as alice POST /api/submissions '{"problem":"no-such","source":"x","mode":"run"}'
check "an unknown problem is 404 naming problem" '[ "$STATUS" = 404 ] && [ "$(errfield)" = problem ]'
as alice POST /api/submissions '{"problem":"../etc","source":"x","mode":"run"}'
check "a malformed problem id is 400" '[ "$STATUS" = 400 ] && [ "$(errfield)" = problem ]'
big=$(head -c 300000 /dev/zero | tr '\0' x)
printf '{"problem":"vector-add","mode":"run","source":"%s"}' "$big" >"$T/big.json"
as alice POST /api/submissions "@$T/big.json"
check "a source over BW_MAX_SOURCE_BYTES is 413 naming source" \
    '[ "$STATUS" = 413 ] && [ "$(errfield)" = source ]'
head -c 700000 /dev/zero | tr '\0' ' ' >"$T/huge.json"
as alice POST /api/submissions "@$T/huge.json"
check "a body over the endpoint's cap is 413" '[ "$STATUS" = 413 ] && [ "$(err)" = too_large ]'
req POST /api/submissions "@$T/huge.json" -b "$T/alice.jar" -H "X-CSRF-Token: $(cat "$T/alice.csrf")" \
    -H 'Transfer-Encoding: chunked'
check "a chunked body over the cap is 413 too" '[ "$STATUS" = 413 ] && [ "$(err)" = too_large ]'
as alice POST /api/submissions '{"problem":"vector-add","source":"a\u0000b","mode":"run"}'
check "a NUL in a string is 400" '[ "$STATUS" = 400 ] && [ "$(errfield)" = source ]'
as alice POST /api/tokens '{"name":"\u00ff\u0000"}'
check "a control character in a name is 400" '[ "$STATUS" = 400 ]'
req GET /api/submissions/abc "" -b "$T/alice.jar"
check "a non-numeric id is 404" '[ "$STATUS" = 404 ]'
req GET '/api/submissions?limit=100000' "" -b "$T/alice.jar"
check "a bad query value is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = limit ]'
req POST /api/judge/claim '{"wait": 1}' -H 'Authorization: Basic Zm9vOmJhcg=='
check "a non-bearer Authorization is 401" '[ "$STATUS" = 401 ]'
check "no client error above was answered 5xx" '! grep -qE " -> 5[0-9][0-9] " "$T/server.log"'

# --- submissions, quotas, reading ------------------------------------------------
SRC='// @launch vector_add grid=(1) block=(1) args=(x, y, out, N)\nextern \"C\" __global__ void vector_add(const float* x) { this is not C++ }'
as alice POST /api/submissions "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"$SRC\"}"
check "a Run is 201 with id, position and quota" \
    '[ "$STATUS" = 201 ] && [ "$(field .position)" = 1 ] && [ "$(field .quota.run.used)" = 1 ] && grep -qi "^Location: /api/submissions/" <<<"$HDRS"'
S1=$(field .id)
as alice POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// second"}'
S2=$(field .id)
check "a second is queued behind the first" '[ "$STATUS" = 201 ] && [ "$(field .position)" = 2 ]'
req POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// via API token"}' \
    -H "Authorization: Bearer $(cat "$T/alice.api")"
S3=$(field .id)
check "an API token submits without CSRF" '[ "$STATUS" = 201 ]'
as alice POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// fourth"}'
check "the in-flight cap answers 429 with Retry-After" \
    '[ "$STATUS" = 429 ] && [ "$(err)" = quota ] && grep -qi "^Retry-After: [0-9]" <<<"$HDRS"'
as bob POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// b1"}'
B1=$(field .id)
as bob POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// b2"}'
B2=$(field .id)
as bob POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// b3"}'
check "the Submit quota (2 per window) answers 429" \
    '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"submit quota"* ]]'
as bob GET /api/me
check "the remaining quota is in the API" '[ "$(field .quota.submit.remaining)" = 0 ]'

as alice GET "/api/submissions/$S1"
check "the owner reads a submission with its source" \
    '[ "$STATUS" = 200 ] && [[ "$(field .source)" == *"not C++"* ]] && [ "$(field .state)" = queued ] && [ "$(field .position)" = 1 ]'
as bob GET "/api/submissions/$S1"
check "another learner gets 404 for it" '[ "$STATUS" = 404 ]'
as bob GET "/api/submissions?user=alice"
check "a learner cannot list another's submissions" '[ "$STATUS" = 403 ]'
as alice GET /api/submissions
check "a learner lists their own" '[ "$STATUS" = 200 ] && [ "$(field ".submissions | length")" = 3 ]'
as admin POST /api/admin/users/ivan/role '{"role":"instructor"}'
check "an admin makes ivan an instructor" '[ "$STATUS" = 204 ]'
as ivan GET "/api/submissions/$S1"
check "an instructor reads anyone's submission" '[ "$STATUS" = 200 ] && [ "$(field .user)" = alice ]'
as ivan GET "/api/submissions?user=*"
check "an instructor lists everyone's" '[ "$STATUS" = 200 ] && [ "$(field ".submissions | length")" = 5 ]'

# --- the access-control matrix --------------------------------------------------
W1=$T/w1.token
W2=$T/w2.token
matrix() { # matrix NAME EXPECTED METHOD PATH BODY CURL-ARGS...
    local name=$1 want=$2 method=$3 path=$4 body=$5
    shift 5
    req "$method" "$path" "$body" "$@"
    check "access: $name -> $want" '[ "$STATUS" = "$want" ]'
}
A=(-b "$T/alice.jar" -H "X-CSRF-Token: $(cat "$T/alice.csrf")")
I=(-b "$T/ivan.jar" -H "X-CSRF-Token: $(cat "$T/ivan.csrf")")
AD=(-b "$T/admin.jar" -H "X-CSRF-Token: $(cat "$T/admin.csrf")")
WK=(-H "Authorization: Bearer $(cat "$W1")")
matrix "anonymous /api/me" 401 GET /api/me ""
matrix "anonymous submit" 401 POST /api/submissions '{}'
matrix "anonymous gradebook" 401 GET /api/gradebook.csv ""
matrix "anonymous admin" 401 GET /api/admin/workers ""
matrix "anonymous claim" 401 POST /api/judge/claim '{"wait":0}'
matrix "anonymous status" 401 GET /api/status ""
matrix "learner gradebook" 403 GET /api/gradebook.csv "" "${A[@]}"
matrix "learner admin workers" 403 GET /api/admin/workers "" "${A[@]}"
matrix "learner claim" 403 POST /api/judge/claim '{"wait":0}' "${A[@]}"
matrix "learner API token claim" 403 POST /api/judge/claim '{"wait":0}' -H "Authorization: Bearer $(cat "$T/alice.api")"
matrix "learner bundle" 403 GET "/api/judge/bundles/$HASH" "" "${A[@]}"
matrix "instructor gradebook" 200 GET /api/gradebook.csv "" "${I[@]}"
matrix "instructor admin queue" 403 GET /api/admin/queue "" "${I[@]}"
matrix "instructor claim" 403 POST /api/judge/claim '{"wait":0}' "${I[@]}"
matrix "admin workers" 200 GET /api/admin/workers "" "${AD[@]}"
matrix "admin gradebook" 200 GET /api/gradebook.csv "" "${AD[@]}"
matrix "worker /api/me" 403 GET /api/me "" "${WK[@]}"
matrix "worker submit" 403 POST /api/submissions '{"problem":"vector-add","mode":"run","source":"x"}' "${WK[@]}"
matrix "worker reads a submission" 403 GET "/api/submissions/$S1" "" "${WK[@]}"
matrix "worker admin" 403 GET /api/admin/workers "" "${WK[@]}"
matrix "worker claim before register" 409 POST /api/judge/claim '{"wait":0}' "${WK[@]}"
matrix "forged worker token" 401 POST /api/judge/claim '{"wait":0}' -H "Authorization: Bearer bww_forged"
matrix "worker bundle" 200 GET "/api/judge/bundles/$HASH" "" "${WK[@]}"
matrix "public leaderboard" 200 GET /api/problems/vector-add/leaderboard ""

# --- the worker API: claim, progress, events, result --------------------------
as alice GET /api/status
check "/api/status: queued work and no worker yet" \
    '[ "$STATUS" = 200 ] && [ "$(field .queue.queued)" -ge 1 ] && [ "$(field .workers.alive)" = 0 ] && [ "$(field .workers.gpu)" = 0 ] && [ "$(field ".workers.gpus | length")" = 0 ]'
worker "$W1" POST /api/judge/register '{"hostname":"gpu-node","version":"1","can_execute":true,"gpu":{"name":"NVIDIA H200","sm_count":132,"copy_gbps":3900.0}}'
check "a worker registers with its GPU figures" '[ "$STATUS" = 200 ] && [ "$(field .lease_seconds)" = 3 ]'
worker "$W1" POST /api/judge/register '{"hostname":"gpu-node","can_execute":"yes"}'
check "register validates its body" '[ "$STATUS" = 400 ] && [ "$(errfield)" = can_execute ]'

curl -sN -m 20 -b "$T/alice.jar" "$BASE/api/submissions/$S1/events" >"$T/events1" &
EV_PID=$!
sleep 0.3
worker "$W1" POST /api/judge/claim '{"wait":1}'
check "claim hands out the oldest submission with a lease" \
    '[ "$STATUS" = 200 ] && [ "$(field .submission)" = "$S1" ] && [ "$(field .bundle)" = "$HASH" ] && [ "$(field .attempt)" = 1 ] && [[ "$(field .lease)" == l_* ]]'
L1=$(field .lease)
[[ "$(field .source)" == *"not C++"* ]] && ok "the job carries the source" || bad "the job carries the source"
worker "$W1" GET "/api/judge/bundles/$HASH"
printf '%s' "$BODY" >"$T/bundle.json"
check "the bundle's files hash to its name" \
    '[ "$(jq -r .hash "$T/bundle.json")" = "$HASH" ] && [ "$(jq -r ".files | map(.path) | index(\"problem.json\") != null" "$T/bundle.json")" = true ]'
worker "$W1" POST "/api/judge/leases/$L1/progress" '{"events":[{"event":"compiling"}]}'
check "progress is accepted (and extends the lease)" '[ "$STATUS" = 200 ]'
worker "$W1" POST "/api/judge/leases/$L1/progress" '{"events":[{"nope":1}]}'
check "a malformed event is 400" '[ "$STATUS" = 400 ] && [ "$(errfield)" = events ]'
RESULT='{"result":{"verdict":"CE","message":"compile error at line 2","executed":true,"compile_log":"line 2: error: expected a ;","tests":[],"benches":[],"score":0}}'
worker "$W1" POST "/api/judge/leases/$L1/result" "$RESULT"
check "the result is stored" '[ "$STATUS" = 200 ] && [ "$(field .duplicate)" = false ]'
worker "$W1" POST "/api/judge/leases/$L1/result" "$RESULT"
check "posting it again is idempotent" '[ "$STATUS" = 200 ] && [ "$(field .duplicate)" = true ]'
worker "$W2" POST "/api/judge/leases/$L1/result" "$RESULT"
check "another worker cannot post to this lease" '[ "$STATUS" = 409 ] && [ "$(err)" = lease_lost ]'
wait $EV_PID
check "the stream had the state, compiling and done events" \
    'grep -q "^event: state" "$T/events1" && grep -q "^event: compiling" "$T/events1" && grep -q "^event: done" "$T/events1" && grep -q "\"verdict\":\"CE\"" "$T/events1"'
as alice GET "/api/submissions/$S1"
check "the verdict is stored with the worker's result" \
    '[ "$(field .state)" = done ] && [ "$(field .verdict)" = CE ] && [ "$(field .result.compile_log)" = "line 2: error: expected a ;" ]'
req GET "/api/submissions/$S1/events" "" -b "$T/alice.jar" -m 5
check "a finished submission's stream is its final event" \
    '[ "$STATUS" = 200 ] && [[ "$BODY" == *"event: done"* ]]'
req GET "/api/submissions/$S1/events" "" -b "$T/bob.jar" -m 5
check "another learner cannot watch it" '[ "$STATUS" = 404 ]'

# --- lease expiry -> requeue -> judged again ---------------------------------
worker "$W1" POST /api/judge/claim '{"wait":1}'
L2=$(field .lease)
check "the next claim is the next submission" '[ "$(field .submission)" = "$S2" ]'
for _ in $(seq 40); do
    as alice GET "/api/submissions/$S2"
    [ "$(field .state)" = queued ] && break
    sleep 0.25
done
check "an expired lease puts the job back in the queue" \
    '[ "$(field .state)" = queued ] && [ "$(field .attempts)" = 1 ]'
worker "$W1" POST "/api/judge/leases/$L2/result" "$RESULT"
check "the expired lease can no longer post a result" '[ "$STATUS" = 409 ] && [ "$(err)" = lease_lost ]'
worker "$W1" POST /api/judge/claim '{"wait":1}'
L3=$(field .lease)
check "it is claimed again (attempt 2)" '[ "$(field .submission)" = "$S2" ] && [ "$(field .attempt)" = 2 ]'
worker "$W1" POST "/api/judge/leases/$L3/result" \
    '{"result":{"verdict":"AC","executed":true,"score":88.5,"gpu":{"name":"NVIDIA H200"},"tests":[{"name":"N=1","verdict":"AC","ms":0.01}],"benches":[{"name":"2^24","samples":50,"median_ms":0.05,"min_ms":0.049,"max_ms":0.06,"gbps":4000,"tflops":0.3,"sol_pct":88.5,"clock_mhz":1980}]}}'
check "and judged once" '[ "$STATUS" = 200 ] && [ "$(field .duplicate)" = false ]'
as alice GET "/api/submissions/$S2"
check "Accepted with score and time stored" \
    '[ "$(field .verdict)" = AC ] && [ "$(field .score)" = 88.5 ] && [ "$(field .gpu)" = "NVIDIA H200" ]'
req GET /api/problems/vector-add/leaderboard
check "the leaderboard per GPU shows it" \
    '[ "$(field ".boards[0].gpu")" = "NVIDIA H200" ] && [ "$(field ".boards[0].entries[0].user")" = alice ]'
as ivan GET /api/gradebook.csv
check "the gradebook CSV has alice solved" \
    '[[ "$BODY" == *"user,problem,solved,best_score,best_time_ms,when"* ]] && grep -q "^alice,vector-add,yes,88.50,0.05," <<<"$BODY"'
as alice GET /api/me/scores
check "a learner sees their own progress" '[ "$(field ".problems[\"vector-add\"].solved")" = true ]'

# --- three expired leases -> Judge Error with a reason ----------------------
worker "$W1" POST /api/judge/claim '{"wait":1}'
S3C=$(field .submission)
wait_state() { # wait_state USER ID STATE: polls until the submission is in STATE
    for _ in $(seq 40); do
        as "$1" GET "/api/submissions/$2"
        [ "$(field .state)" = "$3" ] && return 0
        sleep 0.25
    done
    return 1
}
for attempt in 2 3; do
    wait_state alice "$S3" queued
    worker "$W1" POST /api/judge/claim '{"wait":1}'
    check "expired, requeued, claimed again: attempt $attempt" \
        '[ "$(field .submission)" = "$S3" ] && [ "$(field .attempt)" = "$attempt" ]'
done
for _ in $(seq 40); do
    as alice GET "/api/submissions/$S3C"
    [ "$(field .state)" = done ] && break
    sleep 0.25
done
check "the third expiry gives Judge Error with a reason" \
    '[ "$S3C" = "$S3" ] && [ "$(field .verdict)" = JE ] && [[ "$(field .message)" == *"3 times"* ]]'

# --- internal errors, compile-only workers, release ---------------------------
worker "$W2" POST /api/judge/register '{"hostname":"laptop","can_execute":false}'
worker "$W2" POST /api/judge/claim '{"wait":1}'
LB=$(field .lease)
check "a compile-only worker claims" '[ "$STATUS" = 200 ] && [ "$(field .submission)" = "$B1" ]'
worker "$W2" POST "/api/judge/leases/$LB/result" '{"result":{"executed":false,"message":"compiled","tests":[]}}'
check "a compile-only result is accepted" '[ "$STATUS" = 200 ]'
as bob GET "/api/submissions/$B1"
check "and the submission waits for a GPU worker" \
    '[ "$(field .state)" = queued ] && [ "$(field .waiting_for_gpu)" = true ]'
as bob GET /api/status
check "/api/status counts it as waiting for a GPU, the compile-only worker as alive" \
    '[ "$(field .queue.waiting_for_gpu)" -ge 1 ] && [ "$(field .workers.alive)" -ge 1 ]'
worker "$W2" POST /api/judge/claim '{"wait":1}'
check "the compile-only worker gets the next one, not that one" '[ "$(field .submission)" = "$B2" ]'
LB2=$(field .lease)
worker "$W2" POST "/api/judge/leases/$LB2/release" ''
check "a worker gives a job back" '[ "$STATUS" = 204 ]'
as bob GET "/api/submissions/$B2"
check "a given-back job is queued without using an attempt" \
    '[ "$(field .state)" = queued ] && [ "$(field .attempts)" = 0 ]'
for i in 1 2 3; do
    worker "$W2" POST /api/judge/claim '{"wait":1}'
    LX=$(field .lease)
    worker "$W2" POST "/api/judge/leases/$LX/internal-error" '{"message":"nvrtc library missing"}'
done
check "three internal errors in a row disable the worker" '[ "$(field .worker_disabled)" = true ]'
worker "$W2" POST /api/judge/claim '{"wait":0}'
check "a disabled worker is told so" '[ "$STATUS" = 403 ] && [ "$(err)" = worker_disabled ]'
as admin GET /api/admin/workers
check "the admin sees workers: GPU, state, reason" \
    '[ "$(field ".workers[0].gpu.name")" = "NVIDIA H200" ] && [ "$(field ".workers[1].disabled")" = true ] && [[ "$(field ".workers[1].disabled_reason")" == *"nvrtc"* ]]'
W2ID=$(field '.workers[1].id')
as admin POST "/api/admin/workers/$W2ID/enabled" '{"enabled":true}'
check "the admin enables it again" '[ "$STATUS" = 204 ]'
as bob GET "/api/submissions/$B2"
check "internal errors used up the attempts: Judge Error" '[ "$(field .verdict)" = JE ]'

worker "$W1" POST /api/judge/claim '{"wait":1}'
LG=$(field .lease)
check "the GPU worker picks up the compiled job" '[ "$(field .submission)" = "$B1" ]'
worker "$W1" POST "/api/judge/leases/$LG/result" '{"result":{"verdict":"WA","executed":true,"message":"out[126] differs","tests":[{"name":"N=127","verdict":"WA","message":"1 mismatch"}]}}'
check "its verdict is stored" '[ "$STATUS" = 200 ]'

# --- rejudge, admin queue ------------------------------------------------------------
as admin POST /api/admin/rejudge "{\"submission\":$S1}"
check "rejudge requeues a submission" '[ "$STATUS" = 200 ] && [ "$(field .requeued)" = 1 ]'
as admin POST /api/admin/rejudge '{"submission":1,"problem":"vector-add"}'
check "rejudge wants exactly one target" '[ "$STATUS" = 400 ]'
as admin GET /api/admin/queue
check "the queue shows it with its position" \
    '[ "$(field ".queue[0].id")" = "$S1" ] && [ "$(field ".queue[0].position")" = 1 ]'

# --- restart with jobs queued: SIGTERM, then SIGKILL ---------------------------
as ivan POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// i1"}'
I1=$(field .id)
as ivan POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// i2"}'
I2=$(field .id)
worker "$W1" POST /api/judge/claim '{"wait":1}'
LR=$(field .lease)
check "one job is being judged when the server stops" '[ "$(field .submission)" = "$S1" ]'
stop_server TERM
check "SIGTERM stops the server cleanly" 'grep -q "server: stopped" "$T/server.log"'
start_server
as admin GET /api/admin/queue
check "after a restart the queue is intact" \
    '[ "$(field "[.queue[] | .id] | sort | join(\",\")")" = "$(printf "%s\n" "$S1" "$I1" "$I2" | sort -n | paste -sd, -)" ]'
worker "$W1" POST "/api/judge/leases/$LR/result" "$RESULT"
check "the lease held across the restart still posts its result" '[ "$STATUS" = 200 ]'
as ivan POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// i3"}'
I3=$(field .id)
check "a submission is committed before 201" '[ "$STATUS" = 201 ]'
stop_server KILL
start_server
as ivan GET "/api/submissions/$I3"
check "SIGKILL right after 201 loses nothing" '[ "$STATUS" = 200 ] && [ "$(field .state)" = queued ]'
worker "$W1" POST /api/judge/register '{"hostname":"gpu-node","can_execute":true,"gpu":{"name":"NVIDIA H200"}}'
check "a worker that registers again gets its held jobs requeued" '[ "$STATUS" = 200 ]'
ids=()
for _ in 1 2 3; do
    worker "$W1" POST /api/judge/claim '{"wait":1}'
    ids+=("$(field .submission)")
    worker "$W1" POST "/api/judge/leases/$(field .lease)/result" "$RESULT"
done
check "every queued job is claimed exactly once" \
    '[ "$(printf "%s\n" "${ids[@]}" | sort -n | paste -sd, -)" = "$(printf "%s\n" "$I1" "$I2" "$I3" | sort -n | paste -sd, -)" ]'
as ivan POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// i4"}'
req GET /metrics
check "metrics count the queue" '[[ "$BODY" == *"blockwise_queue_length 1"* ]]'
check "metrics count the verdicts" '[[ "$BODY" == *"blockwise_verdicts_total{verdict=\"CE\"} 3"* ]]'

# --- a worker that hangs up during its long-poll is not handed a job ------------
worker "$W1" POST /api/judge/claim '{"wait":1}'
worker "$W1" POST "/api/judge/leases/$(field .lease)/result" "$RESULT"
curl -s -m 30 -X POST -H "Authorization: Bearer $(cat "$W1")" -H 'Content-Type: application/json' \
    -d '{"wait":2}' "$BASE/api/judge/claim" >/dev/null &
CLAIM_PID=$!
sleep 0.5
kill "$CLAIM_PID"
wait "$CLAIM_PID" 2>/dev/null
as ivan POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// i5"}'
I5=$(field .id)
sleep 0.5
as ivan GET "/api/submissions/$I5"
check "a job is not claimed for a long-poll whose worker hung up" \
    '[ "$(field .state)" = queued ] && [ "$(field .attempts)" = 0 ]'

# --- issue 12: cancelling, jobs parked for a GPU, one queue position ---------------
# (this block: the no-GPU dead end; its own users and workers' states)
as admin GET /api/admin/workers
W1ID=$(field '.workers[] | select(.name == "gpu0") | .id')
as admin POST "/api/admin/workers/$W1ID/enabled" '{"enabled":false}'
as admin GET /api/status
check "no GPU worker is connected now (gpu0 disabled), cpu0 is" \
    '[ "$(field .workers.gpu)" = 0 ]'
compile_on_cpu() { # compile_on_cpu ID: cpu0 compiles queued jobs until it has compiled ID
    local got lease
    for _ in 1 2 3 4 5 6; do
        worker "$W2" POST /api/judge/claim '{"wait":1}'
        [ "$STATUS" = 200 ] || continue
        got=$(field .submission)
        lease=$(field .lease)
        worker "$W2" POST "/api/judge/leases/$lease/result" \
            '{"result":{"executed":false,"message":"compiled","tests":[]}}'
        [ "$got" = "$1" ] && return 0
    done
    return 1
}
signup dana
D=()
parked=0
for i in 1 2 3 4; do
    as dana POST /api/submissions "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"// d$i\"}"
    D+=("$(field .id)")
    [ "$STATUS" = 201 ] && compile_on_cpu "${D[-1]}" && parked=$((parked + 1))
done
check "four Runs compiled by the compile-only worker, each then waits for a GPU" '[ "$parked" = 4 ]'
as dana GET /api/me
check "jobs parked for a GPU are not in flight while no GPU worker is connected" \
    '[ "$(field .quota.in_flight.used)" = 0 ] && [ "$(field .quota.in_flight.waiting_for_gpu)" = 4 ] && [ "$(field .quota.in_flight.waiting_counted)" = false ]'
as dana POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// d5"}'
D5=$(field .id)
check "more jobs waiting for a GPU than the in-flight cap (3): a new one is still accepted" \
    '[ "$STATUS" = 201 ]'
as dana GET '/api/submissions?limit=10'
LIST=$BODY
same=yes
for id in "${D[@]}" "$D5"; do
    lp=$(jq -r ".submissions[] | select(.id == $id) | .position" <<<"$LIST")
    as dana GET "/api/submissions/$id"
    [ "$lp" = "$(field .position)" ] && [ "$lp" -gt 0 ] || { same=no; echo "  #$id: list $lp, page $(field .position)"; }
done
check "a queued submission has the same position in the list as on its own page (not 0)" '[ "$same" = yes ]'
check "the list says which wait for a GPU" \
    '[ "$(jq -r ".submissions[] | select(.id == ${D[0]}) | .waiting_for_gpu" <<<"$LIST")" = true ] && [ "$(jq -r ".submissions[] | select(.id == $D5) | .waiting_for_gpu" <<<"$LIST")" = false ]'
as dana GET "/api/submissions/${D[2]}"
P2=$(field .position)
curl -sN -m 10 -b "$T/dana.jar" "$BASE/api/submissions/${D[1]}/events" >"$T/events-cancel" &
EV_PID=$!
sleep 0.3
check "its event stream starts with the same position" \
    'grep -q "^event: state" "$T/events-cancel" && sed -n "s/^data: //p" "$T/events-cancel" | head -1 | jq -e ".position > 0 and .waiting_for_gpu" >/dev/null'
as dana POST "/api/submissions/${D[1]}/cancel" ''
check "the owner cancels a submission waiting for a GPU: 200, state cancelled, by whom, from where" \
    '[ "$STATUS" = 200 ] && [ "$(field .state)" = cancelled ] && [ "$(field .cancelled.by)" = dana ] && [ "$(field .cancelled.from)" = waiting_for_gpu ] && [ "$(field .cancelled.at)" -gt 0 ] && [ "$(field .verdict)" = null ]'
wait $EV_PID
check "the stream ends with a done event saying cancelled" \
    'grep -A1 "^event: done" "$T/events-cancel" | grep -q "\"state\":\"cancelled\""'
as dana GET "/api/submissions/${D[1]}"
check "the submission reads cancelled, with the message, out of the queue" \
    '[ "$(field .state)" = cancelled ] && [ "$(field .message)" = "cancelled by dana" ] && [ "$(field .position)" = 0 ] && [ "$(field .waiting_for_gpu)" = false ]'
as dana GET "/api/submissions/${D[2]}"
check "the ones behind it move up one, in the list as on the page" \
    '[ "$(field .position)" = $((P2 - 1)) ] && as dana GET "/api/submissions?limit=10" && [ "$(field ".submissions[] | select(.id == ${D[2]}) | .position")" = $((P2 - 1)) ]'
as dana GET "/api/submissions?limit=10"
check "the history lists it as cancelled by dana" \
    '[ "$(field ".submissions[] | select(.id == ${D[1]}) | .state + \" \" + .cancelled.by")" = "cancelled dana" ]'
as admin GET /api/admin/queue
check "the admin's queue no longer has it" \
    '[ "$(field "[.queue[] | select(.id == ${D[1]})] | length")" = 0 ]'
as dana POST "/api/submissions/${D[1]}/cancel" ''
check "cancelling it again is 409 finished, saying by whom" \
    '[ "$STATUS" = 409 ] && [ "$(err)" = finished ] && [[ "$(field .error.message)" == *"cancelled already, by dana"* ]]'
as alice POST "/api/submissions/$S2/cancel" ''
check "cancelling a judged submission is 409 finished" \
    '[ "$STATUS" = 409 ] && [ "$(err)" = finished ] && [[ "$(field .error.message)" == *"judged already (Accepted)"* ]]'
as bob POST "/api/submissions/${D[2]}/cancel" ''
check "another learner cannot cancel it: 404, as for reading" '[ "$STATUS" = 404 ] && [ "$(err)" = not_found ]'
as ivan POST "/api/submissions/${D[2]}/cancel" ''
check "an instructor (who may read it) cannot cancel it: 403" '[ "$STATUS" = 403 ] && [ "$(err)" = forbidden ]'
req POST "/api/submissions/${D[2]}/cancel" ''
check "anonymous cancel is 401" '[ "$STATUS" = 401 ]'
req POST "/api/submissions/${D[2]}/cancel" '' -b "$T/dana.jar"
check "cancel without X-CSRF-Token is 403 csrf" '[ "$STATUS" = 403 ] && [ "$(err)" = csrf ]'
as dana POST "/api/submissions/${D[2]}/cancel" '{"reason":"x"}'
check "a cancel body with a field is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = reason ]'
as dana POST /api/submissions/999999/cancel ''
check "cancelling no such submission is 404" '[ "$STATUS" = 404 ]'
as dana GET "/api/submissions/${D[2]}"
check "after all those refusals it still waits" '[ "$(field .state)" = queued ]'

worker "$W2" POST /api/judge/claim '{"wait":1}'
LD=$(field .lease)
check "cpu0 takes dana's Submit (not compiled yet) past the parked ones" '[ "$(field .submission)" = "$D5" ]'
as admin POST "/api/submissions/$D5/cancel" '{}'
check "an admin cancels anyone's submission, even while a worker judges it" \
    '[ "$STATUS" = 200 ] && [ "$(field .cancelled.by)" = admin ] && [ "$(field .cancelled.from)" = judging ]'
worker "$W2" POST "/api/judge/leases/$LD/progress" '{"events":[{"event":"compiling"}]}'
check "the worker's progress for that lease is refused: 409 cancelled" \
    '[ "$STATUS" = 409 ] && [ "$(err)" = cancelled ] && [[ "$(field .error.message)" == *"cancelled by admin"* ]]'
worker "$W2" POST "/api/judge/leases/$LD/result" '{"result":{"executed":false,"message":"compiled","tests":[]}}'
check "and so is its result" '[ "$STATUS" = 409 ] && [ "$(err)" = cancelled ]'
worker "$W2" POST "/api/judge/leases/$LD/internal-error" '{"message":"x"}'
check "and an internal error under it" '[ "$STATUS" = 409 ] && [ "$(err)" = cancelled ]'
as dana GET "/api/submissions/$D5"
check "the cancelled Submit stays cancelled, with no verdict" \
    '[ "$(field .state)" = cancelled ] && [ "$(field .verdict)" = null ] && [ "$(field .result)" = null ]'
as dana POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// d6"}'
D6=$(field .id)
worker "$W2" POST /api/judge/claim '{"wait":1}'
check "the worker moves on: its next claim is the next job" '[ "$(field .submission)" = "$D6" ]'
worker "$W2" POST "/api/judge/leases/$(field .lease)/result" '{"result":{"executed":false,"message":"compiled","tests":[]}}'
as admin POST /api/admin/rejudge "{\"submission\":${D[1]}}"
check "a cancelled submission is not rejudged: 409" '[ "$STATUS" = 409 ] && [ "$(err)" = cancelled ]'

as admin POST "/api/admin/workers/$W1ID/enabled" '{"enabled":true}'
order=()
for _ in 1 2 3 4 5 6; do
    worker "$W1" POST /api/judge/claim '{"wait":1}'
    [ "$STATUS" = 200 ] || break
    order+=("$(field .submission)")
    worker "$W1" POST "/api/judge/leases/$(field .lease)/result" "$RESULT"
    if [ ${#order[@]} = 1 ]; then
        as dana GET /api/me
        DME=$BODY
    fi
done
check "a GPU worker connects: the waiting jobs are judged in order, the cancelled skipped" \
    '[ "${order[*]}" = "$I5 ${D[0]} ${D[2]} ${D[3]} $D6" ]'
check "while a GPU worker is connected, parked jobs count in flight again" \
    '[ "$(jq -r .quota.in_flight.waiting_counted <<<"$DME")" = true ] && [ "$(jq -r .quota.in_flight.used <<<"$DME")" = 4 ]'
stop_server TERM
start_server
as dana GET "/api/submissions/${D[1]}"
check "a cancellation survives a restart (who, when, from where)" \
    '[ "$(field .state)" = cancelled ] && [ "$(field .cancelled.by)" = dana ] && [ "$(field .cancelled.from)" = waiting_for_gpu ]'

# --- sign-out ------------------------------------------------------------------------
as alice POST /api/auth/signout ''
check "sign-out answers 204" '[ "$STATUS" = 204 ]'
req GET /api/me "" -b "$T/alice.jar"
check "and the session is gone" '[ "$STATUS" = 401 ]'

check "the server survived everything" 'kill -0 "$SERVER_PID" 2>/dev/null'
grep -E ' -> 5[0-9][0-9] ' "$T/server.log" >"$T/5xx"
check "no request was answered 5xx" '[ ! -s "$T/5xx" ]'
finish
