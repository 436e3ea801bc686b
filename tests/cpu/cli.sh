#!/usr/bin/env bash
# cli.sh - the learner's command line (cli/blockwise, docs/cli.md) against the
# real blockwise-server on loopback with a real SQLite file, and a real judged:
# first compile-only (as on a machine without a GPU), then one whose runners
# use the fake CUDA driver (tests/fake/libcuda.c, as tests/cpu/worker-fake.sh),
# so that Accepted, Wrong Answer and Runtime Error happen here. Checks:
#   - --help everywhere; bad usage, a bad URL, a server that is down;
#   - login with a token (a file, standard input), with a name and password
#     (a token made for the machine, revoked by logout), a refused token, a
#     worker token, sign-in throttling (429 with Retry-After), the config file
#     (mode 0600) and a token never sent to another server;
#   - problems (text and --json), whoami, history, status, cancel;
#   - run of a compile error (FILE:LINE:COL, exit 1), of a correct kernel on
#     a compile-only server (waiting for a GPU, exit 4), a Triton file where
#     no worker compiles Triton (exit 4), --wait with --timeout (exit 4);
#   - an unknown problem, a missing file, an unknown extension, a source
#     over the server's cap (413), the Submit quota (429);
#   - on the fake GPU: submit Accepted with its timings and goals (exit 0),
#     Wrong Answer with the mismatch table and Runtime Error (exit 1), --json
#     output that parses, status --follow of a job that waited for a GPU, and
#     a stream that survives the server restarting mid-judging;
#   - progress on a terminal (under script(1));
#   - profile (issue 29): a worker driven by hand here posts the profile a GPU
#     would (tests/fixtures/profile/profile.json): progress, the summary table
#     and per-launch details, --save-raw (and status --save-raw), --json, a
#     Profile whose tests crashed (no profile, exit 1), a --save-raw path that
#     cannot be written and a Submit's raw report (exit 2), the quota in
#     whoami, and a server without a Profile mode (exit 2);
#   - make install into a DESTDIR, and uninstall.
#
#   tests/cpu/cli.sh BUILD
set -u
build=${1:-build}
server_bin=$build/bin/blockwise-server
judged_bin=$build/bin/judged
fake=$build/tests/fake
CLI=$PWD/cli/blockwise
problems=tests/fixtures/fake-gpu pid=fake-add problem=tests/fixtures/fake-gpu/fake-add
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() {
    local name=$1
    shift
    if eval "$@"; then ok "$name"; else bad "$name (rc $RC; stdout: $(head -c 600 "$T/out" | tr '\n' '|'); stderr: $(head -c 600 "$T/err" | tr '\n' '|'))"; fi
}
for need in "$server_bin" "$judged_bin" "$build/bin/blockwise-runner" "$fake/libcuda.so.1"; do
    [ -e "$need" ] || { echo "  skip: needs make all ($need)"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
for tool in curl jq python3; do
    command -v $tool >/dev/null || { echo "  skip: $tool missing"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done

T=$(mktemp -d /tmp/bw-cli-test.XXXXXX)
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
DEAD=http://127.0.0.1:$((PORT + 1)) # nothing listens there
# The CLI's whole environment: its own home (the config file), nothing inherited.
unset BLOCKWISE_SERVER BLOCKWISE_TOKEN XDG_CONFIG_HOME
export HOME=$T/home NO_COLOR=1
mkdir -p "$HOME"
CONFIG=$HOME/.config/blockwise/config.json

cat >"$T/server.conf" <<CONF
port = $PORT
database = $T/db
problems = $problems
web = ""
pwhash_ops = 1
pwhash_mem_kib = 8192
lease = 20
claim_wait = 2
quota_in_flight = 20
quota_submit = 3
CONF
"$server_bin" -c "$T/server.conf" create-worker cpu --token-file "$T/w.token" >/dev/null
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$(realpath "$fake")" \
    "$(realpath "$build/bin/blockwise-runner")" >"$T/runner"
chmod +x "$T/runner"

SERVER= JUDGED= BG=
cleanup() {
    [ -n "$BG" ] && kill "$BG" 2>/dev/null
    [ -n "$JUDGED" ] && kill -KILL "$JUDGED" 2>/dev/null
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
    wait 2>/dev/null
}
finish() {
    cleanup
    if [ "$fail" -ne 0 ]; then
        echo "--- server log"; tail -20 "$T/server.log"
        echo "--- judged log"; tail -20 "$T/judged.log"
    fi
    rm -rf "$T"
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
trap 'cleanup; rm -rf "$T"' INT TERM
start_server() {
    "$server_bin" -c "$T/server.conf" >>"$T/server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 100); do curl -s "$BASE/api/health" >/dev/null && return 0; sleep 0.05; done
    return 1
}
# start_judged [RUNNER]: compile-only without a runner (no GPU is visible to
# it), else its runners use the fake CUDA driver. Waits for its registration.
start_judged() {
    local before
    before=$(grep -c 'registered with' "$T/judged.log" 2>/dev/null)
    if [ -n "${1:-}" ]; then
        BLOCKWISE_RUNNER=$1 "$judged_bin" --server "$BASE" --token-file "$T/w.token" --gpu 0 \
            --cache "$T/cache-gpu" >>"$T/judged.log" 2>&1 &
    else
        CUDA_VISIBLE_DEVICES= "$judged_bin" --server "$BASE" --token-file "$T/w.token" --gpu 0 \
            --cache "$T/cache-cpu" >>"$T/judged.log" 2>&1 &
    fi
    JUDGED=$!
    for _ in $(seq 300); do
        [ "$(grep -c 'registered with' "$T/judged.log" 2>/dev/null)" -gt "${before:-0}" ] && return 0
        sleep 0.1
    done
    return 1
}
# cli ARGS...: runs the CLI (no standard input); $RC, $T/out, $T/err.
cli() {
    "$CLI" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
}
# cli_in TEXT ARGS...: the same with TEXT on standard input.
cli_in() {
    local input=$1
    shift
    printf '%s\n' "$input" | "$CLI" "$@" >"$T/out" 2>"$T/err"
    RC=$?
}
out_has() { grep -qE -- "$1" "$T/out"; }
err_has() { grep -qE -- "$1" "$T/err"; }
id_of() { sed -nE 's/^(Run|Submit|Profile) #([0-9]+):.*/\2/p' "$T/err" | head -1; }

# ---- before a server --------------------------------------------------------------
all_help=yes
for c in "" login logout whoami problems run submit profile status cancel history; do
    "$CLI" $c --help >"$T/out" 2>"$T/err" </dev/null || all_help="$c: exit $?"
    grep -q "^usage: blockwise" "$T/out" || all_help="$c: no usage"
done
RC=0
check "--help for blockwise and every command (exit 0, usage)" '[ "$all_help" = yes ]'
cli
check "no command: the usage, exit 2" '[ $RC -eq 2 ] && err_has "usage: blockwise"'
cli run "$problem/solution.cu"
check "run without --problem: exit 2, says so" '[ $RC -eq 2 ] && err_has "required: --problem"'
cli problems --server "$DEAD"
check "a server that is down: exit 3, cannot reach it, no traceback" \
    '[ $RC -eq 3 ] && err_has "cannot reach $DEAD: connection refused" && ! err_has Traceback'
cli problems --server "ftp://example.org"
check "a bad server URL: exit 2" '[ $RC -eq 2 ] && err_has "bad server URL"'
cli whoami --server "$DEAD"
check "no token: exit 2, and how to log in" \
    '[ $RC -eq 2 ] && err_has "no token for $DEAD" && err_has "blockwise login --server $DEAD"'

# ---- make install ------------------------------------------------------------------
D=$T/dest
make -s --no-print-directory install DESTDIR="$D" PREFIX=/usr BUILD="$build" >"$T/out" 2>"$T/err"
RC=$?
check "make install DESTDIR=D PREFIX=/usr: bin/blockwise; the binaries in lib/blockwise, linked from bin; problems" \
    '[ $RC -eq 0 ] && [ -x "$D/usr/bin/blockwise" ] && [ "$(readlink "$D/usr/bin/judged")" = ../lib/blockwise/judged ] &&
     [ "$(readlink "$D/usr/bin/blockwise-server")" = ../lib/blockwise/blockwise-server ] &&
     [ -x "$D/usr/lib/blockwise/blockwise-compile" ] && [ -x "$D/usr/lib/blockwise/blockwise-runner" ] &&
     [ -f "$D/usr/lib/blockwise/libmd4c.so.0" ] && [ -d "$D/usr/share/blockwise/problems" ]'
"$D/usr/bin/blockwise" --help >"$T/out" 2>"$T/err" && "$D/usr/bin/blockwise-server" --help >>"$T/out" 2>>"$T/err" &&
    "$D/usr/bin/judged" --help >>"$T/out" 2>>"$T/err"
RC=$?
check "the installed CLI, server and judged start" \
    '[ $RC -eq 0 ] && out_has "^usage: blockwise " && out_has "^usage: blockwise-server" && out_has "^usage: judged"'
make -s --no-print-directory uninstall DESTDIR="$D" PREFIX=/usr BUILD="$build" >"$T/out" 2>"$T/err"
RC=$?
check "make uninstall removes them" '[ $RC -eq 0 ] && [ -z "$(find "$D" -type f -o -type l)" ]'

start_server || { bad "the server starts"; finish; }

# ---- accounts -------------------------------------------------------------------
cli problems --server "$BASE"
check "problems: id, step, title, languages (no token needed)" \
    '[ $RC -eq 0 ] && out_has "^ +1 +fake-add +Addition on the fake driver +CUDA, Triton$"'
cli problems --server "$BASE" --json
check "problems --json parses" '[ $RC -eq 0 ] && [ "$(jq -r ".problems[0].id" "$T/out")" = fake-add ]'

signup() { # NAME -> cookie jar $T/jar.NAME, csrf $T/csrf.NAME
    curl -s -c "$T/jar.$1" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$1\",\"password\":\"password-$1\"}" "$BASE/api/auth/signup" | jq -r .csrf >"$T/csrf.$1"
}
make_token() { # NAME LABEL -> token
    curl -s -b "$T/jar.$1" -H "X-CSRF-Token: $(cat "$T/csrf.$1")" -H 'Content-Type: application/json' \
        -d "{\"name\":\"$2\"}" "$BASE/api/tokens" | jq -r .token
}
signup alice
signup carol
make_token alice "from the page" >"$T/alice.token"
cli login --server "$BASE" --token-file "$T/alice.token"
check "login --token-file: checked with /api/me, stored" \
    '[ $RC -eq 0 ] && out_has "Logged in to $BASE as alice \(learner\)" && [ "$(jq -r .token "$CONFIG")" = "$(cat "$T/alice.token")" ]'
check "the config file is mode 0600 in a 0700 folder" \
    '[ "$(stat -c %a "$CONFIG")" = 600 ] && [ "$(stat -c %a "$(dirname "$CONFIG")")" = 700 ]'
cli whoami
check "whoami: the user, the server (the config's), the quotas" \
    '[ $RC -eq 0 ] && out_has "^alice \(learner\) on $BASE" && out_has "^Submits +3 of 3 left"'
cli_in "bwu_not-a-real-token" login --server "$BASE"
check "login with a refused token: exit 2, the server's message, what to do; the stored token stays" \
    '[ $RC -eq 2 ] && err_has "unknown or revoked token \(401 unauthorized\)" && err_has "login --server" &&
     [ "$(jq -r .token "$CONFIG")" = "$(cat "$T/alice.token")" ]'
cli_in "$(cat "$T/alice.token")" login --server "$BASE"
check "login with the token on standard input" '[ $RC -eq 0 ] && out_has "as alice"'
BLOCKWISE_TOKEN=$(cat "$T/w.token") cli whoami
check "a worker token (BLOCKWISE_TOKEN): exit 2, 403 and what to use instead" \
    '[ $RC -eq 2 ] && err_has "a worker token cannot act as a user \(403 forbidden\)" && err_has "personal API token"'
BLOCKWISE_TOKEN=bwu_nope cli whoami
check "BLOCKWISE_TOKEN overrides the config file (refused here: exit 2)" '[ $RC -eq 2 ] && err_has "401 unauthorized"'
BLOCKWISE_SERVER=$DEAD cli whoami
check "BLOCKWISE_SERVER elsewhere: the stored token is not sent there (exit 2)" \
    '[ $RC -eq 2 ] && err_has "logged in to $BASE, not to $DEAD"'

echo "password-carol" >"$T/carol.pw"
cli login --server "$BASE" --name carol --password-file "$T/carol.pw"
CAROL=$(jq -r .token "$CONFIG")
check "login --name: signs in, makes a token for this machine, stores it" \
    '[ $RC -eq 0 ] && out_has "as carol" && out_has "Made the API token \"blockwise CLI on" &&
     [ "$(jq -r .token_id "$CONFIG")" -gt 0 ] && [[ "$CAROL" == bwu_* ]]'
GOT=$(curl -s -b "$T/jar.carol" "$BASE/api/tokens" | jq -r '.tokens[].name')
RC=0
check "the web app lists carol's new token by its name" '[[ "$GOT" == "blockwise CLI on "* ]]'
cli login --server "$BASE" --name carol --password-file "$T/carol.pw"
GOT=$(curl -s -b "$T/jar.carol" "$BASE/api/tokens" | jq '.tokens | length')
OLD=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $CAROL" "$BASE/api/me")
CAROL=$(jq -r .token "$CONFIG")
check "login --name again: the token the first one made is revoked (none left behind)" \
    '[ $RC -eq 0 ] && out_has "Revoked the token" && [ "$GOT" = 1 ] && [ "$OLD" = 401 ]'
cli logout
GOT=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $CAROL" "$BASE/api/me")
check "logout forgets the token and revokes the one login made" \
    '[ $RC -eq 0 ] && [ ! -e "$CONFIG" ] && out_has "is revoked" && [ "$GOT" = 401 ]'
echo "wrong-password" >"$T/wrong.pw"
for _ in 1 2 3 4 5 6; do cli login --server "$BASE" --name zed --password-file "$T/wrong.pw"; done
check "sign-in throttled after failures: exit 3, the server's message and Retry-After" \
    '[ $RC -eq 3 ] && err_has "429 throttled" && err_has "retry after [0-9]+ s"'
cli login --server "$BASE" --name alice --password-file "$T/wrong.pw"
check "a wrong password: exit 2, 401 bad_credentials" '[ $RC -eq 2 ] && err_has "401 bad_credentials"'
cli login --server "$BASE" --token-file "$T/alice.token"
make_token carol "quota" >"$T/carol.token"

# ---- a compile-only worker --------------------------------------------------------
start_judged || bad "the compile-only worker registers"
cat >"$T/ce.cu" <<'EOF'
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)
extern "C" __global__ void vector_add(const float* x, const float* y, float* out, long long N)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        out[i] = x[i] + y[i]
}
EOF
cd "$T" && cli run ce.cu --problem "$pid"
cd - >/dev/null
check "run of a compile error: exit 1, Compile Error, the diagnostic at FILE:LINE:COL, progress on stderr" \
    '[ $RC -eq 1 ] && out_has "^verdict +Compile Error" && out_has "^ce\.cu:7:[0-9]+: error" && err_has "compiling" && err_has "does not compile"'
# The answer of a post lost on the way back (the server made the submission):
# the CLI sends it again with the same Idempotency-Key and gets that
# submission, never a second (tests/cpu/lib/lossy-proxy.py loses the first).
LOSSY_PORT=$((PORT + 2))
python3 tests/cpu/lib/lossy-proxy.py "$LOSSY_PORT" "$PORT" "$T/lossy.posts" 2>"$T/lossy.log" &
LOSSY=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$LOSSY_PORT/api/health" && break; sleep 0.05; done
before=$(curl -s -H "Authorization: Bearer $(cat "$T/alice.token")" "$BASE/api/submissions?limit=200" | jq '.submissions | length')
BLOCKWISE_TOKEN=$(cat "$T/alice.token") cli run "$T/ce.cu" -p "$pid" --server "http://127.0.0.1:$LOSSY_PORT"
after=$(curl -s -H "Authorization: Bearer $(cat "$T/alice.token")" "$BASE/api/submissions?limit=200" | jq '.submissions | length')
check "a post whose answer was lost is sent again with its Idempotency-Key: one submission, its verdict" \
    '[ $RC -eq 1 ] && out_has "^verdict +Compile Error" && [ "$(wc -l <"$T/lossy.posts")" = 2 ] &&
     [ "$(sort -u "$T/lossy.posts" | wc -l)" = 1 ] && grep -q "^cli-[0-9a-f]\{32\}$" "$T/lossy.posts" && [ $((after - before)) = 1 ]'
kill "$LOSSY" 2>/dev/null
wait "$LOSSY" 2>/dev/null
cli run "$problem/solution.cu" -p "$pid"
WAITING=$(id_of)
check "run of a correct kernel with no GPU worker: compiled, exit 4, says why and how to follow it" \
    '[ $RC -eq 4 ] && err_has "compiled in" && err_has "no GPU worker connected" && err_has "blockwise status $WAITING --follow" &&
     out_has "compiled; waiting for a GPU worker"'
cli status "$WAITING"
check "status of it: waiting for a GPU, exit 4" '[ $RC -eq 4 ] && out_has "^state +compiled; waiting for a GPU worker"'
cli run "$problem/solution.py" -p "$pid"
TRITON=$(id_of)
check "a .py file is Triton; no worker here compiles Triton: exit 4, says so" \
    '[ $RC -eq 4 ] && out_has "^Run #$TRITON · fake-add · Triton" && err_has "no worker connected here compiles Triton"'
cli cancel "$TRITON"
check "cancel it" '[ $RC -eq 0 ] && out_has "#$TRITON cancelled"'
cli status "$TRITON"
check "status of a cancelled one: exit 1, by whom" '[ $RC -eq 1 ] && out_has "Cancelled by alice"'
t0=$SECONDS
cli run "$problem/solution.cu" -p "$pid" --wait --timeout 3
TIMED_OUT=$(id_of)
check "--wait --timeout 3: follows past the missing GPU, stops after 3 s with exit 4" \
    '[ $RC -eq 4 ] && [ $((SECONDS - t0)) -le 8 ] && err_has "not judged after --timeout 3 s"'
cli cancel "$TIMED_OUT"
cli run "$problem/solution.cu" -p no-such-problem
check "an unknown problem: exit 2, the server's message and where the list is" \
    '[ $RC -eq 2 ] && err_has "no problem \"no-such-problem\"" && err_has "blockwise problems"'
cli run "$T/missing.cu" -p "$pid"
check "a missing file: exit 2" '[ $RC -eq 2 ] && err_has "cannot read .*missing.cu: No such file"'
cp "$problem/solution.cu" "$T/kernel.txt"
cli run "$T/kernel.txt" -p "$pid"
check "an extension that says no language: exit 2, and --language" '[ $RC -eq 2 ] && err_has "--language cuda"'
head -c 300000 /dev/zero | tr '\0' 'x' >"$T/big.cu"
cli run "$T/big.cu" -p "$pid"
check "a source over the server's cap: exit 2, 413 too_large" '[ $RC -eq 2 ] && err_has "413 too_large"'
cli history
check "history: newest first, with results" \
    '[ $RC -eq 0 ] && out_has "^#$TIMED_OUT .* fake-add +run +CUDA +cancelled by alice" && out_has "Compile Error"'
cli history --problem "$pid" --json
check "history --json parses" '[ $RC -eq 0 ] && [ "$(jq ".submissions | length" "$T/out")" -ge 4 ]'
cli status 99999
check "status of a submission that does not exist: exit 2" '[ $RC -eq 2 ] && err_has "404 not_found"'

# carol's Submits: the quota is 3 a window (server.conf)
for _ in 1 2 3 4; do BLOCKWISE_TOKEN=$(cat "$T/carol.token") cli submit "$T/ce.cu" -p "$pid"; done
check "the Submit quota used up: exit 3, the server's message and Retry-After" \
    '[ $RC -eq 3 ] && err_has "429 quota" && err_has "retry after [0-9]+ s"'

# ---- the fake GPU ------------------------------------------------------------------
kill "$JUDGED" 2>/dev/null # SIGTERM: it holds no job (the rest are parked for a GPU)
{ wait "$JUDGED"; } 2>/dev/null
start_judged "$T/runner" || bad "the fake GPU worker registers"
cli submit "$problem/solution.cu" -p "$pid"
check "submit on the fake GPU: exit 0, Accepted, speed of light, timings per shape, goals" \
    '[ $RC -eq 0 ] && out_has "^verdict +Accepted" && out_has "^score .* of the speed of light" &&
     out_has "^  2\^15 .*GB/s .*FLOP/s +[0-9.]+%$" && out_has "^  2\^16 " && out_has "^goals .* learning goals met" &&
     err_has "timed shape 2 of 2, 2\^16" && err_has "tests 4 of 4 passed"'
AC=$(id_of)
cli run "$problem/wrong/partial.cu" -p "$pid"
check "run of a wrong kernel: exit 1, Wrong Answer, the failing test and its first mismatches" \
    '[ $RC -eq 1 ] && out_has "^verdict +Wrong Answer" && out_has "^failed +test 1 of 4" &&
     out_has "^    index +expected +got +abs. error +rel. error +why" && out_has "^    \[0\] "'
cli run "$problem/wrong/fault.cu" -p "$pid"
check "run of a faulting kernel: exit 1, Runtime Error, the CUDA error and what it means" \
    '[ $RC -eq 1 ] && out_has "^verdict +Runtime Error" && out_has "CUDA_ERROR_ILLEGAL_ADDRESS" && out_has "what it most likely means"'
cli run "$problem/solution.cu" -p "$pid" --json
check "run --json: the submission's JSON (parses), no progress" \
    '[ $RC -eq 0 ] && [ "$(jq -r "[.state, .verdict, (.result.tests | length)] | join(\" \")" "$T/out")" = "done AC 4" ] && [ ! -s "$T/err" ]'
cli run "$problem/solution.cu" -p no-such-problem --json
check "--json on a failure: the error object on stdout, exit 2" \
    '[ $RC -eq 2 ] && [ "$(jq -r .error.status "$T/out")" = 404 ]'
cli status "$AC"
check "status of the Accepted Submit: exit 0, its timings" '[ $RC -eq 0 ] && out_has "^verdict +Accepted" && out_has "^timing"'
cli status "$AC" --json
check "status --json parses" '[ $RC -eq 0 ] && [ "$(jq -r .verdict "$T/out")" = AC ]'
cli status "$WAITING" --follow --timeout 60
check "status --follow of the Run that waited for a GPU: judged now, exit 0" '[ $RC -eq 0 ] && out_has "^verdict +Accepted"'
cli cancel "$AC"
check "cancel of a judged one: exit 2, the server says why" '[ $RC -eq 2 ] && err_has "409 finished"'

# The stream survives the server restarting while the job is judged (a Submit
# of seconds on the fake driver): the CLI reconnects, with Last-Event-ID.
"$CLI" submit "$problem/slow.cu" -p "$pid" >"$T/bg.out" 2>"$T/bg.err" </dev/null &
BG=$!
for _ in $(seq 300); do grep -q "compiled in" "$T/bg.err" && break; sleep 0.1; done
kill "$SERVER" && wait "$SERVER" 2>/dev/null
start_server || bad "the server starts again"
wait "$BG"
RC=$?
BG=
cp "$T/bg.out" "$T/out" && cp "$T/bg.err" "$T/err"
check "the server restarts mid-judging: the CLI reconnects and shows the verdict (exit 0)" \
    '[ $RC -eq 0 ] && out_has "^verdict +Accepted" && err_has "reconnecting|trying again"'

if command -v script >/dev/null; then
    # slow.cu (4 tests of 200 ms on the fake driver): the CLI follows a job being judged. A
    # Run judged in 3 ms can be done before the CLI connects, and then there is no progress to
    # show, only the verdict.
    script -qec "$CLI run $problem/slow.cu -p $pid" /dev/null >"$T/out" 2>&1 </dev/null
    RC=$?
    check "on a terminal: progress overwrites one line (\\r, erase), then the verdict" \
        '[ $RC -eq 0 ] && grep -q $'"'"'\r\e\[K'"'"' "$T/out" && out_has "verdict +Accepted"'
else
    skip=$((skip + 1))
    echo "skip - progress on a terminal: no script(1)"
fi

# ---- profile: a worker by hand posts what a GPU's profiler would ------------------
kill "$JUDGED" 2>/dev/null # SIGTERM: it holds no job
{ wait "$JUDGED"; } 2>/dev/null
JUDGED=
as_worker() { # as_worker METHOD PATH [BODY]: the worker API with the worker's token
    curl -s -m 30 -X "$1" -H "Authorization: Bearer $(cat "$T/w.token")" -H 'Content-Type: application/json' \
        ${3:+--data-binary "$3"} "$BASE$2"
}
# judge_by_hand RESULT: claims the next job (within 30 s), posts the events of a
# compile and one passing test, then RESULT; the job's JSON in $T/job
judge_by_hand() {
    local job=
    for _ in $(seq 30); do
        job=$(as_worker POST /api/judge/claim '{"wait":1}')
        [ -n "$job" ] && break
    done
    printf '%s' "$job" >"$T/job"
    local lease
    lease=$(jq -r .lease <<<"$job")
    as_worker POST "/api/judge/leases/$lease/progress" \
        '{"events":[{"event":"compiling"},{"event":"compiled","ok":true,"ms":12.5},{"event":"test","index":0,"of":1,"name":"N=1","verdict":"AC","ms":0.01}]}' >/dev/null
    sleep 0.3
    as_worker POST "/api/judge/leases/$lease/result" "$1" >"$T/posted"
}
as_worker POST /api/judge/register '{"hostname":"gpu-by-hand","can_execute":true,"gpu":{"name":"NVIDIA H200"}}' >/dev/null
PROFILE=$(jq -c . tests/fixtures/profile/profile.json)
presult() { # presult VERDICT PROFILE: a Profile's result
    printf '{"result":{"verdict":"%s","mode":"profile","executed":true,"message":"m","gpu":{"name":"NVIDIA H200"},"tests":[{"name":"N=1","verdict":"%s"}],"profile":%s}}' "$1" "$1" "$2"
}
"$CLI" profile "$problem/solution.cu" -p "$pid" --save-raw "$T/raw.json" >"$T/bg.out" 2>"$T/bg.err" </dev/null &
BG=$!
judge_by_hand "$(presult AC "$PROFILE")"
wait "$BG"
RC=$?
BG=
cp "$T/bg.out" "$T/out" && cp "$T/bg.err" "$T/err"
PROF=$(id_of)
check "profile: the job is a Profile; progress says it profiles; exit 0, Accepted" \
    '[ "$(jq -r .mode "$T/job")" = profile ] && [ "$(jq -r .submission "$T/job")" = "$PROF" ] && [ $RC -eq 0 ] &&
     err_has "^Profile #$PROF: .*fake-add" && err_has "tests 1 of 1 passed" && err_has "profiling the kernels on the GPU" &&
     out_has "^verdict +Accepted" && out_has "not timed or scored"'
check "profile: the case, the profiler and the one-line reading" \
    'out_has "^profile +on N=268435456 · CUPTI 13.0 range profiler, kernel replay, 9 passes · 812 ms on the worker$" &&
     out_has "^reading +vector_add takes 99.6% of the time and is memory-bound"'
check "profile: a table row per kernel launch (time, share, DRAM, L2, SM, FMA, tensor, occupancy, limiter)" \
    'out_has "^  kernel +launch +time +share +DRAM +L2 +SM +FMA +tensor +occupancy +limiter$" &&
     out_has "^  vector_add +0 +0.771 ms +100% +91.8% +40.1% +30.2% +12.0% +0.0% +78.0% / 100.0% +memory$" &&
     out_has "^  vector_add_tail +1 +3.10 µs +0% +0.2% +0.4% +0.1% +0.0% +- +1.5% / 100.0% +latency$"'
check "profile: per launch its reading, top stalls, caches, bytes against the model, occupancy's limit" \
    'out_has "^vector_add #0  memory-bound at 92% of DRAM bandwidth" &&
     out_has "^  stalls +long scoreboard \(waiting on global memory\) 61.0%; wait \(fixed-latency dependency\) 12.5%; not selected 4.0%$" &&
     out_has "^  caches +L1 hit 0.0%, L2 hit 33.0%; L1 throughput 22.0%$" &&
     out_has "^  bytes +3.00 GiB of DRAM traffic, 1.00× the problem.s model \(3.00 GiB\)$" &&
     out_has "^  occupancy +1.5% of a possible 100.0% \(limited by blocks per SM\)$"'
check "profile --save-raw: the raw report as the server serves it (summary and every metric)" \
    'err_has "raw report of #$PROF saved to $T/raw.json" && [ "$(jq -r .submission "$T/raw.json")" = "$PROF" ] &&
     [ "$(jq -r ".profile.raw[\"vector_add#0\"][\"dram__bytes.sum\"]" "$T/raw.json")" = 3221225472 ] && [ ! -e "$T/raw.json.part" ]'
cli status "$PROF" --save-raw "$T/raw2.json"
check "status --save-raw of the Profile: the same report, the same summary, exit 0" \
    '[ $RC -eq 0 ] && cmp -s "$T/raw.json" "$T/raw2.json" && out_has "^reading +vector_add takes"'
"$CLI" profile "$problem/solution.cu" -p "$pid" --json >"$T/bg.out" 2>"$T/bg.err" </dev/null &
BG=$!
judge_by_hand "$(presult AC "$PROFILE")"
wait "$BG"
RC=$?
BG=
cp "$T/bg.out" "$T/out" && cp "$T/bg.err" "$T/err"
check "profile --json: the submission with its profile (parses), no progress" \
    '[ $RC -eq 0 ] && [ "$(jq -r "[.mode, .verdict, (.result.profile.kernels | length)] | join(\" \")" "$T/out")" = "profile AC 2" ] && [ ! -s "$T/err" ]'
"$CLI" profile "$problem/wrong/fault.cu" -p "$pid" --save-raw "$T/raw3.json" >"$T/bg.out" 2>"$T/bg.err" </dev/null &
BG=$!
judge_by_hand '{"result":{"verdict":"RE","mode":"profile","executed":true,"message":"test N=1: CUDA_ERROR_ILLEGAL_ADDRESS","tests":[{"name":"N=1","verdict":"RE","message":"CUDA_ERROR_ILLEGAL_ADDRESS"}]}}'
wait "$BG"
RC=$?
BG=
cp "$T/bg.out" "$T/out" && cp "$T/bg.err" "$T/err"
check "a Profile whose tests crashed: exit 1, no profile, said; no file saved" \
    '[ $RC -eq 1 ] && out_has "^verdict +Runtime Error" && out_has "^profile +none: the tests did not run to the end" &&
     err_has "no raw report saved: .*ended Runtime Error before the profiler ran" && [ ! -e "$T/raw3.json" ]'
cli profile "$problem/solution.cu" -p "$pid" --save-raw "$T/no/such/folder/raw.json"
check "--save-raw into a folder that does not exist: exit 2, before anything is sent" \
    '[ $RC -eq 2 ] && err_has "no folder $T/no/such/folder" && ! err_has "^Profile #"'
cli status "$AC" --save-raw "$T/raw4.json"
check "status --save-raw of a Submit: exit 2, it is not a Profile" '[ $RC -eq 2 ] && err_has "#$AC is a Submit, not a Profile"'
cli whoami
check "whoami: the Profile quota" '[ $RC -eq 0 ] && out_has "^Profiles +7 of 10 left"'
cli history --problem "$pid"
check "history: a Profile's mode" '[ $RC -eq 0 ] && out_has "^#$PROF .* fake-add +profile +CUDA +Accepted"'

# A server from before Profile mode refuses the mode (400, field mode): the CLI says so.
OLD_PORT=$((PORT + 2))
python3 - "$OLD_PORT" >"$T/old.log" 2>&1 <<'PY' &
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"error": {"code": "invalid", "message": 'mode: "profile" is not "run" or "submit"', "field": "mode"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
OLD=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$OLD_PORT") 2>/dev/null && break; sleep 0.1; done
BLOCKWISE_TOKEN=bwu_old-server-token cli profile "$problem/solution.cu" -p "$pid" --server "http://127.0.0.1:$OLD_PORT"
kill "$OLD" 2>/dev/null
wait "$OLD" 2>/dev/null
check "profile on a server without a Profile mode: exit 2, says so" \
    '[ $RC -eq 2 ] && err_has "does not offer profiling" && err_has "blockwise submit"'
finish
