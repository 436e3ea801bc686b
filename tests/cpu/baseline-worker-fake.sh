#!/usr/bin/env bash
# baseline-worker-fake.sh - PyTorch's time through the whole service, without PyTorch or a GPU:
# blockwise-server and a judged worker on loopback, the runners on the fake CUDA driver, the
# worker's Python a fake torch (tests/fake/torch). Checks that
#   - the worker probes PyTorch at start and says so;
#   - a problem version first judged by a Run is measured in the background, and the Submit
#     after it shows x PyTorch per shape (result.benches[].pytorch_ms, pytorch_speedup,
#     result.pytorch) and per submission (pytorch_speedup, computed by the server);
#   - the leaderboard has the column and sorts by it (?sort=pytorch; another sort is a 400);
#   - a restarted worker takes the figures from its cache (measured once per version and GPU);
#   - a Submit whose problem's measurement is queued behind another problem's does not wait
#     for it, says so, and a later Submit shows the figures; a measurement a Submit wanted goes
#     before one queued earlier by a Run;
#   - a worker without PyTorch says why in the result, and the submission has no x PyTorch.
#   tests/cpu/baseline-worker-fake.sh BUILD
set -u
build=${1:-build}
server_bin=$build/bin/blockwise-server
judged_bin=$build/bin/judged
fake=$build/tests/fake
pid=fake-add
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
for need in "$server_bin" "$judged_bin" "$build/bin/blockwise-runner" "$fake/libcuda.so.1"; do
    [ -e "$need" ] || { echo "  skip: needs make all ($need)"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
for tool in curl jq; do
    command -v $tool >/dev/null || { echo "  skip: $tool missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
T=$(mktemp -d /tmp/bw-baseline-worker.XXXXXX)
PORT=$((20000 + RANDOM % 12000))
BASE=http://127.0.0.1:$PORT
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$(realpath "$fake")" \
    "$(realpath "$build/bin/blockwise-runner")" >"$T/runner"
chmod +x "$T/runner"
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pyexe=$(python3 -c 'import sys; print(sys.executable)')
mkdir -p "$T/venv/bin" "$T/venv/lib/python$pyver/site-packages" "$T/problems"
ln -sfn "$(realpath tests/fake/torch)" "$T/venv/lib/python$pyver/site-packages/torch"
ln -sf "$pyexe" "$T/venv/bin/python3"
printf 'home = %s\ninclude-system-site-packages = false\n' "$(dirname "$pyexe")" >"$T/venv/pyvenv.cfg"
cp -r tests/fixtures/fake-gpu/$pid "$T/problems/$pid"
printf 'def baseline(x, y, **_):\n    return x + y\n' >"$T/problems/$pid/baseline.py"
# slow-add: a measurement of seconds (each call 0.3 s); run-add and queued-add: queued behind it
n=1
for other in slow-add run-add queued-add; do
    n=$((n + 1))
    cp -r "$T/problems/$pid" "$T/problems/$other"
    sed -i -e "s/\"id\": \"$pid\"/\"id\": \"$other\"/" -e "s/\"number\": 1,/\"number\": $n,/" \
        "$T/problems/$other/problem.json"
done
printf 'import time\n\n\ndef baseline(x, y, **_):\n    time.sleep(0.3)\n    return x + y\n' \
    >"$T/problems/slow-add/baseline.py"
cat >"$T/server.conf" <<CONF
port = $PORT
database = $T/db
problems = $T/problems
web = ""
pwhash_ops = 1
pwhash_mem_kib = 8192
lease = 20
claim_wait = 2
CONF
"$server_bin" -c "$T/server.conf" create-worker fake --token-file "$T/w.token" >/dev/null
SERVER= JUDGED=
cleanup() {
    [ -n "$JUDGED" ] && kill -KILL "$JUDGED" 2>/dev/null
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
    wait 2>/dev/null
}
trap 'cleanup; rm -rf "$T"' EXIT
"$server_bin" -c "$T/server.conf" >>"$T/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -s "$BASE/api/health" >/dev/null && break; sleep 0.05; done
start_judged() { # PYTHON
    [ -n "$JUDGED" ] && kill -TERM "$JUDGED" 2>/dev/null && wait "$JUDGED" 2>/dev/null
    : >"$T/judged.log"
    BLOCKWISE_PYTHON=$1 BLOCKWISE_RUNNER=$T/runner HOME=$T "$judged_bin" --server "$BASE" \
        --token-file "$T/w.token" --gpu 0 --slots 2 --cache "$T/cache" --log-level debug \
        >>"$T/judged.log" 2>&1 &
    JUDGED=$!
    for _ in $(seq 300); do grep -q 'registered' "$T/judged.log" && break; sleep 0.1; done
}
curl -s -c "$T/jar" -H 'Content-Type: application/json' \
    -d '{"name":"ann","password":"password-1"}' "$BASE/api/auth/signup" | jq -r .csrf >"$T/csrf"
submit() { # FILE MODE [PROBLEM] -> id
    jq -n --rawfile s "$1" --arg m "$2" --arg p "${3:-$pid}" '{problem: $p, mode: $m, source: $s}' |
        curl -s -m 10 -b "$T/jar" -H "X-CSRF-Token: $(cat "$T/csrf")" \
            -H 'Content-Type: application/json' --data-binary @- "$BASE/api/submissions" | jq -r .id
}
get() { curl -s -m 10 -b "$T/jar" "$BASE/api/submissions/$1" | jq -c "$2"; }
wait_done() { # ID SECONDS
    local end=$((SECONDS + $2))
    while [ $SECONDS -lt $end ]; do
        [ "$(get "$1" .state)" = '"done"' ] && return 0
        sleep 0.2
    done
    return 1
}
SOL=tests/fixtures/fake-gpu/$pid/solution.cu

start_judged "$T/venv/bin/python3"
grep -q "PyTorch 0.0+fake (Python" "$T/judged.log" && ok "the worker probes PyTorch at start and says so" ||
    bad "probe: $(grep -i pytorch "$T/judged.log" | head -3)"

# A Run first: the version is measured in the background; then a Submit shows it.
RUN=$(submit "$SOL" run)
wait_done "$RUN" 120 || bad "the Run was not judged"
for _ in $(seq 200); do grep -q "PyTorch 0.0+fake measured" "$T/judged.log" && break; sleep 0.1; done
grep -q "PyTorch's time is measured in the background" "$T/judged.log" &&
    grep -q "PyTorch 0.0+fake measured" "$T/judged.log" &&
    ok "a problem version's first judging (a Run) has PyTorch measured in the background" ||
    bad "background: $(grep baseline "$T/judged.log" | head -5)"
SUB=$(submit "$SOL" submit)
wait_done "$SUB" 120 || bad "the Submit was not judged"
GOT=$(get "$SUB" '[.verdict, [.result.benches[] | .pytorch_ms], ([.result.benches[] | .pytorch_speedup > 0] | all), .result.pytorch.measured, .result.pytorch.torch, .pytorch_speedup > 0]')
[ "$GOT" = '["AC",[0.25,0.25],true,true,"0.0+fake",true]' ] &&
    ok "the Submit shows x PyTorch per shape and per submission" || bad "submit: $GOT"
GOT=$(get "$SUB" '(.pytorch_speedup - ((.result.benches | map(.pytorch_ms / .median_ms | log) | add / length) | exp) | fabs) < 1e-9')
[ "$GOT" = true ] && ok "the server's x PyTorch is the geometric mean over the shapes" || bad "geomean: $GOT"
LB=$(curl -s "$BASE/api/problems/$pid/leaderboard?sort=pytorch")
GOT=$(jq -c '[.sort, .boards[0].entries[0].user, .boards[0].entries[0].pytorch_speedup > 0]' <<<"$LB")
[ "$GOT" = '["pytorch","ann",true]' ] && ok "the leaderboard has x PyTorch and sorts by it" || bad "leaderboard: $LB"
code=$(curl -s -o "$T/lb.json" -w '%{http_code}' "$BASE/api/problems/$pid/leaderboard?sort=fastest")
[ "$code" = 400 ] && [ "$(jq -r .error.field "$T/lb.json")" = sort ] &&
    ok "another sort is a 400 naming the field" || bad "sort=fastest: $code $(cat "$T/lb.json")"
n=$(ls "$T/cache/baselines" 2>/dev/null | wc -l)
[ "$n" = 1 ] && ok "the figures are cached in the worker's cache directory" || bad "cache: $n files"

# A restarted worker: from the cache, nothing measured again.
start_judged "$T/venv/bin/python3"
SUB2=$(submit "$SOL" submit)
wait_done "$SUB2" 120 || bad "the second Submit was not judged"
GOT=$(get "$SUB2" '[.result.pytorch.measured, [.result.benches[] | .pytorch_ms]]')
if [ "$GOT" = '[true,[0.25,0.25]]' ] && ! grep -q "measured in the background" "$T/judged.log"; then
    ok "a restarted worker takes PyTorch's figures from its cache (measured once per version and GPU)"
else
    bad "cache reuse: $GOT $(grep baseline "$T/judged.log" | head -3)"
fi

# A Submit of queued-add while slow-add's measurement runs: queued-add's is queued behind it,
# so the Submit does not wait (it would not end within the wait) and says so. run-add's,
# queued by a Run before it, is measured after it.
RUN2=$(submit "$SOL" run slow-add)
wait_done "$RUN2" 120 || bad "slow-add's Run was not judged"
RUN3=$(submit "$SOL" run run-add)
wait_done "$RUN3" 120 || bad "run-add's Run was not judged"
SUB4=$(submit "$SOL" submit queued-add)
wait_done "$SUB4" 120 || bad "queued-add's Submit was not judged"
slow_done=$(grep -c "baseline: slow-add .*measured on" "$T/judged.log")
GOT=$(get "$SUB4" '[.verdict, .result.pytorch.measured, .result.pytorch.reason]')
[ "$GOT" = '["AC",false,"PyTorch'"'"'s time on this GPU is queued behind another problem'"'"'s measurement: later Submits show it"]' ] &&
    [ "$slow_done" = 0 ] && ok "a Submit does not wait for a measurement queued behind another problem's, and says so" ||
    bad "queued: $GOT (slow-add measured before it: $slow_done)"
for _ in $(seq 300); do grep -q "baseline: queued-add .*measured on" "$T/judged.log" && break; sleep 0.1; done
SUB5=$(submit "$SOL" submit queued-add)
wait_done "$SUB5" 120 || bad "queued-add's second Submit was not judged"
GOT=$(get "$SUB5" '[.verdict, .result.pytorch.measured]')
[ "$GOT" = '["AC",true]' ] && ok "a later Submit shows the figures measured after it" || bad "later: $GOT"
for _ in $(seq 300); do grep -q "baseline: run-add .*measured on" "$T/judged.log" && break; sleep 0.1; done
order=$(grep -o "baseline: [a-z-]* .*measured on" "$T/judged.log" | cut -d' ' -f2 | tr '\n' ' ')
[ "$order" = "slow-add queued-add run-add " ] &&
    ok "a measurement a Submit wanted goes before one a Run queued earlier" || bad "order: $order"

# A worker without PyTorch: the result says why; the submission has no x PyTorch.
start_judged "$pyexe"
grep -q "no PyTorch baseline: PyTorch is not installed on this worker" "$T/judged.log" &&
    ok "a worker without PyTorch says so at start" || bad "no torch at start: $(grep -i pytorch "$T/judged.log" | head -2)"
SUB3=$(submit "$SOL" submit)
wait_done "$SUB3" 120 || bad "the third Submit was not judged"
GOT=$(get "$SUB3" '[.verdict, .result.pytorch.measured, (.result.pytorch.reason | startswith("PyTorch is not installed on this worker")), .result.benches[0].pytorch_ms, .pytorch_speedup]')
[ "$GOT" = '["AC",false,true,null,null]' ] && ok "without PyTorch the result says why, and no x PyTorch is stored" ||
    bad "no torch: $GOT"
if [ "$fail" -ne 0 ]; then
    echo "--- judged log"; tail -30 "$T/judged.log"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
