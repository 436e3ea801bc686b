#!/usr/bin/env bash
# browser.sh - the web app end to end in headless Chromium: the real
# blockwise-server on loopback with a real SQLite file, serving web/dist, and
# a real judged worker (compile-only here: no GPU, and no Triton: it registers
# CUDA only), driven by playwright-core (web/test/browser.mjs) through
# Debian's chromium; vector-add is offered in Triton too. Also runs the web
# app's unit tests (node --test web/test/unit).
#
#   tests/cpu/browser.sh BUILD_DIR            (run from the repository root)
#   BW_BROWSER_KEEP=1 tests/cpu/browser.sh build   keep the temporary directory
#
# Screenshots of the main pages go to BUILD_DIR/test-artifacts/browser/;
# results recorded on the H200 (tests/fixtures/gpu-results, or
# BW_GPU_RESULTS) are replayed into them.
# Skips (1 skipped) when node, chromium or web/node_modules is missing.
set -u
build=${1:-build}
bin=$build/bin
pass=0 fail=0 skip=0
art=$build/test-artifacts/browser

summary() {
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if ! command -v node >/dev/null || [ ! -x "$CHROMIUM" ] || [ ! -d web/node_modules/playwright-core ]; then
    echo "skip: needs node, $CHROMIUM and web/node_modules (make web)"
    skip=1
    summary
fi
if [ ! -f web/dist/index.html ]; then
    echo "FAIL: web/dist/index.html is missing (make web)"
    fail=1
    summary
fi
for b in blockwise-server judged; do
    if [ ! -x "$bin/$b" ]; then
        echo "FAIL: no $bin/$b"
        fail=1
        summary
    fi
done

# The web app's own unit tests (pure modules: diff, formatting, explanations).
unit=$(cd web && node --test test/unit/ 2>&1)
u_pass=$(sed -nE 's/^# pass ([0-9]+)$/\1/p' <<<"$unit")
u_fail=$(sed -nE 's/^# fail ([0-9]+)$/\1/p' <<<"$unit")
echo "web unit tests: ${u_pass:-0} passed, ${u_fail:-?} failed"
if [ -z "$u_pass" ] || [ "${u_fail:-1}" != 0 ]; then
    echo "$unit" | grep -E "^not ok|Error|expected|actual" | head -40
    fail=$((fail + ${u_fail:-1}))
fi
pass=$((pass + ${u_pass:-0}))

T=$(mktemp -d /tmp/bw-browser-test.XXXXXX)
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
mkdir -p "$art"
rm -f "$art"/*.png
# The problems, with vector-add offered in Triton too (its own starter.py and
# solution.py once problems/ has them; until then tests/cpu/lib's), and relu
# in CUDA only (its .py files and their controls removed), so that the page
# shows both kinds whatever problems/ holds.
. tests/cpu/lib/triton-problem.sh
cuda_only() {
    local d=$1
    find "$d" -name '*.py' -delete &&
        jq '.controls |= with_entries(select(.key | endswith(".py") | not))' "$d/problem.json" \
            >"$d/problem.json.new" && mv "$d/problem.json.new" "$d/problem.json"
}
cp -r problems "$T/problems" && triton_problem problems/vector-add "$T/problems" &&
    cuda_only "$T/problems/relu" || {
    echo "FAIL: could not prepare the problems with a Triton vector-add"
    fail=1
    summary
}
cat >"$T/server.conf" <<EOF
listen = 127.0.0.1
port = $PORT
database = "$T/blockwise.db"
problems = $T/problems
web = web/dist
threads = 8
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_run = 10
quota_submit = 5
quota_in_flight = 4
quota_window = 3600
lease = 20
claim_wait = 2
sse_heartbeat = 2
log_level = info
EOF

# web/test/browser.mjs starts (and stops, and restarts) the server and the
# worker itself; it writes their process ids to $T/pids for the clean-up here.
cleanup() {
    if [ -f "$T/pids" ]; then
        while read -r pid; do kill "$pid" 2>/dev/null; done <"$T/pids"
    fi
    if [ -n "${BW_BROWSER_KEEP:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

echo 'admin-password-1' >"$T/admin.pw"
"$bin/blockwise-server" -c "$T/server.conf" create-admin admin --password-file "$T/admin.pw" >"$T/cli.log" 2>&1 &&
    "$bin/blockwise-server" -c "$T/server.conf" create-worker local-cpu --token-file "$T/worker.token" >>"$T/cli.log" 2>&1 &&
    "$bin/blockwise-server" -c "$T/server.conf" create-worker fake-gpu --token-file "$T/fake.token" >>"$T/cli.log" 2>&1 ||
    {
        echo "FAIL: create-admin/create-worker"
        cat "$T/cli.log"
        fail=$((fail + 1))
        summary
    }

abs_bin=$(realpath "$bin")
abs_art=$(realpath "$art")
root=$(pwd)
# Results the H200 recorded (tests/gpu/web.sh), replayed into the pages.
gpu_results=$(realpath "${BW_GPU_RESULTS:-tests/fixtures/gpu-results}")
out=$(
    cd web && BW_GPU_RESULTS=$gpu_results BW_BASE=$BASE BW_TMP=$T BW_ADMIN_PASSWORD=admin-password-1 BW_ARTIFACTS=$abs_art \
        BW_SERVER="$abs_bin/blockwise-server" BW_JUDGED="$abs_bin/judged" \
        BW_CONF="$T/server.conf" BW_WORKER_TOKEN="$T/worker.token" BW_FAKE_TOKEN="$T/fake.token" \
        BW_ROOT=$root CHROMIUM=$CHROMIUM \
        timeout 600 node test/browser.mjs 2>&1
)
rc=$?
echo "$out"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
if [ -z "$line" ]; then
    echo "FAIL: the browser tests ended without a summary (exit $rc); server log:"
    tail -30 "$T/server.log"
    fail=$((fail + 1))
else
    pass=$((pass + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")))
    fail=$((fail + $(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")))
    skip=$((skip + $(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")))
    if [ "$rc" -ne 0 ] && grep -q ' 0 failed' <<<"$line"; then
        echo "FAIL: the browser tests exited with status $rc"
        fail=$((fail + 1))
    fi
fi
[ "$fail" -ne 0 ] && [ -f "$T/server.log" ] && tail -30 "$T/server.log"
echo "screenshots: $(ls "$art"/*.png 2>/dev/null | wc -l) in $art"
summary
