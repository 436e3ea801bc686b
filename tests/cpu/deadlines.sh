#!/usr/bin/env bash
# deadlines.sh - tests/run-suite.sh ends a test program that hangs at its
# deadline: counted as a failure that names itself, with its log tail, its
# whole process group killed (a child that ignores SIGTERM too), and a ^C of
# the suite stops the program it runs. Runs run-suite.sh on a fake build of
# three small scripts with deadlines of a second.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
check() { # NAME COMMAND...
    if "${@:2}" >/dev/null 2>&1; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
tmp=$(mktemp -d /tmp/bw-deadlines.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build/tests" "$tmp/tests/cpu"

cat >"$tmp/build/tests/test_fast" <<'EOF'
#!/bin/sh
echo "ok   quick"
echo "1 passed, 0 failed, 0 skipped"
EOF
# Hangs after saying so; its child sleeps too (killed with the group).
cat >"$tmp/build/tests/test_hangs" <<EOF
#!/bin/sh
echo "waiting for a lease that never expires"
sleep 300 &
echo \$! >"$tmp/hangs.child"
wait
EOF
# Ignores SIGTERM, as does its child: only SIGKILL of the group ends them.
cat >"$tmp/build/tests/test_stubborn" <<EOF
#!/bin/sh
trap '' TERM
sleep 300 &
echo \$! >"$tmp/stubborn.child"
wait
wait
EOF
chmod +x "$tmp"/build/tests/*

start=$SECONDS
out=$(cd "$tmp" && BW_DEADLINE_S=1 BW_DEADLINE_GRACE_S=1 BW_DEADLINE_KILL_S=1 \
    timeout -k 5 60 "$repo/tests/run-suite.sh" cpu build 2>&1)
rc=$?
took=$((SECONDS - start))
echo "$out" | sed 's/^/    | /'

check "the suite fails" test "$rc" -eq 1
check "it ends within its deadlines (took ${took} s)" test "$took" -lt 20
check "the summary counts each timed-out program as one failure" \
    grep -qx '1 passed, 2 failed, 0 skipped' <<<"$out"
check "a timed-out program names itself" \
    grep -q '^  test_hangs: TIMED OUT: still running 2 s after it started (deadline 1 s, tests/run-suite.sh); stopped (SIGTERM)' <<<"$out"
check "one that ignores SIGTERM is killed" \
    grep -q '^  test_stubborn: TIMED OUT: .* killed (SIGKILL)' <<<"$out"
check "its log tail is shown" grep -q '^    | waiting for a lease that never expires' <<<"$out"
check "the failed list marks them" grep -qx 'failed: test_hangs (timed out), test_stubborn (timed out)' <<<"$out"
# Gone: no such process, or a zombie (killed, its parent too, not yet reaped).
gone() {
    local pid
    pid=$(cat "$1") || return 1
    ! kill -0 "$pid" 2>/dev/null || [ "$(ps -o stat= -p "$pid" | cut -c1)" = Z ]
}
check "the hung program's child is gone" gone "$tmp/hangs.child"
check "the stubborn program's child is gone" gone "$tmp/stubborn.child"

# A TERM to the suite (what ^C does to make's group) stops the program it runs.
rm -f "$tmp/build/tests/test_fast" "$tmp/build/tests/test_stubborn" "$tmp/hangs.child"
(cd "$tmp" && exec "$repo/tests/run-suite.sh" cpu build >"$tmp/int.out" 2>&1) &
suite=$!
for _ in $(seq 100); do [ -s "$tmp/hangs.child" ] && break; sleep 0.1; done
kill -TERM "$suite"
wait "$suite"
rc=$?
sleep 0.5
check "a stopped suite exits 130" test "$rc" -eq 130
check "and its program's child is gone" gone "$tmp/hangs.child"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
