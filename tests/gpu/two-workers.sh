#!/usr/bin/env bash
# two-workers.sh - two judged workers against one server (issue 6). On a
# machine with two GPUs each worker gets its own (--gpu 0, --gpu 1); with one
# GPU both share GPU 0, which still exercises the queue and the leases under
# concurrency. Checks: a burst of 200 submissions is judged, none lost and
# none twice, and both workers take part; an endless kernel on one worker
# does not stop the other; a worker killed mid-job has its job finished by
# the other; the same kernel timed by both workers agrees within 2%.
#   tests/gpu/two-workers.sh BUILD
set -u
build=${1:-build}
bin=$build/bin
tmp=$(mktemp -d)
port=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
url=http://127.0.0.1:$port
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
w0= w1=
cleanup() { kill $w0 $w1 "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
g1=0
[ "$gpus" -ge 2 ] && g1=1

cat >"$tmp/blockwise.conf" <<CONF
listen = 127.0.0.1
port = $port
database = $tmp/blockwise.db
problems = problems
web = web/dist
cookie_secure = no
log_format = text
quota_run = 1000
quota_submit = 1000
quota_in_flight = 1000
lease = 12
claim_wait = 5
CONF
printf 'adminpass123\n' >"$tmp/admin.password"
"$bin/blockwise-server" -c "$tmp/blockwise.conf" create-admin admin --password-file "$tmp/admin.password" >/dev/null 2>&1
"$bin/blockwise-server" -c "$tmp/blockwise.conf" create-worker w0 --token-file "$tmp/w0.token" >/dev/null 2>&1
"$bin/blockwise-server" -c "$tmp/blockwise.conf" create-worker w1 --token-file "$tmp/w1.token" >/dev/null 2>&1
"$bin/blockwise-server" -c "$tmp/blockwise.conf" >"$tmp/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -s "$url/api/health" >/dev/null 2>&1 && break; sleep 0.1; done
start_worker() { # NAME GPU
    "$bin/judged" --server "$url" --token-file "$tmp/$1.token" --gpu "$2" --cache "$tmp/cache-$1" >>"$tmp/$1.log" 2>&1 &
    echo $!
}
w0=$(start_worker w0 0)
w1=$(start_worker w1 "$g1")
echo "  info: $gpus GPU(s); workers on GPU 0 and GPU $g1"

py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
curl -s -c "$tmp/jar" -H 'Content-Type: application/json' -d '{"name":"bob","password":"bobpass123"}' "$url/api/auth/signup" >"$tmp/signup.json"
csrf=$(py 'd["csrf"]' <"$tmp/signup.json")
curl -s -c "$tmp/ajar" -H 'Content-Type: application/json' -d '{"name":"admin","password":"adminpass123"}' "$url/api/auth/signin" >/dev/null
submit() { # PROBLEM MODE FILE -> id
    python3 -c "import json,sys; print(json.dumps({'problem': sys.argv[1], 'mode': sys.argv[2], 'source': open(sys.argv[3]).read()}))" "$1" "$2" "$3" >"$tmp/body.json"
    curl -s -b "$tmp/jar" -H 'Content-Type: application/json' -H "X-CSRF-Token: $csrf" --data-binary @"$tmp/body.json" "$url/api/submissions" | py 'd["id"]'
}
state() { curl -s -b "$tmp/jar" "$url/api/submissions/$1"; }
wait_all() { # SECONDS ID... -> 0 when every id is done
    local limit=$1
    shift
    for _ in $(seq $((limit * 2))); do
        local left=0
        for id in "$@"; do [ "$(state "$id" | py 'd["state"]')" = done ] || { left=1; break; }; done
        [ $left -eq 0 ] && return 0
        sleep 0.5
    done
    return 1
}

# 1. A burst of 200: 40 runs of a correct kernel, 160 compile errors.
printf '// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)\nextern "C" __global__ void vector_add(float *c) { c[0] = oops; }\n' >"$tmp/ce.cu"
burst=${BURST:-200}
ids=()
t0=$(date +%s.%N)
for i in $(seq "$burst"); do
    if [ $((i % 5)) -eq 0 ]; then ids+=("$(submit vector-add run tests/hostile/run/good.cu)"); else ids+=("$(submit vector-add run "$tmp/ce.cu")"); fi
done
posted=$(printf '%s\n' "${ids[@]}" | grep -c '^[0-9]')
[ "$posted" -eq "$burst" ] && ok "$burst submissions posted in $(python3 -c "import time; print(round(time.time()-$t0,1))") s" || bad "only $posted of $burst posted"
if wait_all 400 "${ids[@]}"; then
    secs=$(python3 -c "import time; print(round(time.time()-$t0,1))")
    bad_v=0 twice=0
    for i in "${!ids[@]}"; do
        s=$(state "${ids[$i]}")
        v=$(echo "$s" | py 'd["verdict"]')
        a=$(echo "$s" | py 'd["attempts"]')
        want=CE
        [ $(((i + 1) % 5)) -eq 0 ] && want=AC
        [ "$v" = "$want" ] || bad_v=$((bad_v + 1))
        [ "$a" = 1 ] || twice=$((twice + 1))
    done
    [ $bad_v -eq 0 ] && ok "all $burst judged with the right verdict in $secs s" || bad "$bad_v of $burst with a wrong verdict"
    [ $twice -eq 0 ] && ok "none judged twice (every submission: 1 attempt)" || bad "$twice submissions needed more than one attempt"
else
    bad "the burst did not finish in 400 s"
fi
split=$(curl -s -b "$tmp/ajar" "$url/api/admin/workers" |
    python3 -c 'import json,sys; print(" ".join("%s=%s" % (w["name"], w["judged"]) for w in json.load(sys.stdin)["workers"]))')
if [ -n "$split" ] && ! echo "$split" | grep -qE '=0( |$)'; then ok "work split between the workers: $split"; else bad "one worker did nothing: '$split'"; fi

# 2. An endless kernel on one worker does not stop the other.
tle=$(submit vector-add run tests/hostile/run/endless.cu)
sleep 1
t1=$(date +%s.%N)
quick=$(submit vector-add run tests/hostile/run/good.cu)
wait_all 60 "$quick" && ok "a correct run finished in $(python3 -c "import time; print(round(time.time()-$t1,1))") s while the other worker held an endless kernel" || bad "the correct run waited"
wait_all 60 "$tle" && [ "$(state "$tle" | py 'd["verdict"]')" = TLE ] && ok "the endless kernel got TLE" || bad "endless: $(state "$tle" | head -c 300)"

# 3. A worker killed mid-job: the other finishes the job.
sub=$(submit vector-add submit problems/vector-add/solution.cu)
for _ in $(seq 40); do [ "$(state "$sub" | py 'd["state"]')" = judging ] && break; sleep 0.25; done
holder=$(curl -s -b "$tmp/ajar" "$url/api/admin/workers" | py '[w["name"] for w in d["workers"] if w["current_submission"] == '"$sub"'][0]' 2>/dev/null)
if [ "$holder" = w0 ]; then kill -9 $w0; w0=; else kill -9 $w1; w1=; fi
wait_all 120 "$sub" && s=$(state "$sub") && [ "$(echo "$s" | py 'd["verdict"]')" = AC ] &&
    ok "worker $holder killed mid-job: the other finished it (attempts $(echo "$s" | py 'd["attempts"]'))" ||
    bad "killed mid-job: $(state "$sub" | head -c 300)"
[ -z "$w0" ] && w0=$(start_worker w0 0)
[ -z "$w1" ] && w1=$(start_worker w1 "$g1")

# 4. The same kernel timed on both workers agrees within 2%.
subs=()
for _ in 1 2 3 4 5 6; do subs+=("$(submit vector-add submit problems/vector-add/solution.cu)"); done
wait_all 240 "${subs[@]}"
for id in "${subs[@]}"; do state "$id"; echo; done | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
meds = [r["result"]["benches"][0]["median_ms"] for r in rows if r.get("result") and r["result"].get("benches")]
gpus = {r["result"]["gpu"]["uuid"] for r in rows if r.get("result") and r["result"].get("gpu")}
ratio = max(meds) / min(meds) if meds else 0
print(f"  info: {len(meds)} timed runs on {len(gpus)} GPU(s): medians {[round(m,4) for m in meds]} ms, max/min {ratio:.4f}")
sys.exit(0 if meds and ratio <= 1.02 else 1)' && ok "timings agree within 2% across workers" || bad "timings disagree across workers"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
