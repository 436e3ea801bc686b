#!/usr/bin/env python3
"""scale.py - the learners of tests/cpu/scale.sh: many, on two servers, one of
which is killed with SIGKILL while they post.

    scale.py A_URL B_URL KILL_PID_FILE RESTART_SCRIPT LEARNERS PER_LEARNER OUT.json

Signs up LEARNERS learners (alternately on the two servers), then each posts
PER_LEARNER Runs, alternately to the two servers (a post that finds its
server away goes to the other), and follows each submission's event stream
on the server it did NOT post to, reconnecting with Last-Event-ID (to the
other server first) when a stream breaks, until the stream says "done". When
a third of the posts are answered, the server in KILL_PID_FILE is killed
with SIGKILL and RESTART_SCRIPT starts it again. Writes what it saw to
OUT.json: every 201's id, the verdict each stream ended with, the
reconnects. Every loop is bounded in count and time (DEADLINE_S).
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

DEADLINE_S = 300
SOURCE = "// @launch vector_add grid=(\n// a directive error: judged answers Compile Error without compiling\n"

a_url, b_url, pid_file, restart, learners, per = sys.argv[1:7]
out_path = sys.argv[7]
servers = [urllib.parse.urlparse(a_url), urllib.parse.urlparse(b_url)]
learners, per = int(learners), int(per)
start = time.time()
lock = threading.Lock()
state = {"posted": [], "post_failures": 0, "post_retries": 0, "verdicts": {}, "reconnects": 0,
         "streams_cross_server": 0, "killed_at": None, "restarted_at": None, "errors": []}
answered = threading.Semaphore(0)


def conn(i, timeout=30):
    u = servers[i]
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def request(i, method, path, body=None, headers=None):
    c = conn(i)
    try:
        h = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body)
            h["Content-Type"] = "application/json"
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        return r.status, r.getheaders(), r.read()
    finally:
        c.close()


def signup(n):
    name = "learner%03d" % n
    for attempt in range(20):
        i = (n + attempt) % 2
        try:
            status, headers, body = request(i, "POST", "/api/auth/signup",
                                            {"name": name, "password": "password-" + name})
        except OSError:
            time.sleep(0.2)
            continue
        if status == 201:
            cookie = [v.split(";")[0] for k, v in headers if k.lower() == "set-cookie"
                      and v.startswith("bw_session=")][0]
            return {"name": name, "cookie": cookie, "csrf": json.loads(body)["csrf"]}
        time.sleep(0.2)
    raise RuntimeError("cannot sign up " + name)


def follow(who, sid, first):
    """Reads submission sid's events until "done", on server `first`, then the other."""
    last_id = None
    i = first
    while time.time() - start < DEADLINE_S:
        headers = {"Cookie": who["cookie"], "Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        try:
            c = conn(i, timeout=20)
            c.request("GET", "/api/submissions/%d/events" % sid, headers=headers)
            r = c.getresponse()
            if r.status != 200:
                raise OSError("status %d" % r.status)
            event = None
            while True:
                line = r.readline()
                if not line:
                    raise OSError("stream ended before done")
                line = line.decode().rstrip("\n")
                if line.startswith("id: "):
                    last_id = line[4:]
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "done":
                    data = json.loads(line[6:])
                    with lock:
                        state["verdicts"][str(sid)] = data.get("verdict")
                    c.close()
                    return
        except (OSError, http.client.HTTPException, ValueError):
            with lock:
                state["reconnects"] += 1
            i = 1 - i
            time.sleep(0.2)
    with lock:
        state["errors"].append("submission %d: no done event within the deadline" % sid)


def learner(n, who, threads):
    for k in range(per):
        body = {"problem": "vector-add", "mode": "run", "source": SOURCE}
        # One key for every try of this post: a try whose answer the kill cut
        # may have made the submission; trying again must not make another.
        headers = {"Cookie": who["cookie"], "X-CSRF-Token": who["csrf"],
                   "Idempotency-Key": "scale-%d-%d" % (n, k)}
        sid = None
        for attempt in range(40):
            i = (n + k + attempt) % 2
            try:
                status, _, data = request(i, "POST", "/api/submissions", body, headers)
            except (OSError, http.client.HTTPException):
                with lock:
                    state["post_retries"] += 1
                time.sleep(0.1)
                continue
            if status in (201, 200):  # 200: an earlier try of this post made it
                sid = json.loads(data)["id"]
                break
            if status in (429, 503):
                time.sleep(0.2)
                continue
            with lock:
                state["errors"].append("post: %d %s" % (status, data[:200]))
            break
        if sid is None:
            with lock:
                state["post_failures"] += 1
            continue
        with lock:
            state["posted"].append(sid)
        answered.release()
        # The stream on the other server than the post's.
        t = threading.Thread(target=follow, args=(who, sid, 1 - i), daemon=True)
        t.start()
        threads.append(t)
        with lock:
            state["streams_cross_server"] += 1


def killer(total):
    for _ in range(total // 3):
        answered.acquire(timeout=DEADLINE_S)
    with open(pid_file) as f:
        pid = int(f.read().strip())
    os.kill(pid, signal.SIGKILL)
    state["killed_at"] = round(time.time() - start, 2)
    time.sleep(1.0)
    subprocess.run(["bash", restart], check=True, timeout=60)
    state["restarted_at"] = round(time.time() - start, 2)


def main():
    who = [None] * learners
    workers = []
    for n in range(learners):
        def one(n=n):
            who[n] = signup(n)
        t = threading.Thread(target=one)
        t.start()
        workers.append(t)
        if len(workers) >= 10:
            workers.pop(0).join()
    for t in workers:
        t.join()
    state["signed_up"] = round(time.time() - start, 2)
    kill = threading.Thread(target=killer, args=(learners * per,))
    kill.start()
    streams = []
    posters = [threading.Thread(target=learner, args=(n, who[n], streams)) for n in range(learners)]
    posting = time.time()
    for t in posters:
        t.start()
    for t in posters:
        t.join()
    state["post_seconds"] = round(time.time() - posting, 2)
    kill.join()
    for t in list(streams):
        t.join(max(1, DEADLINE_S - (time.time() - start)))
    state["seconds"] = round(time.time() - start, 2)
    with open(out_path, "w") as f:
        json.dump(state, f)


main()
