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
# the in-flight cap, one queue position in list and page; --check-config
# refusing what would fail (paths, addresses, duplicated keys) and --help; %00
# in paths, unknown /api routes; clients hanging up mid-body or mid-stream (no
# 5xx, no warn); sign-in throttling per name and per address (X-Forwarded-For
# only from a trusted proxy), parallel guesses, uniform failure timing;
# deploy/nginx.conf's limit_req through a real nginx (when installed);
# scripts/serve.sh's banner naming the admin's password file; languages
# (issue 11): a submission's language and its 400s, problems' languages,
# starters and Triton signatures, workers registering what they compile and
# claims routed by it, Triton jobs parked while no worker compiles Triton,
# leaderboards per GPU model and language (?language=), the gradebook's
# language column; Profile mode (issue 29): its quota, a worker's profile
# checked (400/413 naming the field) and stored with the result, its download
# (GET .../profile: the attachment, who may read it, each 404's reason), and
# that a Profile solves nothing and ranks nowhere.
set -u
build=${1:-build}
bin=${SERVER_BIN:-$build/bin/blockwise-server}
. tests/cpu/lib/server-suite.sh
finish() {
    stop_server
    [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null
    [ -n "${WATCHDOG:-}" ] && kill "$WATCHDOG" 2>/dev/null
    rm -rf "$T"
    pg_test_cleanup
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
server_suite_needs

T=$(mktemp -d /tmp/bw-server-test.XXXXXX)
. tests/lib/postgres.sh
if ! suite_database bw_server "$T/blockwise.db"; then
    echo "skipped: PostgreSQL: $PG_WHY"
    echo "0 passed, 0 failed, 1 skipped"
    rm -rf "$T"
    exit 0
fi
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
mkdir -p "$T/web"
echo '<!doctype html><title>Blockwise</title>' >"$T/web/index.html"
cat >"$T/server.conf" <<EOF
# test configuration
listen = 127.0.0.1
port = $PORT
database = "$DB"
problems = tests/fixtures/problems
web = $T/web
threads = 4
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_run = 4
quota_submit = 2
quota_profile = 2
quota_in_flight = 3
quota_window = 3600
lease = 3
claim_wait = 2
sse_heartbeat = 1
worker_error_limit = 3
problem_error_limit = 50
log_level = info
EOF

CONF=$T/server.conf
trap 'stop_server KILL; [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID"; rm -rf "$T"; pg_test_cleanup' INT
suite_deadline "${BW_SERVER_TEST_DEADLINE:-420}"

# --- configuration and the command line ------------------------------------
out=$("$bin" -c "$T/server.conf" --check-config 2>&1)
check "check-config prints configuration OK" '[[ "$out" == *"configuration OK"* ]]'
out=$("$bin" -c "$T/server.conf" --set lease=zero --check-config 2>&1)
rc=$?
check "a bad value is refused with exit 2 and named" '[ $rc -eq 2 ] && [[ "$out" == *"lease"* ]]'
printf 'port = 80\nbogus = 1\n' >"$T/bad.conf"
out=$("$bin" -c "$T/bad.conf" --check-config 2>&1)
check "an unknown key names file and line" '[[ "$out" == *"bad.conf:2"*"bogus"* ]]'

# --check-config says OK only for what would start (issue 12, item 5)
cc() { # cc CONF-LINES...: --check-config on the test config plus these lines; sets out, rc
    { grep -v -E "^($(printf '%s\n' "$@" | sed 's/ *=.*//' | paste -sd'|' -)) *=" "$T/server.conf"
      printf '%s\n' "$@"; } >"$T/cc.conf"
    out=$("$bin" -c "$T/cc.conf" --check-config 2>&1)
    rc=$?
}
cc "problems = $T/no-such-problems"
check "check-config: a missing problems directory is refused" \
    '[ $rc -eq 2 ] && [[ "$out" == *"problems: $T/no-such-problems"* ]] && [[ "$out" != *"configuration OK"* ]]'
mkdir -p "$T/empty-problems" "$T/broken-problems/bad"
echo '{' >"$T/broken-problems/bad/problem.json"
cc "problems = $T/empty-problems"
check "check-config: an empty problems directory is refused" \
    '[ $rc -eq 2 ] && [[ "$out" == *"holds no problem directories"* ]]'
cc "problems = $T/broken-problems"
check "check-config: a problems directory where nothing loads is refused, naming why" \
    '[ $rc -eq 2 ] && [[ "$out" == *"broken-problems/bad"* ]] && [[ "$out" == *"none of the 1 directories"* ]]'
cc "database = $T/no-such-dir/blockwise.db"
check "check-config: a database in a missing directory is refused" \
    '[ $rc -eq 2 ] && [[ "$out" == *"database: the directory $T/no-such-dir"* ]]'
cc "listen = not-an-ip"
check "check-config: listen = not-an-ip is refused" \
    '[ $rc -eq 2 ] && [[ "$out" == *"listen: \"not-an-ip\" is not a numeric"* ]]'
cc "trusted_proxies = 127.0.0.1, proxy.local"
check "check-config: a trusted proxy that is not an address is refused" \
    '[ $rc -eq 2 ] && [[ "$out" == *"trusted_proxies: \"proxy.local\""* ]]'
cc "web = $T/no-such-web"
check "check-config: a missing web directory is a warning, not silence" \
    '[ $rc -eq 0 ] && [[ "$out" == *"warning: web: $T/no-such-web"*"will be 404"* ]] && [[ "$out" == *"configuration OK, with 1 warning"* ]]'
printf 'port = 80\nthreads = 2\n\nport = 81\n' >"$T/dup.conf"
out=$("$bin" -c "$T/dup.conf" --check-config 2>&1)
rc=$?
check "a key set twice names both lines" \
    '[ $rc -eq 2 ] && [[ "$out" == *"dup.conf:4: \"port\" is set twice (first on line 1)"* ]]'
out=$("$bin" -c "$T/dup.conf" --help 2>&1)
rc=$?
check "--help works whatever the config, and explains options, --set and every key" \
    '[ $rc -eq 0 ] && [[ "$out" == *"--check-config"* ]] && [[ "$out" == *"--set KEY=VALUE"* ]] && [[ "$out" == *"each key at most once"* ]] && [[ "$out" == *"signin_account_failures"*"default 5"* ]] && [[ "$out" == *"quota_run"*"0..1000000; default 120"* ]] && [ "$(grep -c "default" <<<"$out")" -ge 29 ]'
"$bin" --set web="$T/no-such-web" -c "$T/server.conf" --port $((PORT + 1)) --set "database=$T/webcheck.db" >"$T/web.log" 2>&1 &
WEB_PID=$!
for _ in $(seq 50); do grep -q "listening" "$T/web.log" && break; sleep 0.1; done
kill "$WEB_PID" 2>/dev/null
wait "$WEB_PID" 2>/dev/null
check "a server started with a missing web directory says so in its log" \
    'grep -q "warn: server: web: $T/no-such-web" "$T/web.log" && grep -q "listening" "$T/web.log"'

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
check "an unknown /api route is the API's 404, not a missing file" \
    '[ "$STATUS" = 404 ] && [ "$(err)" = not_found ] && [ "$(field .error.message)" = "no API endpoint GET /api/nothing-here" ]'
req GET /api
check "so is /api itself" '[ "$STATUS" = 404 ] && [[ "$(field .error.message)" == "no API endpoint"* ]]'
req GET /api/problems/NOPE
check "a 404 for a malformed problem id names it" \
    '[ "$STATUS" = 404 ] && [[ "$(field .error.message)" == *"no problem \"NOPE\""* ]]'
req GET /api/problems/vector-add%00xyz
check "a %00 in the path is refused, not cut short" '[ "$STATUS" = 400 ] && [ "$(err)" = bad_path ]'
req GET '/api/problems?x=1%00'
check "a %00 in the query too" '[ "$STATUS" = 400 ] && [ "$(err)" = bad_path ]'
req GET "/api/problems?q=$(head -c 2100 /dev/zero | tr '\0' a)"
check "a path plus query over BW_MAX_URL_BYTES is 414" '[ "$STATUS" = 414 ]'
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
# A browser closing an event stream, a client hanging up mid-body: the
# client's doing, so no 5xx and no warn (issue 12, item 6).
req GET /metrics
gone0=$(grep -oP 'blockwise_http_client_gone_total \K[0-9]+' <<<"$BODY")
curl -s -m 1.2 -b "$T/alice.jar" "$BASE/api/submissions/$S1/events" >/dev/null
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'POST /api/auth/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":' >&3
sleep 0.3
exec 3>&-
sleep 1.5 # a heartbeat (sse_heartbeat = 1) finds the stream's socket closed
req GET /metrics
check "a client gone mid-body or mid-stream is not a 5xx" \
    '[[ "$BODY" == *"blockwise_http_requests_total{code=\"5xx\"} 0"* ]] && [ "$(grep -oP "blockwise_http_client_gone_total \K[0-9]+" <<<"$BODY")" -gt "$gone0" ]'
check "and it logs no warn (nor \"-> 0\")" \
    '! grep -E "warn: http|-> 0 " "$T/server.log"'
as alice POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// second"}'
S2=$(field .id)
check "a second is queued behind the first" '[ "$STATUS" = 201 ] && [ "$(field .position)" = 2 ]'
req POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// via API token"}' \
    -H "Authorization: Bearer $(cat "$T/alice.api")" -H "Idempotency-Key: run-3f2a"
S3=$(field .id)
check "an API token submits without CSRF" '[ "$STATUS" = 201 ]'
# A post sent again (its answer lost) with its Idempotency-Key: the first
# submission, not a second, even with the in-flight cap now reached.
req POST /api/submissions '{"problem": "vector-add", "mode": "run", "source": "// via API token"}' \
    -H "Authorization: Bearer $(cat "$T/alice.api")" -H "Idempotency-Key: run-3f2a"
check "the same post with the same Idempotency-Key is 200 with the first submission" \
    '[ "$STATUS" = 200 ] && [ "$(field .id)" = "$S3" ] && [ "$(field .state)" = queued ] && [ "$(field .quota.in_flight.used)" = 3 ] && grep -qi "^Idempotent-Replayed: true" <<<"$HDRS" && grep -qi "^Location: /api/submissions/$S3" <<<"$HDRS"'
req POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// another"}' \
    -H "Authorization: Bearer $(cat "$T/alice.api")" -H "Idempotency-Key: run-3f2a"
check "the key with another request is 422 naming the key and its submission" \
    '[ "$STATUS" = 422 ] && [ "$(err)" = idempotency_key_reused ] && [ "$(errfield)" = Idempotency-Key ] && [[ "$(field .error.message)" == *"submission $S3"* ]]'
req POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// x"}' \
    -H "Authorization: Bearer $(cat "$T/alice.api")" -H "Idempotency-Key: has space"
check "a key with a space is 400 naming the header" \
    '[ "$STATUS" = 400 ] && [ "$(errfield)" = Idempotency-Key ] && [[ "$(field .error.message)" == *"printable ASCII"* ]]'
req POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// x"}' \
    -H "Authorization: Bearer $(cat "$T/alice.api")" -H "Idempotency-Key: $(printf 'k%.0s' $(seq 129))"
check "a key of 129 characters is 400" '[ "$STATUS" = 400 ] && [ "$(errfield)" = Idempotency-Key ]'
as alice POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// fourth"}'
check "the in-flight cap answers 429 with Retry-After" \
    '[ "$STATUS" = 429 ] && [ "$(err)" = quota ] && grep -qi "^Retry-After: [0-9]" <<<"$HDRS"'

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
check "an instructor lists everyone's" '[ "$STATUS" = 200 ] && [ "$(field ".submissions | length")" = 3 ]'

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
    '[[ "$BODY" == *"user,problem,solved,best_score,best_time_ms,when,language"* ]] && grep -q "^alice,vector-add,yes,88.50,0.05,.*,cuda" <<<"$BODY"'
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
# Bob's Submits come now, after alice's jobs are judged: the queue serves
# learners in turns (tests/cpu/hardening.sh), so queued beside alice's they
# would be claimed between them.
as bob POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// b1"}'
B1=$(field .id)
as bob POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// b2"}'
B2=$(field .id)
as bob POST /api/submissions '{"problem":"vector-add","mode":"submit","source":"// b3"}'
check "the Submit quota (2 per window) answers 429" \
    '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"submit quota"* ]]'
as bob GET /api/me
check "the remaining quota is in the API" '[ "$(field .quota.submit.remaining)" = 0 ]'
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

# --- issue 29: Profile mode: its quota, the profile stored with the result, its download ---
# The queue is empty here and gpu0 is enabled: each Profile below is the next job claimed.
signup pia
signup quinn
as pia POST /api/submissions '{"problem":"vector-add","mode":"profile","source":"// p1"}'
P1=$(field .id)
check "a Profile is accepted: 201, mode profile, its own quota (Runs untouched)" \
    '[ "$STATUS" = 201 ] && [ "$(field .mode)" = profile ] && [ "$(field .quota.profile.limit)" = 2 ] &&
     [ "$(field .quota.profile.remaining)" = 1 ] && [ "$(field .quota.run.used)" = 0 ]'
as pia GET "/api/submissions/$P1/profile"
check "its profile before it is judged: 404, not yet, it is queued" \
    '[ "$STATUS" = 404 ] && [ "$(err)" = not_found ] && [[ "$(field .error.message)" == *"has no profile yet: it is queued"* ]]'
as pia POST /api/submissions '{"problem":"vector-add","mode":"profile","source":"// p2"}'
P2=$(field .id)
as pia POST /api/submissions '{"problem":"vector-add","mode":"profile","source":"// p3"}'
check "the Profile quota (2 per window) answers 429 with Retry-After, naming it" \
    '[ "$STATUS" = 429 ] && [ "$(err)" = quota ] && [[ "$(field .error.message)" == "profile quota used up: 2 per 3600 seconds" ]] &&
     grep -qi "^Retry-After: [0-9]" <<<"$HDRS"'
as pia POST /api/submissions '{"problem":"vector-add","mode":"run","source":"// r1"}'
PR=$(field .id)
check "a Run still goes: the quotas are apart" '[ "$STATUS" = 201 ] && [ "$(field .quota.run.used)" = 1 ] && [ "$(field .quota.profile.used)" = 2 ]'
as pia GET /api/me
check "GET /api/me has the Profile quota" '[ "$(field .quota.profile.used)" = 2 ] && [ "$(field .quota.profile.remaining)" = 0 ]'
as admin GET /api/admin/queue
check "the admin's queue says which are Profiles" \
    '[ "$(field "[.queue[] | select(.id == $P1 or .id == $P2) | .mode] | join(\",\")")" = "profile,profile" ] &&
     [ "$(field ".queue[] | select(.id == $PR) | .mode")" = run ]'
as pia GET "/api/submissions?limit=5"
check "the list says mode profile" '[ "$(field ".submissions[] | select(.id == $P1) | .mode")" = profile ]'
worker "$W1" POST /api/judge/claim '{"wait":1}'
LP1=$(field .lease)
check "a worker claims the Profile as mode profile" '[ "$(field .submission)" = "$P1" ] && [ "$(field .mode)" = profile ]'
PROFILE=$(jq -c . tests/fixtures/profile/profile.json)
presult() { # presult VERDICT PROFILE-JSON-or-null: a worker's result for a Profile
    printf '{"result":{"verdict":"%s","mode":"profile","executed":true,"message":"m","gpu":{"name":"NVIDIA H200"},"tests":[{"name":"N=1","verdict":"%s"}],"profile":%s}}' "$1" "$1" "$2"
}
worker "$W1" POST "/api/judge/leases/$LP1/result" "$(presult AC "$(jq -c '.kernels[0].dram_pct = -1' <<<"$PROFILE")")"
check "a profile with a negative percentage: 400 naming the field" \
    '[ "$STATUS" = 400 ] && [ "$(errfield)" = "result.profile.kernels[0].dram_pct" ]'
worker "$W1" POST "/api/judge/leases/$LP1/result" "$(presult AC "$(jq -c '.kernels = [range(9) as $i | .kernels[0]]' <<<"$PROFILE")")"
check "a profile of more kernels than a plan launches: 413 naming BW_MAX_LAUNCHES" \
    '[ "$STATUS" = 413 ] && [ "$(err)" = too_large ] && [[ "$(field .error.message)" == *BW_MAX_LAUNCHES* ]]'
worker "$W1" POST "/api/judge/leases/$LP1/result" "$(presult AC "$(jq -c '.kernels[1].limiter = "disk"' <<<"$PROFILE")")"
check "a limiter that is no known word: 400 listing the words" \
    '[ "$STATUS" = 400 ] && [ "$(errfield)" = "result.profile.kernels[1].limiter" ] && [[ "$(field .error.message)" == *"memory, compute, latency"* ]]'
worker "$W1" POST "/api/judge/leases/$LP1/result" "$(presult AC "$PROFILE")"
check "the Profile's result with its profile is stored" '[ "$STATUS" = 200 ] && [ "$(field .stored)" = true ]'
as pia GET "/api/submissions/$P1"
check "the submission returns the profile with the result (kernels, reading, raw)" \
    '[ "$(field .mode)" = profile ] && [ "$(field .verdict)" = AC ] && [ "$(field ".result.profile.kernels | length")" = 2 ] &&
     [ "$(field ".result.profile.kernels[0].kernel")" = vector_add ] && [ "$(field ".result.profile.kernels[1].l1_pct")" = null ] &&
     [ "$(field ".result.profile.raw[\"vector_add#0\"][\"dram__bytes.sum\"]")" = 3221225472 ]'
as pia GET "/api/submissions/$P1/profile"
check "GET .../profile: 200, an application/json attachment profile-$P1.json" \
    '[ "$STATUS" = 200 ] && grep -qi "^Content-Type: application/json" <<<"$HDRS" &&
     grep -qi "^Content-Disposition: attachment; filename=\"profile-$P1.json\"" <<<"$HDRS"'
check "the download is the profile (summary and raw) and what it is of" \
    '[ "$(field .submission)" = "$P1" ] && [ "$(field .problem)" = vector-add ] && [ "$(field .user)" = pia ] &&
     [ "$(field .gpu.name)" = "NVIDIA H200" ] && [ "$(jq --argjson p "$PROFILE" ".profile == \$p" <<<"$BODY")" = true ]'
as ivan GET "/api/submissions/$P1/profile"
check "an instructor downloads it too" '[ "$STATUS" = 200 ] && [ "$(field .submission)" = "$P1" ]'
as bob GET "/api/submissions/$P1/profile"
check "another learner gets 404, as for the submission" '[ "$STATUS" = 404 ] && [ "$(field .error.message)" = "no such submission" ]'
req GET "/api/submissions/$P1/profile"
check "anonymous: 401" '[ "$STATUS" = 401 ]'
as alice GET "/api/submissions/$S2/profile"
check "a Submit's profile: 404, it is a Submit, not a Profile" \
    '[ "$STATUS" = 404 ] && [[ "$(field .error.message)" == *"is a Submit, not a Profile"* ]]'
as pia GET "/api/submissions/$PR/profile"
check "a Run's profile: 404, it is a Run" '[ "$STATUS" = 404 ] && [[ "$(field .error.message)" == *"is a Run, not a Profile"* ]]'
as pia GET /api/submissions/999999/profile
check "no such submission: 404" '[ "$STATUS" = 404 ] && [ "$(field .error.message)" = "no such submission" ]'
as pia POST "/api/submissions/$P1/profile" '{}'
check "POST .../profile: 405" '[ "$STATUS" = 405 ]'
worker "$W1" POST /api/judge/claim '{"wait":1}'
check "the next Profile" '[ "$(field .submission)" = "$P2" ]'
worker "$W1" POST "/api/judge/leases/$(field .lease)/result" \
    '{"result":{"verdict":"CE","mode":"profile","executed":true,"message":"compile error at line 2","tests":[]}}'
as pia GET "/api/submissions/$P2/profile"
check "a Profile that did not compile has no profile: 404 saying why" \
    '[ "$STATUS" = 404 ] && [[ "$(field .error.message)" == *"has no profile: it ended Compile Error before the profiler ran"* ]]'
worker "$W1" POST /api/judge/claim '{"wait":1}'
worker "$W1" POST "/api/judge/leases/$(field .lease)/result" "$(presult AC null)"
as quinn POST /api/submissions '{"problem":"vector-add","mode":"profile","source":"// q1"}'
Q1=$(field .id)
worker "$W1" POST /api/judge/claim '{"wait":1}'
worker "$W1" POST "/api/judge/leases/$(field .lease)/result" \
    "$(presult AC '{"available":false,"why":"the driver lets only administrators read the GPU'"'"'s counters"}')"
as quinn GET "/api/submissions/$Q1/profile"
check "a profile that is not available is served with its sentence" \
    '[ "$STATUS" = 200 ] && [ "$(field .profile.available)" = false ] && [[ "$(field .profile.why)" == *"administrators"* ]]'
as pia GET /api/me/scores
check "an Accepted Profile solves nothing (the Accepted Run does)" \
    '[ "$(field ".problems[\"vector-add\"].solved")" = true ] && as quinn GET /api/me/scores && [ "$(field ".problems[\"vector-add\"]")" = null ]'
req GET /api/problems/vector-add/leaderboard
check "and no Profile is on the leaderboard" '[ "$(field "[.boards[].entries[] | select(.user == \"pia\" or .user == \"quinn\")] | length")" = 0 ]'
req GET /metrics
check "metrics count Profiles" '[[ "$BODY" == *"blockwise_submissions_total{mode=\"profile\"} 3"* ]]'

# --- issue 11: languages: Triton submissions, what workers compile, claims by language ---
# Its own problems directory (the fixture, and a copy offered in Triton too),
# user and workers; gpu0 and cpu0 (registered without "languages": CUDA only)
# are disabled so that only this block's workers claim.
stop_server TERM
. tests/cpu/lib/triton-problem.sh
mkdir -p "$T/problems"
cp -r tests/fixtures/problems/vector-add "$T/problems/"
NUMBER=2 triton_problem tests/fixtures/problems/vector-add "$T/problems" vector-triton
sed -i "s|^problems = .*|problems = $T/problems|" "$T/server.conf"
start_server || finish
as admin GET /api/admin/workers
check "a worker that registered without languages (an older judged) compiles CUDA only" \
    '[ "$(field "[.workers[] | select(.name == \"gpu0\") | .languages[] | .name + \"@\" + .version] | join(\",\")")" = "cuda@" ]'
W2ID=$(field '.workers[] | select(.name == "cpu0") | .id')
as admin POST "/api/admin/workers/$W1ID/enabled" '{"enabled":false}'
as admin POST "/api/admin/workers/$W2ID/enabled" '{"enabled":false}'
as admin POST /api/admin/workers '{"name":"cuda13"}'
field .token >"$T/wc.token"
as admin POST /api/admin/workers '{"name":"triton36"}'
field .token >"$T/wt.token"
WC=$T/wc.token
WT=$T/wt.token

req GET /api/problems
check "the problem list says which languages each problem is offered in" \
    '[ "$(field "[.problems[] | .id + \":\" + (.languages | join(\"+\"))] | join(\" \")")" = "vector-add:cuda vector-triton:cuda+triton" ]'
req GET /api/problems/vector-triton
check "a Triton problem's detail has both starters (starter stays CUDA's)" \
    '[ "$(field ".languages | join(\",\")")" = cuda,triton ] && [ "$(field .starters.triton)" = "$(cat "$T/problems/vector-triton/starter.py")" ] && [ "$(field .starters.cuda)" = "$(field .starter)" ] && [[ "$(field .starter)" == *"__global__"* ]]'
check "and every tensor and size with its Triton type, as the learner declares it" \
    '[ "$(field "[.signatures.triton[] | .name + \": \" + .type] | join(\", \")")" = "x: *fp32, y: *fp32, out: *fp32, N: i32 or i64" ] && [ "$(field "[.signatures.cuda[] | .type] | join(\",\")")" = "const float*,const float*,float*,long long" ]'
req GET /api/problems/vector-add
check "a CUDA-only problem has no Triton starter nor signature" \
    '[ "$(field ".languages | join(\",\")")" = cuda ] && [ "$(field .starters.triton)" = null ] && [ "$(field .signatures.triton)" = null ]'

signup tina
as tina POST /api/submissions '{"problem":"vector-triton","mode":"run","source":"// an older client"}'
TC0=$(field .id)
check "a submission without \"language\" is CUDA (older clients)" \
    '[ "$STATUS" = 201 ] && [ "$(field .language)" = cuda ]'
as tina POST /api/submissions '{"problem":"vector-triton","mode":"run","language":"rust","source":"x"}'
check "an unknown language is 400 naming the field" \
    '[ "$STATUS" = 400 ] && [ "$(err)" = invalid ] && [ "$(errfield)" = language ] && [[ "$(field .error.message)" == *"\"rust\" is not \"cuda\" or \"triton\""* ]]'
as tina POST /api/submissions '{"problem":"vector-triton","mode":"run","language":["triton"],"source":"x"}'
check "a language that is not a string is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = language ]'
as tina POST /api/submissions '{"problem":"vector-add","mode":"run","language":"triton","source":"x"}'
check "a Triton submission to a problem without Triton is 400 naming language" \
    '[ "$STATUS" = 400 ] && [ "$(errfield)" = language ] && [[ "$(field .error.message)" == *"not offered in Triton (its languages: cuda)"* ]]'
as tina POST /api/submissions \
    "$(jq -n --rawfile s "$T/problems/vector-triton/solution.py" '{problem: "vector-triton", mode: "submit", language: "triton", source: $s}')"
TT1=$(field .id)
check "a Triton Submit is 201 with its language" '[ "$STATUS" = 201 ] && [ "$(field .language)" = triton ]'
as tina POST /api/submissions '{"problem":"vector-triton","mode":"submit","language":"cuda","source":"// c1"}'
TC1=$(field .id)
as tina GET "/api/submissions/$TT1"
check "the submission reads back in Triton, with its source" \
    '[ "$(field .language)" = triton ] && [[ "$(field .source)" == *"@triton.jit"* ]]'
as tina GET /api/status
check "/api/status: no worker compiles Triton, one Triton job queued" \
    '[ "$(field .workers.languages.triton.alive)" = 0 ] && [ "$(field .queue.languages.triton.queued)" = 1 ] && [ "$(field .queue.languages.cuda.queued)" = 2 ]'
as tina GET /api/me
check "a Triton job no connected worker compiles is parked outside the in-flight cap" \
    '[ "$(field .quota.in_flight.used)" = 2 ] && [ "$(field .quota.in_flight.waiting_for_language)" = 1 ]'
req GET /metrics
check "metrics count the queue and the live workers per language" \
    '[[ "$BODY" == *"blockwise_queue_language{language=\"triton\"} 1"* ]] && [[ "$BODY" == *"blockwise_workers_language{language=\"triton\"} 0"* ]] && [[ "$BODY" == *"blockwise_queue_language{language=\"cuda\"} 2"* ]]'
as admin GET /api/admin/queue
check "the admin's queue says each job's language" \
    '[ "$(field "[.queue[] | select(.id == $TT1 or .id == $TC1) | .language] | join(\",\")")" = "triton,cuda" ]'

worker "$WT" POST /api/judge/register '{"hostname":"t","can_execute":true,"languages":"cuda"}'
check "register: languages that are not an array is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = languages ]'
worker "$WT" POST /api/judge/register '{"hostname":"t","can_execute":true,"languages":[]}'
check "register: no language at all is 400" '[ "$STATUS" = 400 ] && [[ "$(field .error.message)" == *"at least one language"* ]]'
worker "$WT" POST /api/judge/register '{"hostname":"t","can_execute":true,"languages":[{"name":"cuda"},{"name":"cuda"}]}'
check "register: a language twice is 400 naming the entry" \
    '[ "$STATUS" = 400 ] && [ "$(errfield)" = "languages[1].name" ] && [[ "$(field .error.message)" == "languages[1].name: \"cuda\" is listed twice" ]]'
worker "$WT" POST /api/judge/register '{"hostname":"t","can_execute":true,"languages":[{"name":"cuda","version":3}]}'
check "register: a version that is not a string is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = "languages[0].version" ]'
worker "$WC" POST /api/judge/register '{"hostname":"c","can_execute":true,"gpu":{"name":"NVIDIA H200"},"languages":[{"name":"cuda","version":"13.0"}]}'
check "a CUDA-only worker registers; the server says what it will be offered" \
    '[ "$STATUS" = 200 ] && [ "$(field ".languages | join(\",\")")" = cuda ]'
worker "$WC" POST /api/judge/claim '{"wait":1}'
check "it claims the oldest CUDA job, which says its language" \
    '[ "$(field .submission)" = "$TC0" ] && [ "$(field .language)" = cuda ]'
worker "$WC" POST "/api/judge/leases/$(field .lease)/result" "$RESULT"
ACB='{"result":{"verdict":"AC","executed":true,"score":%s,"gpu":{"name":"NVIDIA H200"},"tests":[{"name":"N=1","verdict":"AC"}],"benches":[{"name":"2^24","median_ms":%s}]}}'
worker "$WC" POST /api/judge/claim '{"wait":1}'
check "then the next CUDA job, past the older Triton one" '[ "$(field .submission)" = "$TC1" ]'
# (results are posted at once: the lease is 3 s)
# shellcheck disable=SC2059
worker "$WC" POST "/api/judge/leases/$(field .lease)/result" "$(printf "$ACB" 90 0.05)"
worker "$WC" POST /api/judge/claim '{"wait":1}'
check "and never the Triton job: nothing more for it" '[ "$STATUS" = 204 ]'
as tina GET "/api/submissions/$TT1"
check "the Triton job still waits, untouched" '[ "$(field .state)" = queued ] && [ "$(field .attempts)" = 0 ]'
worker "$WT" POST /api/judge/register '{"hostname":"t","can_execute":true,"gpu":{"name":"NVIDIA H200"},"languages":[{"name":"cuda","version":"13.0"},{"name":"triton","version":"3.6.0"},{"name":"hip","version":"6.4"}]}'
check "a worker registers Triton (and a language the server does not know, ignored)" \
    '[ "$STATUS" = 200 ] && [ "$(field ".languages | join(\",\")")" = cuda,triton ] && grep -q "worker triton36 registered language \"hip\", which this server does not know; ignored" "$T/server.log"'
as tina GET /api/status
check "/api/status: now a worker compiles Triton (with its version)" \
    '[ "$(field .workers.languages.triton.alive)" = 1 ] && [ "$(field .workers.languages.triton.gpu)" = 1 ] && [ "$(field ".workers.languages.triton.versions | join(\",\")")" = 3.6.0 ] && [ "$(field .workers.languages.cuda.alive)" -ge 1 ]'
as tina GET /api/me
check "and the Triton job counts in flight again (the CUDA ones are judged)" \
    '[ "$(field .quota.in_flight.used)" = 1 ] && [ "$(field .quota.in_flight.waiting_for_language)" = 0 ]'
worker "$WT" POST /api/judge/claim '{"wait":1}'
check "the Triton worker gets the Triton job, with its language and source" \
    '[ "$(field .submission)" = "$TT1" ] && [ "$(field .language)" = triton ] && [[ "$(field .source)" == *"tl.store"* ]]'
# shellcheck disable=SC2059
worker "$WT" POST "/api/judge/leases/$(field .lease)/result" "$(printf "$ACB" 80 0.06)"
check "its result is stored" '[ "$STATUS" = 200 ] && [ "$(field .duplicate)" = false ]'
as admin GET /api/admin/workers
check "the admin sees each worker's languages and versions" \
    '[ "$(field "[.workers[] | select(.name == \"cuda13\" or .name == \"triton36\") | .name + \"=\" + ([.languages[] | .name + \" \" + .version] | join(\"/\"))] | join(\",\")")" = "cuda13=cuda 13.0,triton36=cuda 13.0/triton 3.6.0" ]'
req GET /api/problems/vector-triton/leaderboard
check "the leaderboard ranks per GPU model and language: two boards" \
    '[ "$(field "[.boards[] | .gpu + \"/\" + .language + \"/\" + .entries[0].user] | join(\",\")")" = "NVIDIA H200/cuda/tina,NVIDIA H200/triton/tina" ] && [ "$(field .language)" = null ]'
req GET '/api/problems/vector-triton/leaderboard?language=triton'
check "?language=triton keeps the Triton board only" \
    '[ "$(field ".boards | length")" = 1 ] && [ "$(field .boards[0].language)" = triton ] && [ "$(field .boards[0].entries[0].submission)" = "$TT1" ] && [ "$(field .language)" = triton ]'
req GET '/api/problems/vector-triton/leaderboard?language=go'
check "an unknown ?language= is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = language ]'
as tina GET '/api/submissions?language=triton'
check "the list filters by language, and every row carries it" \
    '[ "$(field "[.submissions[] | .language] | join(\",\")")" = triton ] && as tina GET /api/submissions && [ "$(field "[.submissions[] | .language] | join(\",\")")" = "cuda,triton,cuda" ]'
as tina GET '/api/submissions?language=CUDA'
check "an unknown ?language= in the list is 400 naming it" '[ "$STATUS" = 400 ] && [ "$(errfield)" = language ]'
as tina GET /api/me/scores
check "my scores: solved in both languages, a best per GPU model and language" \
    '[ "$(field ".problems[\"vector-triton\"].languages | keys | join(\",\")")" = cuda,triton ] && [ "$(field "[.problems[\"vector-triton\"].best[] | .language] | sort | join(\",\")")" = cuda,triton ]'
as ivan GET /api/gradebook.csv
check "the gradebook has a row per language, the language last" \
    '[[ "$BODY" == "user,problem,solved,best_score,best_time_ms,when,language"* ]] && grep -q "^tina,vector-triton,yes,90.00,0.05,[0-9TZ:-]*,cuda" <<<"$BODY" && grep -q "^tina,vector-triton,yes,80.00,0.06,[0-9TZ:-]*,triton" <<<"$BODY"'
as admin POST "/api/admin/workers/$W1ID/enabled" '{"enabled":true}'
as admin POST "/api/admin/workers/$W2ID/enabled" '{"enabled":true}'

# --- sign-out ------------------------------------------------------------------------
as alice POST /api/auth/signout ''
check "sign-out answers 204" '[ "$STATUS" = 204 ]'
req GET /api/me "" -b "$T/alice.jar"
check "and the session is gone" '[ "$STATUS" = 401 ]'

check "the server survived everything" 'kill -0 "$SERVER_PID" 2>/dev/null'
grep -E ' -> 5[0-9][0-9] ' "$T/server.log" >"$T/5xx"
check "no request was answered 5xx" '[ ! -s "$T/5xx" ]'

# --- sign-in throttling (issue 12, item 4) -------------------------------------
# The same database, restarted with small limits and curl as the trusted proxy.
stop_server TERM
throttle_conf() { # throttle_conf FILE KEY=VALUE...: the test config with these signin_* keys
    local f=$1
    shift
    grep -v -E '^(signin_|trusted_proxies)' "$T/server.conf" >"$f"
    printf '%s\n' "$@" | sed 's/=/ = /' >>"$f"
}
throttle_conf "$T/throttle.conf" signin_account_failures=3 signin_address_failures=6 \
    signin_lockout=2 signin_window=8 trusted_proxies=127.0.0.1
CONF=$T/throttle.conf
start_server || finish
for _ in 1 2 3; do signin bob wrong-password -H "X-Forwarded-For: 198.51.100.1"; done
check "three wrong passwords for one name are three 401s" '[ "$STATUS" = 401 ]'
signin bob password-bob -H "X-Forwarded-For: 198.51.100.2"
check "then the name is locked out, even with the right password, from anywhere: 429 with Retry-After" \
    '[ "$STATUS" = 429 ] && [ "$(err)" = throttled ] && grep -qi "^Retry-After: 2" <<<"$HDRS" && [[ "$(field .error.message)" == *"for this user name"* ]]'
for _ in 1 2 3; do signin ghost wrong-password -H "X-Forwarded-For: 198.51.100.3"; done
signin ghost wrong-password -H "X-Forwarded-For: 198.51.100.3"
check "a name that is no account is locked out the same way (a 429 tells nothing)" \
    '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"for this user name"* ]]'
signin alice password-alice -H "X-Forwarded-For: 198.51.100.1"
check "another name from the same address still signs in" '[ "$STATUS" = 200 ]'
for n in carl dave erin; do signin "$n" wrong-password -H "X-Forwarded-For: 198.51.100.1"; done
signin alice password-alice -H "X-Forwarded-For: 198.51.100.1"
check "six failures from one address lock the address out, whatever the name" \
    '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"from this address"* ]] && grep -qi "^Retry-After: [12]" <<<"$HDRS"'
signin alice password-alice -H "X-Forwarded-For: 6.6.6.6, 198.51.100.1"
check "what a client put before the proxy's X-Forwarded-For entry is ignored" '[ "$STATUS" = 429 ]'
signin alice password-alice -H "X-Forwarded-For: 198.51.100.9"
check "another client behind the trusted proxy is not locked out" '[ "$STATUS" = 200 ]'
sleep 2.2
signin bob password-bob -H "X-Forwarded-For: 198.51.100.4"
check "after the lockout the right password signs in" '[ "$STATUS" = 200 ]'
signin ghost wrong-password -H "X-Forwarded-For: 198.51.100.5"
signin ghost wrong-password -H "X-Forwarded-For: 198.51.100.5"
check "each further failure doubles the lockout" '[ "$STATUS" = 429 ] && grep -qi "^Retry-After: [34]" <<<"$HDRS"'
burst=()
for i in $(seq 8); do
    curl -s -m 10 -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
        -H "X-Forwarded-For: 203.0.113.$i" -d '{"name":"frank","password":"wrong-password"}' \
        "$BASE/api/auth/signin" >"$T/burst.$i" &
    burst+=($!)
done
wait "${burst[@]}"
cat "$T"/burst.* >"$T/burst"
check "8 parallel guesses at one name: at most 3 are checked, the rest 429" \
    '[ "$(grep -c 401 "$T/burst")" -le 3 ] && [ "$(grep -c 401 "$T/burst")" -ge 1 ] && [ "$(grep -c 429 "$T/burst")" -ge 5 ]'
req GET /metrics
check "metrics count failed and refused sign-ins" \
    '[ "$(grep -oP "blockwise_signin_throttled_total \K[0-9]+" <<<"$BODY")" -ge 5 ] && [ "$(grep -oP "blockwise_signin_failures_total \K[0-9]+" <<<"$BODY")" -ge 10 ]'
check "a lockout is logged with the name or the address" \
    'grep -q "warn: auth: failed sign-ins as bob: locked out for 2 s" "$T/server.log" && grep -q "warn: auth: failed sign-ins from 198.51.100.1: locked out for 2 s" "$T/server.log"'

# Without trusted_proxies, X-Forwarded-For is nobody's word: the connection's address counts.
stop_server TERM
throttle_conf "$T/throttle2.conf" signin_account_failures=3 signin_address_failures=4 \
    signin_lockout=30 signin_window=60
CONF=$T/throttle2.conf
start_server || finish
for i in 1 2 3 4; do signin "nobody$i" wrong-password -H "X-Forwarded-For: 192.0.2.$i"; done
signin alice password-alice -H "X-Forwarded-For: 192.0.2.99"
check "without trusted_proxies a forged X-Forwarded-For does not escape the address lockout" \
    '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"from this address"* ]]'

# Uniform timing: an unknown name costs the same argon2id work as a wrong password
# (the dummy hash was fixed at 64 MiB and two passes, about 8 times this config's cost).
stop_server TERM
throttle_conf "$T/throttle3.conf" signin_account_failures=0 signin_address_failures=0
CONF=$T/throttle3.conf
start_server || finish
# 15 interleaved pairs: a median that a burst of load on a 2-core CI machine does not move.
for i in $(seq 15); do
    curl -s -m 30 -o /dev/null -w 'known %{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
        -d '{"name":"alice","password":"wrong-password"}' "$BASE/api/auth/signin"
    curl -s -m 30 -o /dev/null -w 'unknown %{http_code} %{time_total}\n' -H 'Content-Type: application/json' \
        -d "{\"name\":\"nobody-$i\",\"password\":\"wrong-password\"}" "$BASE/api/auth/signin"
done >"$T/timing"
median() { grep "^$1 " "$T/timing" | cut -d' ' -f3 | sort -n | sed -n 8p; }
known=$(median known)
unknown=$(median unknown)
check "an unknown name's 401 takes as long as a wrong password's (medians $unknown s, $known s)" \
    'awk -v u="$unknown" -v k="$known" "BEGIN { exit !(u < 2 * k && k < 2 * u) }"'
check "signin_*_failures = 0 switch throttling off (30 failures, all 401)" \
    '[ "$(grep -c " 401 " "$T/timing")" = 30 ]'

# --- deploy/nginx.conf in front, for real (when nginx is installed) -----------
NGINX_PID=
if command -v nginx >/dev/null && command -v openssl >/dev/null; then
    stop_server TERM
    throttle_conf "$T/nginx.conf" signin_account_failures=5 signin_address_failures=1 \
        signin_lockout=30 signin_window=60 trusted_proxies=127.0.0.1
    CONF=$T/nginx.conf
    start_server || finish
    N=$T/nginx
    NGX=$((PORT + 2))
    mkdir -p "$N/logs" "$N/tmp"
    openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
        -keyout "$N/key.pem" -out "$N/cert.pem" >/dev/null 2>&1
    sed -e "s|127.0.0.1:8080|127.0.0.1:$PORT|" -e '/listen \[::\]/d' \
        -e "s|listen 80;|listen 127.0.0.1:$((PORT + 3));|" \
        -e "s|listen 443 ssl http2;|listen 127.0.0.1:$NGX ssl http2;|" \
        -e "s|/etc/letsencrypt/live/judge.example.edu/fullchain.pem|$N/cert.pem|" \
        -e "s|/etc/letsencrypt/live/judge.example.edu/privkey.pem|$N/key.pem|" \
        deploy/nginx.conf >"$N/site.conf"
    {
        [ "$(id -u)" = 0 ] && echo "user root;"
        echo "worker_processes 1;"
        echo "pid $N/nginx.pid;"
        echo "events { worker_connections 128; }"
        echo "http {"
        echo "    access_log $N/logs/access.log;"
        for k in client_body proxy fastcgi uwsgi scgi; do echo "    ${k}_temp_path $N/tmp/$k;"; done
        echo "    include $N/site.conf;"
        echo "}"
    } >"$N/main.conf"
    nginx -t -p "$N" -e "$N/logs/error.log" -c "$N/main.conf" >"$N/t.log" 2>&1
    check "deploy/nginx.conf passes nginx -t" 'grep -q "test is successful" "$N/t.log"'
    nginx -p "$N" -e "$N/logs/error.log" -c "$N/main.conf" -g 'daemon off;' >>"$N/t.log" 2>&1 &
    NGINX_PID=$!
    for _ in $(seq 50); do
        curl -sk -m 5 -o /dev/null "https://127.0.0.1:$NGX/api/health" && break
        sleep 0.1
    done
    ngx() { # ngx SOURCE-ADDRESS NAME PASSWORD CURL-ARGS...: a sign-in through nginx
        local src=$1 name=$2 pw=$3
        shift 3
        STATUS=$(curl -sk -m 30 --interface "$src" -o "$T/body" -D "$T/hdrs" -w '%{http_code}' \
            -H 'Content-Type: application/json' -d "{\"name\":\"$name\",\"password\":\"$pw\"}" \
            "$@" "https://127.0.0.1:$NGX/api/auth/signin")
        BODY=$(cat "$T/body")
        HDRS=$(cat "$T/hdrs")
    }
    ngx 127.0.0.2 alice wrong-password -H "X-Forwarded-For: 6.6.6.6"
    ngx 127.0.0.2 alice password-alice
    check "through nginx the server throttles the real client (127.0.0.2), not the proxy nor a forged address" \
        '[ "$STATUS" = 429 ] && [[ "$(field .error.message)" == *"from this address; try again in"* ]]'
    ngx 127.0.0.3 alice password-alice -H "X-Forwarded-For: 127.0.0.2"
    check "while another client behind nginx signs in" '[ "$STATUS" = 200 ]'
    # 60 right passwords from one address, one after another (in parallel the
    # server's own rule would refuse some: attempts in flight from an address
    # may not outnumber its failures left): the first 41 (one, and a burst of
    # 40) pass, then about one per 3 s.
    for i in $(seq 60); do
        curl -sk -m 30 --interface 127.0.0.4 -o "$T/nb.$i" -D "$T/nh.$i" \
            -H 'Content-Type: application/json' -d '{"name":"alice","password":"password-alice"}' \
            "https://127.0.0.1:$NGX/api/auth/signin"
    done
    ok200=$(grep -l '^HTTP/[0-9.]* 200' "$T"/nh.* | wc -l)
    no429=$(grep -l '^HTTP/[0-9.]* 429' "$T"/nh.* | wc -l)
    good429=0
    for h in $(grep -l '^HTTP/[0-9.]* 429' "$T"/nh.*); do
        b=${h/nh./nb.}
        grep -qi '^Retry-After: [0-9]' "$h" && [ "$(jq -r .error.code "$b" 2>/dev/null)" = throttled ] &&
            good429=$((good429 + 1))
    done
    check "nginx's limit_req lets a burst of 40 through, then answers 429 throttled with Retry-After ($ok200 passed, $no429 refused)" \
        '[ "$ok200" -ge 40 ] && [ "$no429" -ge 5 ] && [ "$good429" = "$no429" ] && [ $((ok200 + no429)) = 60 ]'
    kill "$NGINX_PID" 2>/dev/null
    wait "$NGINX_PID" 2>/dev/null
    NGINX_PID=
else
    skip=$((skip + 1))
    echo "skip - deploy/nginx.conf through nginx (nginx or openssl not installed)"
fi
stop_server TERM

# --- scripts/serve.sh (make run): the banner names the password file (item 8) ---
SB=$T/servebin
mkdir -p "$SB"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$SB/blockwise-server"
printf '#!/bin/sh\nexec sleep 60\n' >"$SB/judged"
chmod +x "$SB/judged"
SPORT=$((PORT + 4))
serve_once() { # serve_once OUT: runs scripts/serve.sh until its banner, signs in as admin, stops it
    BW_SERVE_STATE=$T/serve BW_SERVE_BIN=$SB scripts/serve.sh "$SPORT" >"$1" 2>&1 &
    local pid=$!
    for _ in $(seq 150); do
        grep -q "Blockwise is at" "$1" && break
        sleep 0.1
    done
    SERVE_STATUS=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
        -d "{\"name\":\"admin\",\"password\":\"$(cat "$T/serve/admin.password" 2>/dev/null)\"}" \
        "http://127.0.0.1:$SPORT/api/auth/signin")
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
serve_once "$T/serve1.out"
check "serve.sh: the first run prints the password once and the banner names its file" \
    '[ "$(grep -c "admin password:" "$T/serve1.out")" = 1 ] && grep -q "sign in as admin with the password in $T/serve/admin.password" "$T/serve1.out" && ! grep -q "(admin: admin)" "$T/serve1.out"'
check "serve.sh: and that password signs in as admin" '[ "$SERVE_STATUS" = 200 ]'
serve_once "$T/serve2.out"
check "serve.sh: a later run prints no password, names the file again, which still signs in" \
    '! grep -q "admin password:" "$T/serve2.out" && grep -q "the password in $T/serve/admin.password" "$T/serve2.out" && [ "$SERVE_STATUS" = 200 ]'
rm -f "$T/serve/blockwise.db"*
serve_once "$T/serve3.out"
check "serve.sh: a new database gets the admin again, with the file's password" '[ "$SERVE_STATUS" = 200 ]'
finish
