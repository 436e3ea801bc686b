#!/usr/bin/env bash
# server-flow.sh - the whole service with real kernels on the GPU machine:
# blockwise-server on a fresh SQLite file, one judged worker on GPU 0, a
# learner submitting through the HTTP API. Checks the stored verdicts
# (Accepted with timings and score, Wrong Answer, Runtime Error, Time
# Limit), the leaderboard and the gradebook.   tests/gpu/server-flow.sh BUILD
set -u
build=${1:-build}
bin=$build/bin
tmp=$(mktemp -d)
port=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
url=http://127.0.0.1:$port
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
cleanup() { kill "$worker" "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

cat >"$tmp/blockwise.conf" <<CONF
listen = 127.0.0.1
port = $port
database = $tmp/blockwise.db
problems = problems
web = web/dist
cookie_secure = no
log_format = text
quota_run = 100
quota_submit = 100
quota_in_flight = 20
CONF
printf 'adminpass123\n' >"$tmp/admin.password"
"$bin/blockwise-server" -c "$tmp/blockwise.conf" create-admin admin --password-file "$tmp/admin.password" >/dev/null 2>&1
"$bin/blockwise-server" -c "$tmp/blockwise.conf" create-worker gpu0 --token-file "$tmp/worker.token" >/dev/null 2>&1
"$bin/blockwise-server" -c "$tmp/blockwise.conf" >"$tmp/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -s "$url/api/health" >/dev/null 2>&1 && break; sleep 0.1; done
"$bin/judged" --server "$url" --token-file "$tmp/worker.token" --gpu 0 --cache "$tmp/cache" >"$tmp/worker.log" 2>&1 &
worker=$!

py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
signup=$(curl -s -c "$tmp/jar" -H 'Content-Type: application/json' -d '{"name":"alice","password":"alicepass1"}' "$url/api/auth/signup")
csrf=$(echo "$signup" | py 'd["csrf"]')
[ -n "$csrf" ] && ok "learner signed up" || bad "signup: $signup"

submit() { # PROBLEM MODE FILE -> prints the submission id
    python3 - "$1" "$2" "$3" <<'PY' >"$tmp/body.json"
import json, sys
print(json.dumps({"problem": sys.argv[1], "mode": sys.argv[2], "source": open(sys.argv[3]).read()}))
PY
    curl -s -b "$tmp/jar" -H 'Content-Type: application/json' -H "X-CSRF-Token: $csrf" \
        --data-binary @"$tmp/body.json" "$url/api/submissions" | py 'd["id"]'
}
wait_done() { # ID -> prints the submission JSON once done (or after 240 s)
    for _ in $(seq 480); do
        s=$(curl -s -b "$tmp/jar" "$url/api/submissions/$1")
        [ "$(echo "$s" | py 'd["state"]')" = done ] && { echo "$s"; return; }
        sleep 0.5
    done
    echo "$s"
}

ac=$(submit vector-add submit problems/vector-add/solution.cu)
wa=$(submit vector-add submit problems/vector-add/wrong/noop.cu)
re=$(submit vector-add run tests/hostile/run/illegal-address.cu)
tle=$(submit vector-add run tests/hostile/run/endless.cu)
sm=$(submit softmax submit problems/softmax/solution.cu)

check() { # ID WANT LABEL
    local s v
    s=$(wait_done "$1")
    v=$(echo "$s" | py 'd["verdict"]')
    if [ "$v" = "$2" ]; then ok "$3: $v ($(echo "$s" | py 'd["message"]'))"; else bad "$3: want $2, got $v: $(echo "$s" | head -c 400)"; fi
    echo "$s" >"$tmp/sub-$1.json"
}
check "$ac" AC "P1 solution (submit)"
check "$wa" WA "P1 no-op (submit)"
check "$re" RE "illegal address (run)"
check "$tle" TLE "endless kernel (run)"
check "$sm" AC "P11 solution (submit)"

s=$(cat "$tmp/sub-$ac.json")
nb=$(echo "$s" | py 'len(d["result"]["benches"])')
score=$(echo "$s" | py 'd["score"]')
gpu=$(echo "$s" | py 'd["gpu"]')
[ "$nb" -ge 1 ] && python3 -c "import sys; sys.exit(0 if float('$score') > 0 else 1)" &&
    ok "timings stored: $nb shapes, score $score on $gpu" || bad "no timings or score: benches=$nb score=$score"
lb=$(curl -s "$url/api/problems/vector-add/leaderboard")
echo "$lb" | py '[e["user"] for b in d["boards"] for e in b["entries"]]' | grep -q alice &&
    ok "leaderboard lists alice: $(echo "$lb" | py '[(b["gpu"], e["user"], round(e["time_ms"],4)) for b in d["boards"] for e in b["entries"]]')" ||
    bad "leaderboard: $lb"
curl -s -c "$tmp/ajar" -H 'Content-Type: application/json' -d '{"name":"admin","password":"adminpass123"}' "$url/api/auth/signin" >/dev/null
csv=$(curl -s -b "$tmp/ajar" "$url/api/gradebook.csv")
echo "$csv" | grep -q '^alice,vector-add,' && echo "$csv" | grep -q '^alice,softmax,' &&
    ok "gradebook: $(echo "$csv" | grep '^alice' | tr '\n' ' ')" || bad "gradebook: $csv"
workers=$(curl -s -b "$tmp/ajar" "$url/api/admin/workers")
echo "$workers" | py 'd["workers"][0]["gpu"]["name"]' | grep -q H && ok "worker registered its GPU: $(echo "$workers" | py '(d["workers"][0]["gpu"]["name"], round(d["workers"][0]["gpu"].get("copy_gbps",0)))')" || bad "workers: $workers"

# The learner's CLI against the same server and GPU worker: it submits, follows
# the judging live and exits by verdict (0 Accepted, 1 another verdict).
token=$(curl -s -b "$tmp/jar" -H 'Content-Type: application/json' -H "X-CSRF-Token: $csrf" \
    -d '{"name":"gpu flow"}' "$url/api/tokens" | py 'd["token"]')
cli() { XDG_CONFIG_HOME=$tmp/cfg BLOCKWISE_SERVER=$url BLOCKWISE_TOKEN=$token python3 cli/blockwise "$@"; }
cli submit problems/vector-add/solution.cu --problem vector-add >"$tmp/cli-ac.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q 'Accepted' "$tmp/cli-ac.out" && grep -q 'speed of light' "$tmp/cli-ac.out" &&
    ok "CLI submit of P1's solution: exit 0, Accepted with timings" || bad "CLI submit (rc $rc): $(tail -n 15 "$tmp/cli-ac.out")"
cli run problems/vector-add/wrong/noop.cu --problem vector-add >"$tmp/cli-wa.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'Wrong Answer' "$tmp/cli-wa.out" &&
    ok "CLI run of P1's no-op: exit 1, Wrong Answer" || bad "CLI run of the no-op (rc $rc): $(tail -n 15 "$tmp/cli-wa.out")"
cli submit problems/vector-add/solution.cu --problem vector-add --json >"$tmp/cli.json" 2>"$tmp/cli-json.err"
rc=$?
[ $rc -eq 0 ] && [ "$(py 'd["verdict"]' <"$tmp/cli.json")" = AC ] &&
    ok "CLI submit --json: the submission as the API has it" || bad "CLI --json (rc $rc): $(head -c 300 "$tmp/cli.json") $(tail -n 5 "$tmp/cli-json.err")"
[ "$fail" -ne 0 ] && tail -n 30 "$tmp/worker.log"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
