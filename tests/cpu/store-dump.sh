#!/usr/bin/env bash
# store-dump.sh - blockwise-server export and import: a deployment moves from
# its SQLite file to PostgreSQL and back with nothing lost (docs/operations.md).
#
#   tests/cpu/store-dump.sh BUILD_DIR
#
# A server on SQLite gets users, a worker, submissions judged (Accepted with
# timings, a Compile Error, a Profile with its profile), one queued, events,
# tokens; its database is exported, imported into a new PostgreSQL database, exported again: the two
# files hold the same rows. A server started on the PostgreSQL copy answers
# the same lists, scores, leaderboard and Profile, and new rows get new ids; the
# PostgreSQL database is exported and imported into a new SQLite file, which
# exports the same rows again. Import refuses a database that is not empty.
# Skipped, saying why, without PostgreSQL.
set -u
build=${1:-build}
bin=$build/bin/blockwise-server
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() {
    local name=$1
    shift
    if eval "$@"; then ok "$name"; else bad "$name (${STATUS:-} ${BODY:0:200})"; fi
}
for tool in curl jq psql; do
    command -v $tool >/dev/null || { echo "skipped: $tool is not installed"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done

T=$(mktemp -d /tmp/bw-dump-test.XXXXXX)
. tests/lib/postgres.sh
if ! pg_test_database bw_dump; then
    echo "skipped: PostgreSQL: $PG_WHY"
    echo "0 passed, 0 failed, 1 skipped"
    rm -rf "$T"
    exit 0
fi
PG=$PG_DB
PORT=$((20000 + RANDOM % 12000))
BASE=http://127.0.0.1:$PORT
SERVER=
finish() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    [ "$fail" -ne 0 ] && tail -20 "$T/server.log"
    true
    rm -rf "$T"
    pg_test_cleanup
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
conf() { # conf DATABASE
    cat >"$T/server.conf" <<EOF
port = $PORT
database = "$1"
problems = tests/fixtures/problems
web = ""
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_in_flight = 10
lease = 30
EOF
}
start() {
    "$bin" -c "$T/server.conf" >>"$T/server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 100); do curl -s "$BASE/api/health" >/dev/null && return 0; sleep 0.05; done
    return 1
}
stop() { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; SERVER=; }
req() { # req METHOD PATH [BODY] [CURL ARGS...]
    local method=$1 path=$2 body=${3-}
    shift 3 2>/dev/null || shift $#
    local args=(-s -m 20 -o "$T/body" -w '%{http_code}' -X "$method")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    STATUS=$(curl "${args[@]}" "$@" "$BASE$path")
    BODY=$(cat "$T/body")
}
as() { local who=$1; shift; req "$1" "$2" "${3-}" -b "$T/$who.jar" -H "X-CSRF-Token: $(cat "$T/$who.csrf")"; }
worker() { req "$1" "$2" "${3-}" -H "Authorization: Bearer $(cat "$T/w.token")"; }
signup() {
    req POST /api/auth/signup "{\"name\":\"$1\",\"password\":\"password-$1\"}" -c "$T/$1.jar"
    jq -r .csrf <<<"$BODY" >"$T/$1.csrf"
}
rows_of() { tail -n +2 "$1"; } # the rows, without the header naming the backend

# --- a SQLite deployment with some history ------------------------------------------
conf "$T/blockwise.db"
echo 'admin-password' >"$T/admin.pw"
"$bin" -c "$T/server.conf" create-admin admin --password-file "$T/admin.pw" >/dev/null
"$bin" -c "$T/server.conf" create-worker gpu0 --token-file "$T/w.token" >/dev/null
start || { bad "the server starts on SQLite"; finish; }
signup alice
signup bob
req POST /api/auth/signin '{"name":"admin","password":"admin-password"}' -c "$T/admin.jar"
jq -r .csrf <<<"$BODY" >"$T/admin.csrf"
req POST /api/auth/signin '{"name":"bob","password":"wrong-password"}'
as alice POST /api/tokens '{"name":"laptop"}'
SRC='// @launch vector_add grid=(cdiv(n, 256)) block=(256) args=(x, y, out, n)\nextern \"C\" __global__ void vector_add() {}'
for who in alice alice bob bob; do
    as "$who" POST /api/submissions "{\"problem\":\"vector-add\",\"mode\":\"submit\",\"source\":\"$SRC\"}"
done
worker POST /api/judge/register '{"hostname":"node","version":"1","can_execute":true,"gpu":{"name":"NVIDIA H200"}}'
AC='{"result":{"verdict":"AC","executed":true,"score":%s,"gpu":{"name":"NVIDIA H200"},"tests":[{"name":"N=1","verdict":"AC","ms":0.25}],"benches":[{"name":"2^24","samples":50,"median_ms":%s,"min_ms":0.049,"max_ms":0.06,"gbps":4000,"tflops":0.3,"sol_pct":88.5,"clock_mhz":1980}]}}'
for r in "$(printf "$AC" 88.5 0.05)" "$(printf "$AC" 61.25 0.0712)" \
    '{"result":{"verdict":"CE","message":"line 2: expected a ;","executed":true,"tests":[],"benches":[],"score":0}}'; do
    worker POST /api/judge/claim '{"wait":1}'
    L=$(jq -r .lease <<<"$BODY")
    worker POST "/api/judge/leases/$L/progress" '{"events":[{"event":"compiling"},{"event":"test","index":0}]}'
    worker POST "/api/judge/leases/$L/result" "$r"
done
check "the SQLite deployment has judged three submissions and queued one" \
    '[ "$(curl -s -b "$T/admin.jar" "$BASE/api/admin/queue" | jq ".queue | length")" = 1 ]'
# A Profile with its profile (schema migration 9: a column of its own), judged; the
# Submit still queued, claimed first (its turn comes first), is given back after.
as alice POST /api/submissions '{"problem":"vector-add","mode":"profile","source":"// p"}'
PF=$(jq -r .id <<<"$BODY")
HELD=
for _ in 1 2; do
    worker POST /api/judge/claim '{"wait":1}'
    L=$(jq -r .lease <<<"$BODY")
    if [ "$(jq -r .submission <<<"$BODY")" != "$PF" ]; then
        HELD=$L
        continue
    fi
    worker POST "/api/judge/leases/$L/result" \
        "{\"result\":{\"verdict\":\"AC\",\"executed\":true,\"tests\":[],\"profile\":$(jq -c . tests/fixtures/profile/profile.json)}}"
    break
done
[ -n "$HELD" ] && worker POST "/api/judge/leases/$HELD/release" ''
as alice GET "/api/submissions/$PF/profile"
jq -S . <<<"$BODY" >"$T/profile-sqlite.json"
check "a Profile judged on SQLite, its profile served" '[ "$STATUS" = 200 ] && [ "$(jq -r .profile.kernels[0].kernel "$T/profile-sqlite.json")" = vector_add ]'
as admin GET "/api/submissions?user=*&limit=50"
jq -S 'del(.submissions[].position)' <<<"$BODY" >"$T/list-sqlite.json"
as alice GET /api/me/scores
jq -S . <<<"$BODY" >"$T/scores-sqlite.json"
req GET /api/problems/vector-add/leaderboard
jq -S . <<<"$BODY" >"$T/board-sqlite.json"
stop

# --- SQLite -> PostgreSQL ------------------------------------------------------------
"$bin" -c "$T/server.conf" export "$T/a.jsonl" 2>"$T/cli.log"
check "export writes every table, with a header and an end line" \
    '[ "$(head -n 1 "$T/a.jsonl" | jq -r .backend)" = sqlite ] && [ "$(grep -c "^{\"table\"" "$T/a.jsonl")" = 17 ] && tail -n 1 "$T/a.jsonl" | jq -e ".end" >/dev/null && grep -q "exported" "$T/cli.log"'
"$bin" -c "$T/server.conf" export "$T/a.jsonl" 2>/dev/null
rc=$?
check "export does not overwrite a file" '[ $rc -ne 0 ]'
conf "$PG"
"$bin" -c "$T/server.conf" import "$T/a.jsonl" 2>"$T/cli.log"
rc=$?
check "import into a new PostgreSQL database" '[ $rc -eq 0 ] && grep -q "imported" "$T/cli.log"'
"$bin" -c "$T/server.conf" export "$T/b.jsonl" 2>/dev/null
check "PostgreSQL exports the same rows as SQLite did" \
    '[ "$(head -n 1 "$T/b.jsonl" | jq -r .backend)" = postgresql ] && diff <(rows_of "$T/a.jsonl") <(rows_of "$T/b.jsonl") >"$T/diff" && [ "$(wc -l <"$T/a.jsonl")" -gt 40 ]'
[ -s "$T/diff" ] && head -20 "$T/diff"
"$bin" -c "$T/server.conf" import "$T/a.jsonl" 2>"$T/cli.log"
rc=$?
check "import refuses a database that is not empty" \
    '[ $rc -ne 0 ] && grep -q "not empty" "$T/cli.log"'
start || { bad "the server starts on the PostgreSQL copy"; finish; }
as admin GET "/api/submissions?user=*&limit=50"
check "the same submissions, read through a server on PostgreSQL (the same session cookie)" \
    '[ "$STATUS" = 200 ] && diff <(jq -S "del(.submissions[].position)" <<<"$BODY") "$T/list-sqlite.json" >/dev/null'
as alice GET /api/me/scores
check "the same scores" 'diff <(jq -S . <<<"$BODY") "$T/scores-sqlite.json" >/dev/null'
req GET /api/problems/vector-add/leaderboard
check "the same leaderboard" 'diff <(jq -S . <<<"$BODY") "$T/board-sqlite.json" >/dev/null'
as alice GET "/api/submissions/$PF/profile"
check "the same Profile, its mode and its profile" \
    '[ "$STATUS" = 200 ] && diff <(jq -S . <<<"$BODY") "$T/profile-sqlite.json" >/dev/null'
last=$(jq '[.submissions[].id] | max' "$T/list-sqlite.json")
as bob POST /api/submissions "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"$SRC\"}"
check "a new submission gets a new id (the identity moved past the imported ones)" \
    '[ "$STATUS" = 201 ] && [ "$(jq .id <<<"$BODY")" -gt "$last" ]'
worker POST /api/judge/claim '{"wait":1}'
check "the worker's token still works, and the queued submission is claimed first" \
    '[ "$STATUS" = 200 ] && [ "$(jq .submission <<<"$BODY")" = "$(jq "[.submissions[] | select(.state == \"queued\") | .id] | min" "$T/list-sqlite.json")" ]'
stop

# --- PostgreSQL -> SQLite --------------------------------------------------------------
"$bin" -c "$T/server.conf" export "$T/c.jsonl" 2>/dev/null
conf "$T/back.db"
"$bin" -c "$T/server.conf" import "$T/c.jsonl" 2>"$T/cli.log"
rc=$?
check "and back: PostgreSQL's export imports into a new SQLite file" '[ $rc -eq 0 ]'
"$bin" -c "$T/server.conf" export "$T/d.jsonl" 2>/dev/null
check "which exports the same rows" 'diff <(rows_of "$T/c.jsonl") <(rows_of "$T/d.jsonl") >/dev/null'
start || { bad "the server starts on the SQLite copy"; finish; }
req POST /api/auth/signin '{"name":"alice","password":"password-alice"}'
check "alice signs in on it" '[ "$STATUS" = 200 ]'
stop
finish
