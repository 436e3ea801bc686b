#!/usr/bin/env bash
# server.sh - blockwise-server benchmarks (part of make bench; runs anywhere,
# the GPU is not used). Prints a short summary; logs go to $OUT.
#
#   tests/bench/server.sh BUILD_DIR
#   STREAMS, SUBMISSIONS and WRK_SECONDS make it smaller (tests/cpu/bench-smoke.sh)
#
#   1. problem-list requests per second (wrk, 10 s) against nginx serving the
#      same bytes as a static file in the same run; target ratio >= 0.5
#   2. 2,000 concurrent event streams, 20 events each posted by a worker:
#      every event delivered, latency from post to client p99 <= 100 ms
#   3. 1,000 submissions posted in 10 s by 50 users: none lost or duplicated
#      (every 201 id unique, all in the database, each claimed exactly once)
set -u
build=${1:-build}
bin=$build/bin/blockwise-server
out=${OUT:-$build/bench}
mkdir -p "$out"
T=$(mktemp -d /tmp/bw-bench.XXXXXX)
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
NPORT=$((PORT + 1))
BASE=http://127.0.0.1:$PORT
THREADS=$(nproc)
STREAMS=${STREAMS:-2000}
SUBMISSIONS=${SUBMISSIONS:-1000}
WRK_SECONDS=${WRK_SECONDS:-10}
PROBLEMS=${PROBLEMS:-problems}
[ -d "$PROBLEMS" ] || PROBLEMS=tests/fixtures/problems
for tool in wrk nginx curl jq; do
    command -v "$tool" >/dev/null || { echo "server bench: $tool missing (scripts/install-deps.sh)"; exit 1; }
done
ulimit -n "$(ulimit -Hn)" 2>/dev/null

cat >"$T/server.conf" <<CONF
port = $PORT
database = $T/bench.db
problems = $PROBLEMS
web = ""
threads = $THREADS
max_connections = 20000
# 2,000 streams and 50 learners, all from 127.0.0.1
connections_per_address = 0
signup_address_limit = 0
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_run = 100000
quota_submit = 100000
quota_in_flight = 100000
lease = 300
claim_wait = 5
log_level = warn
CONF
"$bin" -c "$T/server.conf" >"$out/server-bench.log" 2>&1 &
SERVER=$!
NGINX_PID=
cleanup() {
    kill "$SERVER" 2>/dev/null
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
for _ in $(seq 200); do curl -s "$BASE/api/health" >/dev/null && break; sleep 0.05; done

# --- 1. problem list vs nginx ---------------------------------------------------
mkdir -p "$T/www" "$T/nginx/logs"
curl -s "$BASE/api/problems" >"$T/www/problems.json"
cat >"$T/nginx/nginx.conf" <<NG
worker_processes $THREADS;
error_log $T/nginx/logs/error.log;
pid $T/nginx/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    server {
        listen 127.0.0.1:$NPORT;
        location / { root $T/www; default_type application/json; }
    }
}
NG
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" -g 'daemon off;' 2>>"$out/server-bench.log" &
NGINX_PID=$!
sleep 0.5
wrk -t4 -c64 -d"${WRK_SECONDS}s" "$BASE/api/problems" >"$out/wrk-server.txt" 2>&1
wrk -t4 -c64 -d"${WRK_SECONDS}s" "http://127.0.0.1:$NPORT/problems.json" >"$out/wrk-nginx.txt" 2>&1
rps_server=$(awk '/Requests\/sec/ {print $2}' "$out/wrk-server.txt")
rps_nginx=$(awk '/Requests\/sec/ {print $2}' "$out/wrk-nginx.txt")
ratio=$(awk -v a="$rps_server" -v b="$rps_nginx" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')
echo "problem list: blockwise-server $rps_server req/s, nginx $rps_nginx req/s, ratio $ratio (target >= 0.5)"

# --- shared set-up: users, a worker -----------------------------------------------
"$bin" -c "$T/server.conf" create-worker bench --token-file "$T/w.token" >/dev/null
W=$(cat "$T/w.token")
curl -s -X POST -H "Authorization: Bearer $W" -H 'Content-Type: application/json' \
    -d '{"hostname":"bench","can_execute":true,"gpu":{"name":"bench"}}' "$BASE/api/judge/register" >/dev/null
signup() { # NAME -> cookie value on stdout; CSRF in $T/NAME.csrf
    curl -s -c "$T/$1.jar" -X POST -H 'Content-Type: application/json' \
        -d "{\"name\":\"$1\",\"password\":\"password-$1\"}" "$BASE/api/auth/signup" | jq -r .csrf >"$T/$1.csrf"
    awk '$6 == "bw_session" {print $7}' "$T/$1.jar"
}
PROBLEM=$(jq -r '.problems[0].id' "$T/www/problems.json")

# --- 2. $STREAMS (2,000) event streams ----------------------------------------------------------
COOKIE=$(signup streamer)
pairs=()
for i in $(seq 20); do
    curl -s -b "$T/streamer.jar" -H "X-CSRF-Token: $(cat "$T/streamer.csrf")" \
        -H 'Content-Type: application/json' -X POST \
        -d "{\"problem\":\"$PROBLEM\",\"mode\":\"run\",\"source\":\"// stream $i\"}" \
        "$BASE/api/submissions" >/dev/null
done
for i in $(seq 20); do
    job=$(curl -s -X POST -H "Authorization: Bearer $W" -H 'Content-Type: application/json' \
        -d '{"wait":1}' "$BASE/api/judge/claim")
    pairs+=("$(jq -r '.submission' <<<"$job"):$(jq -r '.lease' <<<"$job")")
done
"$build/tests/sse_load" "$PORT" "$COOKIE" "$W" "$STREAMS" 20 "${pairs[@]}" >"$out/sse.json" 2>>"$out/server-bench.log"
jq -r '"event streams: \(.ready)/\(.streams) open, \(.events_received)/\(.events_expected) events delivered, latency p50 \(.latency_p50_ms) ms, p99 \(.latency_p99_ms) ms (target <= 100), max \(.latency_max_ms) ms; \(.done) streams saw done"' "$out/sse.json"

# --- 3. $SUBMISSIONS (1,000) submissions in 10 s ---------------------------------------------------
# One curl process sends them all, 32 at a time, each user with an API token.
for u in $(seq 50); do
    signup "bench$u" >/dev/null
    curl -s -b "$T/bench$u.jar" -H "X-CSRF-Token: $(cat "$T/bench$u.csrf")" -H 'Content-Type: application/json' \
        -X POST -d '{"name":"bench"}' "$BASE/api/tokens" | jq -r .token >"$T/bench$u.token"
done
: >"$T/posts.cfg"
for i in $(seq "$SUBMISSIONS"); do
    u=$((i % 50 + 1))
    cat >>"$T/posts.cfg" <<CFG
url = "$BASE/api/submissions"
header = "Authorization: Bearer $(cat "$T/bench$u.token")"
header = "Content-Type: application/json"
data = "{\\"problem\\":\\"$PROBLEM\\",\\"mode\\":\\"submit\\",\\"source\\":\\"// submission $i\\"}"
output = "/dev/null"
write-out = "%{http_code} %header{location}\\n"
CFG
    [ "$i" -lt "$SUBMISSIONS" ] && echo next >>"$T/posts.cfg"
done
start=$(date +%s.%N)
curl -s --parallel --parallel-max 32 -K "$T/posts.cfg" >"$T/posted" 2>>"$out/server-bench.log"
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
cp "$T/posted" "$out/posted.txt"
ok201=$(grep -c "^201 " "$T/posted")
created=$(awk '$1 == 201 {n = split($2, a, "/"); print a[n]}' "$T/posted" | sort -n | uniq | wc -l)
in_db=$(curl -s "$BASE/metrics" | awk '$1 == "blockwise_queue_length" {print $2}')
claimed=()
while :; do
    job=$(curl -s -X POST -H "Authorization: Bearer $W" -H 'Content-Type: application/json' -d '{"wait":0}' "$BASE/api/judge/claim")
    [ -z "$job" ] && break
    claimed+=("$(jq -r .submission <<<"$job")")
done
uniq_claimed=$(printf '%s\n' "${claimed[@]}" | sort -n | uniq | wc -l)
echo "submissions: $SUBMISSIONS posted in $secs s (target <= 10): $ok201 answered 201, $created distinct ids, $in_db queued in the database, ${#claimed[@]} claimed ($uniq_claimed distinct) (target: all $SUBMISSIONS, no duplicate)"
