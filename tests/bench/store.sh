#!/usr/bin/env bash
# store.sh - the store's throughput (issue 30): submissions/s and claims/s
# with one server on its SQLite file, then one and two servers on one
# PostgreSQL database (a throw-away cluster, tests/lib/postgres.sh), in the
# same run on the same machine (tests/bench/store_bench.py drives them).
# The cluster is this script's own, with fsync on (PG_DURABLE=1): a commit is
# as durable as SQLite's synchronous=FULL one.
# Every run: 50 learners, 1,000 Runs posted by 16 threads, then claimed by 8
# workers' threads (each claim a lease), requests round robin over the
# servers. Loopback only; bounded in count and time. Without PostgreSQL (the
# GPU machine) the PostgreSQL rows say why they are missing.
#
#   tests/bench/store.sh BUILD_DIR
set -u
build=${1:-build}
bin=$build/bin/blockwise-server
N=${STORE_BENCH_N:-1000}
T=$(mktemp -d /tmp/bw-store-bench.XXXXXX)
. tests/lib/postgres.sh
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    PIDS=()
}
trap 'cleanup; pg_test_cleanup; rm -rf "$T"' EXIT

conf() { # conf PORT DATABASE FILE
    cat >"$3" <<EOF
port = $1
database = "$2"
problems = tests/fixtures/problems
web = ""
threads = 4
pwhash_ops = 1
pwhash_mem_kib = 8192
signup_address_limit = 0
connections_per_address = 0
quota_run = 1000000
quota_in_flight = 1000000
lease = 60
log_level = warn
EOF
}

# bench LABEL DATABASE SERVERS: prints one result line.
bench() {
    local label=$1 db=$2 n_servers=$3 urls="" port i
    cleanup
    for i in $(seq "$n_servers"); do
        port=$((20000 + RANDOM % 10000))
        conf "$port" "$db" "$T/s$i.conf"
        "$bin" -c "$T/s$i.conf" >>"$T/server.log" 2>&1 &
        PIDS+=($!)
        for _ in $(seq 200); do curl -s "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.05; done
        urls+="${urls:+,}http://127.0.0.1:$port"
    done
    local first=${urls%%,*}
    : >"$T/tokens"
    for i in $(seq 8); do
        "$bin" -c "$T/s1.conf" create-worker "w$i-$RANDOM" --token-file "$T/w.token" >/dev/null 2>&1
        curl -s -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $(cat "$T/w.token")" \
            -d '{"hostname":"bench","version":"1","can_execute":true}' "$first/api/judge/register" >/dev/null
        cat "$T/w.token" >>"$T/tokens"
        rm -f "$T/w.token"
    done
    python3 - "$first" "$T/learners.json" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
out = []
for i in range(50):
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    name = "bench%02d" % i
    c.request("POST", "/api/auth/signup", json.dumps({"name": name, "password": "password-" + name}),
              {"Content-Type": "application/json"})
    r = c.getresponse()
    body = json.loads(r.read())
    cookie = [v.split(";")[0] for k, v in r.getheaders() if k.lower() == "set-cookie" and v.startswith("bw_session=")][0]
    out.append({"cookie": cookie, "csrf": body["csrf"]})
json.dump(out, open(sys.argv[2], "w"))
PY
    local res
    res=$(python3 tests/bench/store_bench.py "$urls" "$T/learners.json" "$T/tokens" "$N" 16 8)
    python3 -c "
import json, sys
r = json.loads(sys.argv[2])
print(f\"store  {sys.argv[1]:<28} {r['submissions_per_s']:7.1f} submissions/s  {r['claims_per_s']:7.1f} claims/s  ({r['submissions']} posted, {r['claims']} claimed, {r['errors']} errors)\")
" "$label" "$res"
    cleanup
}

echo "store: $N Runs by 16 threads, then claimed by 8 workers' threads; $(nproc) CPUs"
bench "SQLite, 1 server" "$T/bench.db" 1
unset BW_TEST_PG
export PG_DURABLE=1
if pg_test_database bw_bench1 && DB1=$PG_DB && pg_test_database bw_bench2 && DB2=$PG_DB; then
    bench "PostgreSQL, 1 server" "$DB1" 1
    bench "PostgreSQL, 2 servers" "$DB2" 2
else
    echo "store  PostgreSQL: not measured: $PG_WHY"
fi
