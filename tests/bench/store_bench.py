#!/usr/bin/env python3
"""store_bench.py - submissions/s and claims/s through one or more servers
(tests/bench/store.sh runs it per backend and server count).

    store_bench.py URLS LEARNERS_JSON TOKENS_FILE N POSTERS CLAIMERS

URLS: comma-separated base URLs (requests go round robin). LEARNERS_JSON: a
list of {"cookie", "csrf"}. TOKENS_FILE: worker tokens, one a line (each
registered). Posts N Runs with POSTERS threads (keep-alive connections),
then claims them with CLAIMERS threads until none is left (each claim a
lease: the claims/s of a cluster of workers), and prints one JSON line.
Bounded: N posts, N claims, a 120 s deadline.
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse

urls, learners_file, tokens_file, n, posters, claimers = sys.argv[1:7]
servers = [urllib.parse.urlparse(u) for u in urls.split(",")]
learners = json.load(open(learners_file))
tokens = [t.strip() for t in open(tokens_file) if t.strip()]
n, posters, claimers = int(n), int(posters), int(claimers)
DEADLINE = time.time() + 120
SOURCE = "// @launch vector_add grid=(\n"
lock = threading.Lock()
counts = {"posted": 0, "post_errors": 0, "claimed": 0, "claim_errors": 0}


class Client:
    def __init__(self, i):
        self.i = i % len(servers)
        self.c = None

    def call(self, method, path, body, headers):
        for _ in range(3):
            try:
                if self.c is None:
                    u = servers[self.i]
                    self.c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
                h = dict(headers)
                h["Content-Type"] = "application/json"
                self.c.request(method, path, body=json.dumps(body), headers=h)
                r = self.c.getresponse()
                return r.status, r.read()
            except (OSError, http.client.HTTPException):
                self.c = None
        return 0, b""


def post(k):
    cl = Client(k)
    i = k
    while time.time() < DEADLINE:
        with lock:
            if counts["posted"] + counts["post_errors"] >= n:
                return
            counts["posted"] += 1
        who = learners[i % len(learners)]
        i += posters
        status, _ = cl.call("POST", "/api/submissions",
                            {"problem": "vector-add", "mode": "run", "source": SOURCE},
                            {"Cookie": who["cookie"], "X-CSRF-Token": who["csrf"]})
        if status != 201:
            with lock:
                counts["posted"] -= 1
                counts["post_errors"] += 1


def claim(k):
    cl = Client(k)
    auth = {"Authorization": "Bearer " + tokens[k % len(tokens)]}
    while time.time() < DEADLINE:
        status, _ = cl.call("POST", "/api/judge/claim", {"wait": 0}, auth)
        if status == 204:
            return
        with lock:
            if status == 200:
                counts["claimed"] += 1
            else:
                counts["claim_errors"] += 1
                return


def run(fn, threads):
    ts = [threading.Thread(target=fn, args=(k,)) for k in range(threads)]
    start = time.time()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.time() - start


post_s = run(post, posters)
claim_s = run(claim, claimers)
print(json.dumps({"servers": len(servers), "submissions": counts["posted"],
                  "submissions_per_s": round(counts["posted"] / post_s, 1),
                  "claims": counts["claimed"], "claims_per_s": round(counts["claimed"] / claim_s, 1),
                  "errors": counts["post_errors"] + counts["claim_errors"]}))
