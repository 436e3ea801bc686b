#!/usr/bin/env bash
# huge-fake.sh - tests checked by sample, and the deadline a run gets, on the
# fake CUDA driver (tests/fake/libcuda.c). On the GPU, vector-add's and relu's
# tests past 2^31 elements are over BW_FULL_CHECK_MAX_BYTES (1 GiB of outputs);
# here `judged --full-check-max-bytes` lowers the limit so that the last test
# of tests/fixtures/fake-gpu/fake-huge (N=300007, 1.2 MB) is checked the same
# way at a fake driver's cost: every element scanned for the judge's poison,
# the head, the tail and secret random elements compared with the reference
# gathered there (judge/worker/checks.h). Its controls are correct on the
# small tests and wrong on the huge one only. With every test of fake-add
# sampled (a limit of 1 byte), each of its controls still gets its verdict:
# Memory Violation, Input Modified, Runtime Error and Time Limit apply as before.
#   tests/cpu/huge-fake.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
fake=$build/tests/fake
problem=tests/fixtures/fake-gpu/fake-huge
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
jd() { timeout -k 5 120 "$judged" "$@"; }
limit=(--full-check-max-bytes 1048576) # 1 MiB: fake-huge's last test (1.2 MB) is over it

if [ ! -e "$fake/libcuda.so.1" ] || [ ! -x "$build/bin/blockwise-runner" ]; then
    echo "  skip: needs make all ($fake/libcuda.so.1, $build/bin/blockwise-runner)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
cat >"$tmp/runner" <<SH
#!/bin/sh
LD_LIBRARY_PATH=$(realpath "$fake") exec $(realpath "$build/bin/blockwise-runner") "\$@"
SH
chmod +x "$tmp/runner"
export BLOCKWISE_RUNNER=$tmp/runner HOME=$tmp
. tests/cpu/lib/fake-triton.sh
fake_triton_venv "$tmp/venv" && export BLOCKWISE_PYTHON=$tmp/venv/bin/python3

# Every control of fake-huge gets its verdict, the Triton ones included.
jd validate --json --tests-only "${limit[@]}" "$problem" >"$tmp/validate.json" 2>"$tmp/validate.err"
rc=$?
[ $rc -eq 0 ] && ok "validate: every control of fake-huge gets its verdict with its last test sampled" ||
    bad "validate exit $rc: $(json "$tmp/validate.json" '[(r["file"], r["got"], r["result"]["message"]) for r in d["fake-huge"] if not r["ok"]]' 2>&1 | head -c 600) $(head -c 300 "$tmp/validate.err")"
got=$(json "$tmp/validate.json" '[r["file"] for r in d["fake-huge"] if (r.get("result", {}).get("tests") or [{}])[-1].get("detail", {}).get("sampled")]' 2>&1)
[ "$got" = "['solution.cu', 'solution.py', 'wrong/last_wrong.cu', 'wrong/skip_one.cu']" ] &&
    ok "the CUDA and the Triton solution and both wrong controls were judged on the sampled test" ||
    bad "controls judged on the sampled test: $got (Triton: $(json "$tmp/validate.json" '[(r["file"], r["got"], r.get("reason")) for r in d["fake-huge"] if r["file"].endswith(".py")]' 2>&1))"

# check FILE [ARGS...]: judges FILE of fake-huge as a Run with a fixed seed into $tmp/v.json.
check() {
    local f=$1
    shift
    local s0=$(date +%s%N)
    jd check --json --tests-only --seed 1234abcd --log-level debug "$@" "$problem" "$problem/$f" \
        >"$tmp/v.json" 2>"$tmp/v.err"
    wall_ms=$((($(date +%s%N) - s0) / 1000000))
}

check solution.cu "${limit[@]}"
got=$(json "$tmp/v.json" '(d["verdict"], [bool(t["detail"].get("sampled")) for t in d["tests"]])' 2>&1)
[ "$got" = "('AC', [False, False, True])" ] &&
    ok "solution.cu: Accepted, only its last test checked by sample" || bad "solution.cu: $got"
checked=$(json "$tmp/v.json" 'd["tests"][-1]["detail"]["outputs"][0]["checked"]')
got=$(json "$tmp/v.json" '(lambda o: (o["count"], 65536 + 1024 < o["checked"] <= 65536 + 1024 + 4096, o["scanned_unwritten"], o["mismatches"]))(d["tests"][-1]["detail"]["outputs"][0])' 2>&1)
[ "$got" = "(300007, True, 0, 0)" ] &&
    ok "the sampled test: $checked of 300007 elements checked (head, tail, random), all scanned, none unwritten" ||
    bad "the sampled test's report: $got"
grep -q "reference case huge N=300007: $checked elements checked by sample" "$tmp/v.err" &&
    ok "the reference gathered the same $checked elements, nothing else" ||
    bad "the reference's log: $(grep -c "by sample" "$tmp/v.err") lines on a sampled case"

# Past the default limit (1 GiB), the same test is compared whole.
check solution.cu
got=$(json "$tmp/v.json" '(d["verdict"], [bool(t["detail"].get("sampled")) for t in d["tests"]])' 2>&1)
[ "$got" = "('AC', [False, False, False])" ] &&
    ok "at the default limit (1 GiB) every test of fake-huge is compared whole" || bad "default limit: $got"

# Wrong at the tail only: caught by the elements checked there, told like any mismatch.
check wrong/last_wrong.cu "${limit[@]}"
got=$(json "$tmp/v.json" '(d["verdict"], d["message"])' 2>&1)
want="('WA', 'test huge N=300007: 1 of $checked checked elements of out differs from the reference')"
[ "$got" = "$want" ] && ok "last_wrong.cu: $got" || bad "last_wrong.cu: $got, wanted $want"
got=$(json "$tmp/v.json" '(lambda m: (m["flat"], m["index"], m["got"] - m["expected"], m["reason"]))(d["tests"][-1]["detail"]["outputs"][0]["first"][0])' 2>&1)
[ "$got" = "(300006, [300006], 1.0, 'not equal')" ] &&
    ok "its mismatch names the index, the expected value and the one it got: $got" || bad "last_wrong.cu's mismatch: $got"
check wrong/last_wrong.cu
got=$(json "$tmp/v.json" 'd["message"]' 2>&1)
[ "$got" = "test huge N=300007: 1 element of out differs from the reference" ] &&
    ok "compared whole (the default limit), the same mismatch: $got" || bad "last_wrong.cu compared whole: $got"

# One element never written, almost surely outside the sample: the runner's scan sees it.
check wrong/skip_one.cu "${limit[@]}"
got=$(json "$tmp/v.json" '(lambda o: (d["verdict"], d["message"], o["scanned_unwritten"], o["unwritten"], o["mismatches"]))(d["tests"][-1]["detail"]["outputs"][0])' 2>&1)
[ "$got" = "('WA', 'test huge N=300007: 1 of 300007 elements of out was never written', 1, 1, 1)" ] &&
    ok "skip_one.cu: the poison scan of every element finds the one left unwritten" || bad "skip_one.cu: $got"

# A plan that hangs on the sampled test is still a Time Limit, at run_ms plus the allowance
# limits.h documents for the case's bytes (tests_allowance_ms).
check wrong/hang_big.cu "${limit[@]}"
got=$(json "$tmp/v.json" '(d["verdict"], d["message"], d["tests"][-1]["detail"]["limit_ms"])' 2>&1)
[ "$got" = "('TLE', 'test huge N=300007: the plan did not finish within 1000 ms', 1000)" ] &&
    ok "hang_big.cu: $got" || bad "hang_big.cu: $got"
deadline=$(json "$tmp/v.json" 'd["tests"][-1]["detail"]["deadline_ms"]')
want=$(python3 - "$checked" <<'PY'
import re, sys
consts = {}
for line in open("common/limits.h"):
    m = re.match(r"#define (BW_HARNESS_\w+|BW_GUARD_BYTES)\s+\(?([0-9][0-9ULL *]*)\)?", line)
    if m:
        consts[m.group(1)] = eval(m.group(2).replace("ULL", ""))
cont = open("common/limits.h").read().replace("\\\n", " ")
for name in ("BW_HARNESS_DEVICE_BYTES_PER_MS", "BW_HARNESS_HOST_BYTES_PER_MS"):
    m = re.search(r"#define %s\s+\(([0-9ULL *]+)\)" % name, cont)
    consts[name] = eval(m.group(1).replace("ULL", ""))
n, checked = 300007, int(sys.argv[1])
device = 3 * (4 * n + 2 * consts["BW_GUARD_BYTES"])  # x, y, out with their guard bands
host = checked * 8 + checked * 4                     # the indices sent, the fp32 elements back
us = device // (consts["BW_HARNESS_DEVICE_BYTES_PER_MS"] // 1000) + host // (consts["BW_HARNESS_HOST_BYTES_PER_MS"] // 1000)
print(1000 + consts["BW_HARNESS_BASE_MS"] + (us + 999) // 1000)
PY
)
[ "$deadline" = "$want" ] && [ "$wall_ms" -ge "$deadline" ] &&
    ok "its runner was stopped at the deadline limits.h documents: $deadline ms (run_ms 1000 + the allowance), the judging took $wall_ms ms" ||
    bad "hang_big.cu: deadline $deadline ms, documented $want ms, the judging took $wall_ms ms"

# Every test of fake-add sampled (a 1-byte limit): each control still gets its verdict,
# Memory Violation, Input Modified, Runtime Error, Time Limit and Wrong Answer included.
add=tests/fixtures/fake-gpu/fake-add
jd validate --json --tests-only --language cuda --full-check-max-bytes 1 "$add" >"$tmp/add.json" 2>"$tmp/add.err"
rc=$?
got=$(json "$tmp/add.json" 'sorted(set(r["got"] for r in d["fake-add"]) & {"AC", "IM", "MV", "RE", "TLE", "WA"})' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "['AC', 'IM', 'MV', 'RE', 'TLE', 'WA']" ] &&
    ok "fake-add with every test sampled: every CUDA control gets its verdict ($got)" ||
    bad "fake-add sampled: exit $rc, $(json "$tmp/add.json" '[(r["file"], r["got"], r["result"]["message"]) for r in d["fake-add"] if not r["ok"]]' 2>&1 | head -c 600)"
got=$(json "$tmp/add.json" '[all(t["detail"].get("sampled") for t in r["result"]["tests"]) for r in d["fake-add"] if r["file"] == "solution.cu"]' 2>&1)
[ "$got" = "[True]" ] && ok "fake-add's solution.cu: all four tests checked by sample" ||
    bad "fake-add's solution.cu tests: $got"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
