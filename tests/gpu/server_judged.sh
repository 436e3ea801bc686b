#!/usr/bin/env bash
# server_judged.sh - the full server + worker flow on the GPU machine, with
# real kernels: blockwise-server and `judged --server` on loopback judge
# vector-add's solution (Submit: Accepted with timings and a score), a
# kernel without the tail mask (Wrong Answer or Memory Violation as the
# problem declares), a trapping kernel (Runtime Error) and an endless one
# (Time Limit); then the leaderboard and the gradebook reflect them.
# Uses python3's standard library only (no curl or jq on the GPU machine).
#
#   tests/gpu/server_judged.sh BUILD_DIR
set -u
build=${1:-build}
if ! "$build/bin/judged" --help 2>&1 | grep -q -- '--server'; then
    echo "judged has no --server mode in this build"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
exec python3 - "$build" <<'PY'
import http.cookiejar, json, os, random, shutil, signal, subprocess, sys, tempfile, time, urllib.request

build = sys.argv[1]
passed = failed = 0
def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1; print("ok - " + name)
    else:
        failed += 1; print("FAIL - %s %s" % (name, detail))

tmp = tempfile.mkdtemp(prefix="bw-gpu-server.")
port = random.randint(20000, 40000)
base = "http://127.0.0.1:%d" % port
conf = os.path.join(tmp, "server.conf")
open(conf, "w").write(
    "port = %d\ndatabase = %s/db\nproblems = problems\nweb = \"\"\npwhash_ops = 1\n"
    "pwhash_mem_kib = 8192\nlease = 60\nclaim_wait = 5\nquota_in_flight = 20\n" % (port, tmp))
server_bin = os.path.join(build, "bin", "blockwise-server")
subprocess.run([server_bin, "-c", conf, "create-worker", "gpu0", "--token-file",
                os.path.join(tmp, "w.token")], check=True, stdout=subprocess.DEVNULL)
slog = open(os.path.join(tmp, "server.log"), "w")
jlog = open(os.path.join(tmp, "judged.log"), "w")
server = subprocess.Popen([server_bin, "-c", conf], stderr=slog)
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
csrf = ""

def call(method, path, body=None, expect_json=True):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if csrf:
        req.add_header("X-CSRF-Token", csrf)
    try:
        with opener.open(req, timeout=60) as r:
            text = r.read().decode()
            return r.status, (json.loads(text) if expect_json and text else text)
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        try:
            return e.code, json.loads(text)
        except ValueError:
            return e.code, text

for _ in range(100):
    try:
        if call("GET", "/api/health")[0] == 200:
            break
    except OSError:
        time.sleep(0.1)
judged = subprocess.Popen([os.path.join(build, "bin", "judged"), "--server", base, "--token-file",
                           os.path.join(tmp, "w.token"), "--gpu", "0", "--cache",
                           os.path.join(tmp, "cache")], stderr=jlog)
try:
    st, me = call("POST", "/api/auth/signup", {"name": "gpuuser", "password": "password-1"})
    csrf = me.get("csrf", "")
    controls = json.load(open("problems/vector-add/problem.json"))["controls"]
    tail_control = next((f for f in sorted(controls) if f.startswith("wrong/") and "mask" in f), None)
    cases = [("problems/vector-add/solution.cu", "submit", "AC"),
             ("problems/vector-add/wrong/noop.cu", "run", "WA"),
             ("tests/hostile/run/trap.cu", "run", "RE"),
             ("tests/hostile/run/endless.cu", "run", "TLE")]
    if tail_control:
        from_name = {"Accepted": "AC", "Wrong Answer": "WA", "Runtime Error": "RE", "Time Limit": "TLE",
                     "Memory Violation": "MV", "Input Modified": "IM"}
        cases.append(("problems/vector-add/" + tail_control, "run", from_name.get(controls[tail_control], "?")))
    ids = []
    for path, mode, want in cases:
        st, r = call("POST", "/api/submissions", {"problem": "vector-add", "mode": mode,
                                                  "source": open(path).read()})
        check("submit %s" % path, st == 201, r)
        ids.append(r.get("id") if isinstance(r, dict) else None)
    deadline = time.time() + float(os.environ.get("BW_GPU_TEST_WAIT", "600"))
    results = {}
    while time.time() < deadline and len(results) < len(ids):
        for i in ids:
            if i is None or i in results:
                continue
            st, r = call("GET", "/api/submissions/%d" % i)
            if st == 200 and r["state"] == "done":
                results[i] = r
        time.sleep(1)
    for (path, mode, want), i in zip(cases, ids):
        r = results.get(i, {})
        check("%s gets %s" % (path, want), r.get("verdict") == want,
              "got %s: %s" % (r.get("verdict"), r.get("message")))
    ac = results.get(ids[0], {})
    benches = (ac.get("result") or {}).get("benches", [])
    check("the Accepted Submit has timings, a score and the GPU",
          benches and all(b.get("median_ms", 0) > 0 for b in benches) and (ac.get("score") or 0) > 0
          and ac.get("gpu"), json.dumps(benches)[:300])
    st, board = call("GET", "/api/problems/vector-add/leaderboard")
    entries = [e for b in board.get("boards", []) for e in b["entries"]]
    check("the leaderboard shows the Accepted time on its GPU model",
          any(e["user"] == "gpuuser" and e["submission"] == ids[0] for e in entries), board)
    subprocess.run([server_bin, "-c", conf, "create-admin", "gpuadmin", "--password-file", "/dev/stdin"],
                   input=b"admin-password\n", stdout=subprocess.DEVNULL)
    jar.clear()
    st, me = call("POST", "/api/auth/signin", {"name": "gpuadmin", "password": "admin-password"})
    csrf = me.get("csrf", "")
    st, csv = call("GET", "/api/gradebook.csv", expect_json=False)
    row = next((l for l in csv.splitlines() if l.startswith("gpuuser,vector-add,")), "")
    cols = row.split(",")
    check("the gradebook has the learner solved with a score and time",
          len(cols) == 6 and cols[2] == "yes" and cols[3] != "" and cols[4] != "", row)
    st, workers = call("GET", "/api/admin/workers")
    w = workers.get("workers", [{}])[0]
    check("the worker registered its GPU's measured figures",
          (w.get("gpu") or {}).get("copy_gbps", 0) > 0, w.get("gpu"))
finally:
    judged.send_signal(signal.SIGTERM)
    try:
        judged.wait(timeout=60)
    except subprocess.TimeoutExpired:
        judged.kill()
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=30)
    if failed:
        for name in ("server.log", "judged.log"):
            print("--- " + name)
            print("".join(open(os.path.join(tmp, name)).readlines()[-30:]))
    shutil.rmtree(tmp, ignore_errors=True)
print("%d passed, %d failed, 0 skipped" % (passed, failed))
sys.exit(1 if failed else 0)
PY
