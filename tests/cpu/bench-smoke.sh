#!/usr/bin/env bash
# bench-smoke.sh - make bench's learner-felt latency suite (tests/bench/latency.sh)
# runs end to end on this machine, on the fake CUDA driver and the fake-add
# fixture, and its server part (tests/bench/server.sh) at a small size, so that
# neither rots between the GPU machine's rare runs. Its
# figures here mean nothing (the fake driver, 2 CPUs): only that every line of
# the table is there and every verdict is the expected one.
#   tests/cpu/bench-smoke.sh BUILD
set -u
build=${1:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
for need in "$build/tests/fake/libcuda.so.1" "$build/bin/blockwise-server" "$build/bin/judged"; do
    [ -e "$need" ] || { echo "  skip: needs make all ($need)"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$(realpath "$build/tests/fake")" \
    "$(realpath "$build/bin/blockwise-runner")" >"$tmp/runner"
chmod +x "$tmp/runner"
# Triton through the fake triton package, whose builds the fake driver runs
. tests/cpu/lib/fake-triton.sh
fake_triton_venv "$tmp/venv" && export BLOCKWISE_PYTHON=$tmp/venv/bin/python3
BLOCKWISE_RUNNER=$tmp/runner OUT=$tmp timeout 600 tests/bench/latency.sh "$build" --quick --slots "1 2" \
    --problems tests/fixtures/fake-gpu --ok fake-add/solution.cu --wa fake-add/starter.cu \
    --triton-solution launcher.py >"$tmp/table" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "latency.sh ran (exit 0)" || bad "latency.sh: exit $rc: $(tail -5 "$tmp/table")"
for s in 1 2; do
    got=$(python3 -c "
import json; d = json.load(open('$tmp/latency-slots$s.json'))
print(set(d['run']['verdicts']), d['burst']['verdicts'], d['burst_wa']['verdicts'], d['solutions'].get('fake-add', {}).get('verdict'), sorted(d['precision']))" 2>&1)
    want="{'AC'} {'AC': 8} {'WA': 8} AC ['2^15', '2^16']"
    [ $s = 2 ] && want="{'AC'} {'AC': 8} {'WA': 8} None ['2^15', '2^16']" # solutions once
    [ "$got" = "$want" ] && ok "slots=$s: every line measured, every verdict as expected" ||
        bad "slots=$s: $got"
done
grep -q 'slots=2 *burst 4x2' "$tmp/table" && ok "the table compares the slot counts" || bad "table: $(cat "$tmp/table")"
# Triton beside CUDA, in the first pass only, with the launcher form (fake-add's
# launcher.py, a solve(...)): fresh-edit Runs of it and of the starter, a launch-only
# edit of solve (every build from the cache), a burst, a Submit; each line with the
# judge's compile breakdown and its target.
got=$(python3 -c "
import json; d = json.load(open('$tmp/latency-slots1.json')); t = d['triton']
r = t['runs']
print(set(r['fake-add/launcher.py']['verdicts']), r['fake-add/launcher.py']['form'],
      set(r['fake-add/starter.py']['verdicts']), t['launch']['edit'],
      [c['compiled'] for c in t['launch']['compile']], [c['cached'] > 0 for c in t['launch']['compile']],
      t['burst']['verdicts'], t['submit']['verdicts'],
      t['skipped'], 'triton' in json.load(open('$tmp/latency-slots2.json')))" 2>&1)
want="{'AC'} launcher {'WA'} solve [0, 0, 0] [True, True, True] {'AC': 8} ['AC'] [] False"
[ "$got" = "$want" ] && ok "Triton beside CUDA (a launcher): Runs, an edit of solve compiling nothing, a burst, a Submit" ||
    bad "Triton parts: $got (want $want)"
for l in "Triton Run fake-add/starter.py" "Triton launch-only edit" "Triton burst" "Triton Submit"; do
    grep "slots=1 *$l" "$tmp/table" | grep -q "target" || bad "no \"$l\" line with its target in the table"
done
grep -q "slots=1 *  Triton Submit outside the judge *[0-9.]* s .*PyTorch's time: " "$tmp/table" &&
    ok "the Triton Submit's wait outside the judge and its PyTorch figures are named" ||
    bad "no outside line: $(grep "Triton Submit" "$tmp/table" | head -3)"
grep -q "slots=1 *Triton Run fake-add/launcher.py (launcher).*compile [0-9]* ms (CPU" "$tmp/table" &&
    ok "Triton lines carry the judge's compile breakdown" || bad "no compile breakdown: $(grep Triton "$tmp/table" | head -3)"
# The server part, small: 300 streams (past the default per-address connection
# limit) each get every event, 100 posts by 50 learners (past the default
# sign-ups per address) are each answered 201 and claimed once. A server
# default that turns the bench's loopback clients away shows here first.
OUT=$tmp/server STREAMS=300 SUBMISSIONS=100 WRK_SECONDS=1 timeout 120 tests/bench/server.sh "$build" \
    >"$tmp/server.txt" 2>&1
grep -q "^event streams: 300/300 open, 6000/6000 events delivered.*; 300 streams saw done" "$tmp/server.txt" &&
    ok "server bench: 300 streams from one address open, every event delivered" || bad "server bench streams: $(cat "$tmp/server.txt")"
grep -q "^submissions: 100 posted .*: 100 answered 201, 100 distinct ids, 100 queued in the database, 100 claimed (100 distinct)" \
    "$tmp/server.txt" && ok "server bench: 100 posts answered 201, each claimed once" ||
    bad "server bench submissions: $(grep submissions "$tmp/server.txt")"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
