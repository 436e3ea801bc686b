#!/usr/bin/env bash
# web.sh - the web app's story on the GPU machine: the real blockwise-server
# and the real judged with the GPU. A learner submits vector-add's solution
# (Accepted, timed: the chart against the limits measured on this GPU), the
# off-by-one control (Wrong Answer: the mismatch table), the control
# without a tail mask (Memory Violation, explained) and, where the worker
# compiles Triton, the Triton solution (Accepted, timed).
#
#   tests/gpu/web.sh BUILD        (from the repository root; part of make gpu-test)
#
# With node, chromium and web/node_modules on this machine it drives the
# pages in headless Chromium (web/test/browser.mjs, BW_MODE=gpu) and takes
# screenshots; without them it makes the same submissions through the API
# (python3) and checks the results. Either way the three submissions are saved
# as JSON in ${OUT:-BUILD/test-artifacts}/web-gpu/, where tests/cpu/browser.sh
# can replay them (BW_GPU_RESULTS=that directory) to show them in the pages.
set -u
build=${1:-build}
bin=$build/bin
art=${OUT:-$build/test-artifacts}/web-gpu
pass=0 fail=0 skip=0
summary() {
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    exit $?
}
if [ ! -e /dev/nvidia0 ] && ! command -v nvidia-smi >/dev/null; then
    echo "skip: no GPU on this machine"
    skip=1
    summary
fi
for b in blockwise-server judged; do
    [ -x "$bin/$b" ] || {
        echo "FAIL: no $bin/$b"
        fail=1
        summary
    }
done
mkdir -p "$art"
T=$(mktemp -d /tmp/bw-web-gpu.XXXXXX)
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
web=web/dist
[ -f "$web/index.html" ] || { mkdir -p "$T/web" && echo '<!doctype html><title>Blockwise</title>' >"$T/web/index.html" && web=$T/web; }
cat >"$T/server.conf" <<EOF
listen = 127.0.0.1
port = $PORT
database = "$T/blockwise.db"
problems = problems
web = $web
threads = 8
pwhash_ops = 1
pwhash_mem_kib = 8192
lease = 60
claim_wait = 2
log_level = info
EOF
cleanup() {
    if [ -f "$T/pids" ]; then
        while read -r pid; do kill "$pid" 2>/dev/null; done <"$T/pids"
    fi
    cp "$T"/*.log "$art/" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
echo 'admin-password-1' >"$T/admin.pw"
"$bin/blockwise-server" -c "$T/server.conf" create-admin admin --password-file "$T/admin.pw" >"$T/cli.log" 2>&1 &&
    "$bin/blockwise-server" -c "$T/server.conf" create-worker gpu0 --token-file "$T/worker.token" >>"$T/cli.log" 2>&1 || {
    echo "FAIL: create-admin/create-worker"
    cat "$T/cli.log"
    fail=1
    summary
}
cache=${BW_JUDGED_CACHE:-$HOME/.cache/blockwise}

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if command -v node >/dev/null && [ -x "$CHROMIUM" ] && [ -d web/node_modules/playwright-core ] && [ "$web" = web/dist ]; then
    echo "in headless Chromium"
    abs_bin=$(realpath "$bin")
    abs_art=$(realpath "$art")
    root=$(pwd)
    out=$(cd web && BW_MODE=gpu BW_BASE=$BASE BW_TMP=$T BW_ARTIFACTS=$abs_art \
        BW_SERVER="$abs_bin/blockwise-server" BW_JUDGED="$abs_bin/judged" \
        BW_CONF="$T/server.conf" BW_WORKER_TOKEN="$T/worker.token" BW_JUDGED_CACHE="$cache" \
        BW_ROOT=$root CHROMIUM=$CHROMIUM timeout 900 node test/browser.mjs 2>&1)
    echo "$out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
    [ -n "$line" ] || line="0 passed, 1 failed, 0 skipped"
    pass=$((pass + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")))
    fail=$((fail + $(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")))
    skip=$((skip + $(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")))
    summary
fi

echo "through the API (no browser here: node, $CHROMIUM or web/node_modules is missing)"
"$bin/blockwise-server" -c "$T/server.conf" >"$T/server.log" 2>&1 &
echo $! >>"$T/pids"
for _ in $(seq 200); do curl -s "$BASE/api/health" >/dev/null 2>&1 && break; sleep 0.05; done
"$bin/judged" --server "$BASE" --token-file "$T/worker.token" --gpu 0 --cache "$cache" \
    --log-level info >"$T/judged.log" 2>&1 &
echo $! >>"$T/pids"
python3 - "$BASE" "$art" <<'PY'
import http.cookiejar, json, sys, time, urllib.request

base, art = sys.argv[1], sys.argv[2]
jar = http.cookiejar.CookieJar()
web = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
csrf = None
passed = failed = skipped = 0

def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if csrf and method != "GET":
        req.add_header("X-CSRF-Token", csrf)
    with web.open(req, timeout=30) as r:
        return json.loads(r.read() or b"null")

def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name + ("  " + detail if detail else ""))

def judge(problem, mode, file, saved_as):
    src = open(f"problems/{problem}/{file}").read()
    lang = "triton" if file.endswith(".py") else "cuda"
    sub = call("POST", "/api/submissions", {"problem": problem, "mode": mode, "source": src,
                                            "language": lang})
    until = time.time() + 300
    while time.time() < until:
        s = call("GET", f"/api/submissions/{sub['id']}")
        if s["state"] == "done":
            open(f"{art}/{saved_as}", "w").write(json.dumps(s, indent=1))
            return s
        time.sleep(1)
    return call("GET", f"/api/submissions/{sub['id']}")

try:
    csrf = call("POST", "/api/auth/signup", {"name": "gpu-learner", "password": "gpu-learner-password"})["csrf"]
    until = time.time() + 300
    while time.time() < until and call("GET", "/api/status")["workers"]["gpu"] == 0:
        time.sleep(1)
    check("the GPU worker connects", call("GET", "/api/status")["workers"]["gpu"] > 0)
    s = judge("vector-add", "submit", "solution.cu", "vector-add-submit.json")
    r = s.get("result") or {}
    check("the solution is Accepted and timed on this GPU",
          s.get("verdict") == "AC" and len(r.get("benches", [])) == 2 and s.get("score", 0) > 0
          and (r.get("gpu") or {}).get("copy_gbps", 0) > 0, json.dumps(s)[:400])
    s = judge("vector-add", "run", "wrong/one_short.cu", "vector-add-wrong.json")
    t = [x for x in (s.get("result") or {}).get("tests", []) if x.get("verdict") == "WA"]
    check("the off-by-one kernel is a Wrong Answer with a mismatch table",
          s.get("verdict") == "WA" and t and t[0]["detail"]["kind"] == "mismatch"
          and t[0]["detail"]["outputs"][0]["first"], json.dumps(s)[:400])
    s = judge("vector-add", "run", "wrong/no_mask.cu", "vector-add-mv.json")
    check("the kernel without a tail mask is a Memory Violation", s.get("verdict") == "MV", json.dumps(s)[:400])
    if call("GET", "/api/status")["workers"].get("languages", {}).get("triton", {}).get("gpu", 0):
        s = judge("vector-add", "submit", "solution.py", "vector-add-triton-submit.json")
        r = s.get("result") or {}
        check("the Triton solution is Accepted and timed on this GPU",
              s.get("verdict") == "AC" and s.get("language") == "triton"
              and len(r.get("benches", [])) == 2 and s.get("score", 0) > 0, json.dumps(s)[:400])
    else:
        skipped += 1
        print("skip the Triton solution: the worker registered no Triton (judged check x.py says why)")
except Exception as e:
    check("the API story", False, repr(e))
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
rc=$?
exit $rc
