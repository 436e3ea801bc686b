#!/usr/bin/env bash
# scale.sh - several blockwise-servers on one PostgreSQL (issue 30), on
# loopback: two servers, three compile-only judged workers (two on server A,
# one on B), and 1,000 Runs from 100 learners spread over both servers
# (tests/cpu/scale.py); server A is killed with SIGKILL a third of the way
# into the burst and started again. Then:
#   - every post made one submission (a post whose answer the kill cut is
#     sent again with its Idempotency-Key), which reached a final state,
#     once: one lease ended 'done' for each, no active lease left, one
#     stored result;
#   - every learner's event stream, on the other server than its post, saw
#     its verdict ("done"), reconnecting with Last-Event-ID across servers
#     when A died;
#   - no submission was judged twice (leases done = submissions), none was
#     lost, and the claims were shared by the workers of both servers.
# Bounded: 100 learners x 10 Runs, loopback only, a deadline of its own.
# Skipped, saying why, without PostgreSQL or python3.
#
#   tests/cpu/scale.sh BUILD_DIR   (LEARNERS=N PER_LEARNER=M for a smaller run)
set -u
build=${1:-build}
server_bin=$build/bin/blockwise-server
judged_bin=$build/bin/judged
LEARNERS=${LEARNERS:-100}
PER_LEARNER=${PER_LEARNER:-10}
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() {
    local name=$1
    shift
    if eval "$@"; then ok "$name"; else bad "$name (${GOT:-})"; fi
}
for tool in curl jq psql python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool is not installed"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done

T=$(mktemp -d /tmp/bw-scale-test.XXXXXX)
. tests/lib/postgres.sh
if ! pg_test_database bw_scale; then
    echo "skipped: PostgreSQL: $PG_WHY"
    echo "0 passed, 0 failed, 1 skipped"
    rm -rf "$T"
    exit 0
fi
DB=$PG_DB
PA=$((20000 + RANDOM % 6000))
PB=$((PA + 6000))
sql() { psql -X -q -t -A "$DB" -c "$1"; }
conf() { # conf PORT FILE
    cat >"$2" <<EOF
port = $1
database = "$DB"
problems = tests/fixtures/problems
web = ""
threads = 4
pwhash_ops = 1
pwhash_mem_kib = 8192
signup_address_limit = 0
connections_per_address = 0
quota_run = 100000
quota_in_flight = 50
lease = 6
claim_wait = 2
sse_heartbeat = 5
log_level = warn
EOF
}
conf "$PA" "$T/a.conf"
conf "$PB" "$T/b.conf"
for w in 1 2 3; do
    "$server_bin" -c "$T/a.conf" create-worker "w$w" --token-file "$T/w$w.token" >/dev/null
done

start() { # start NAME: server NAME (a or b), its pid in T/NAME.pid
    "$server_bin" -c "$T/$1.conf" >>"$T/$1.log" 2>&1 &
    echo $! >"$T/$1.pid"
    local port
    port=$([ "$1" = a ] && echo "$PA" || echo "$PB")
    for _ in $(seq 200); do curl -s "http://127.0.0.1:$port/api/health" >/dev/null && return 0; sleep 0.05; done
    return 1
}
cat >"$T/restart-a.sh" <<EOF
cd "$PWD"
"$server_bin" -c "$T/a.conf" >>"$T/a.log" 2>&1 &
echo \$! >"$T/a.pid"
for _ in \$(seq 200); do curl -s "http://127.0.0.1:$PA/api/health" >/dev/null && exit 0; sleep 0.05; done
exit 1
EOF
JUDGED=()
finish() {
    for p in "${JUDGED[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for s in a b; do [ -f "$T/$s.pid" ] && kill "$(cat "$T/$s.pid")" 2>/dev/null; done
    wait 2>/dev/null
    if [ "$fail" -ne 0 ]; then
        echo "--- server A"; tail -20 "$T/a.log"
        echo "--- server B"; tail -20 "$T/b.log"
        echo "--- a worker"; tail -10 "$T/judged1.log"
    fi
    rm -rf "$T"
    pg_test_cleanup
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
trap 'finish' INT TERM

started=$SECONDS
start a && start b || { bad "two servers start on one PostgreSQL"; finish; }
ok "two servers start on one PostgreSQL database"
for w in 1 2 3; do
    port=$([ "$w" = 2 ] && echo "$PB" || echo "$PA")
    "$judged_bin" --server "http://127.0.0.1:$port" --token-file "$T/w$w.token" --gpu 0 \
        --cache "$T/cache$w" >>"$T/judged$w.log" 2>&1 &
    JUDGED+=($!)
done

python3 tests/cpu/scale.py "http://127.0.0.1:$PA" "http://127.0.0.1:$PB" "$T/a.pid" \
    "$T/restart-a.sh" "$LEARNERS" "$PER_LEARNER" "$T/out.json" >"$T/driver.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { bad "the learners' driver ran (exit $rc)"; tail -20 "$T/driver.log"; finish; }
want=$((LEARNERS * PER_LEARNER))
posted=$(jq '.posted | length' "$T/out.json")
uniq=$(jq '.posted | unique | length' "$T/out.json")
echo "driver: $(jq -c '{signed_up, post_seconds, seconds, killed_at, restarted_at, reconnects, post_retries, post_failures}' "$T/out.json")"
GOT="$posted answered (201, or 200 for a post sent again), $uniq distinct"
check "$want Runs from $LEARNERS learners answered by one server or the other, each id once" \
    '[ "$posted" = "$want" ] && [ "$uniq" = "$want" ]'
GOT=$(jq -c '{killed_at, restarted_at}' "$T/out.json")
check "server A was killed with SIGKILL mid-burst and started again" \
    '[ "$(jq ".killed_at != null and .restarted_at != null" "$T/out.json")" = true ]'

# Wait (bounded) until nothing is queued or being judged.
for _ in $(seq 240); do
    left=$(sql "SELECT COUNT(*) FROM submissions WHERE state <> 'done'")
    [ "$left" = 0 ] && break
    sleep 0.5
done
total=$(sql "SELECT COUNT(*) FROM submissions")
GOT="$total in the database, $left not done"
check "every submission in the database reached a final state, and there are $want (a post sent again after the kill kept its Idempotency-Key: no second)" \
    '[ "$left" = 0 ] && [ "$total" = "$want" ]'
jq -r '.posted[]' "$T/out.json" | sort >"$T/ids"
missing=$(sql "SELECT id FROM submissions" | sort | comm -13 - "$T/ids" | wc -l)
GOT="$missing answered ids not in the database"
check "none was lost: every 201's id is in the database" '[ "$missing" = 0 ]'
bad_final=$(sql "SELECT COUNT(*) FROM submissions WHERE state = 'done' AND (verdict IS NULL OR verdict <> 'CE')")
GOT="$bad_final without their Compile Error"
check "each got its verdict (Compile Error, from the compile-only workers)" '[ "$bad_final" = 0 ]'
twice=$(sql "SELECT COUNT(*) FROM (SELECT submission_id FROM leases WHERE state = 'done' GROUP BY submission_id HAVING COUNT(*) <> 1) x")
unjudged=$(sql "SELECT COUNT(*) FROM submissions s WHERE NOT EXISTS (SELECT 1 FROM leases l WHERE l.submission_id = s.id AND l.state = 'done')")
active=$(sql "SELECT COUNT(*) FROM leases WHERE state = 'active'")
GOT="$twice with other than one done lease, $unjudged with none, $active leases still active"
check "exactly once: one lease ended 'done' for each submission, none active" \
    '[ "$twice" = 0 ] && [ "$unjudged" = 0 ] && [ "$active" = 0 ]'
by_worker=$(sql "SELECT worker_id || ':' || COUNT(*) FROM leases WHERE state = 'done' GROUP BY worker_id ORDER BY worker_id" | tr '\n' ' ')
GOT="done leases by worker: $by_worker"
check "the workers of both servers claimed (SKIP LOCKED shares the queue): $by_worker" \
    '[ "$(wc -w <<<"$by_worker")" -ge 2 ]'
seen=$(jq '[.verdicts | to_entries[] | select(.value == "CE")] | length' "$T/out.json")
GOT="$seen streams saw done CE; errors: $(jq -c '.errors[:3]' "$T/out.json")"
check "every learner's event stream, on the other server than its post, saw its verdict ($seen of $posted)" \
    '[ "$seen" = "$posted" ] && [ "$(jq ".errors | length" "$T/out.json")" = 0 ]'
reconnects=$(jq .reconnects "$T/out.json")
GOT="$reconnects reconnects"
check "streams cut by the kill resumed with Last-Event-ID on a server ($reconnects reconnects)" '[ "$reconnects" -ge 1 ]'
ids=$(sql "SELECT COUNT(*) FROM events e WHERE e.name = 'done' GROUP BY e.submission_id HAVING COUNT(*) > 1" | wc -l)
GOT="$ids submissions with more than one done event"
check "one done event per submission in the store (no duplicate result)" '[ "$ids" = 0 ]'
echo "scale: $want Runs, $LEARNERS learners, 2 servers, 3 workers: $((SECONDS - started)) s in all"
finish
