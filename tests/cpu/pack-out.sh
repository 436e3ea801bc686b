#!/usr/bin/env bash
# pack-out.sh - scripts/pack-out.sh keeps a GPU call's $OUT within the 8 files
# the device tool brings back: 8 files or fewer stay as they are; more, and
# every file no KEEP pattern matches moves into rest.tar.gz, its contents
# whole; a folder it empties goes. Runs the script on throw-away folders.
set -u
pass=0 fail=0
check() { # NAME CONDITION-STRING
    if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
tmp=$(mktemp -d /tmp/bw-pack-out.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
files() { (cd "$1" && find . -type f | sed 's|^\./||' | sort | paste -sd' ' -); }

# 8 files: nothing moves.
mkdir -p "$tmp/few"
for i in 1 2 3 4 5 6 7 8; do echo "$i" >"$tmp/few/f$i.json"; done
scripts/pack-out.sh "$tmp/few" summary.txt >/dev/null
check "8 files or fewer stay as they are" '[ "$(files "$tmp/few")" = "f1.json f2.json f3.json f4.json f5.json f6.json f7.json f8.json" ]'

# 12 files, two kept by name and glob, the rest (one in a sub-folder) archived.
mkdir -p "$tmp/many/deep"
echo summary >"$tmp/many/summary.txt"
echo log >"$tmp/many/a.log"
for i in 1 2 3 4 5 6 7 8 9; do echo "data $i" >"$tmp/many/d$i.json"; done
echo nested >"$tmp/many/deep/x.bin"
out=$(scripts/pack-out.sh "$tmp/many" summary.txt '*.log')
rc=$?
check "more than 8: exit 0 and says how many it packed ($out)" '[ $rc -eq 0 ] && [[ "$out" == *"10 files"* ]]'
check "the kept files stay, the rest is one archive, the emptied folder gone" \
    '[ "$(files "$tmp/many")" = "a.log rest.tar.gz summary.txt" ] && [ ! -d "$tmp/many/deep" ]'
mkdir -p "$tmp/unpacked"
tar xzf "$tmp/many/rest.tar.gz" -C "$tmp/unpacked"
check "the archive holds every packed file, whole" \
    '[ "$(files "$tmp/unpacked")" = "d1.json d2.json d3.json d4.json d5.json d6.json d7.json d8.json d9.json deep/x.bin" ] && [ "$(cat "$tmp/unpacked/d9.json")" = "data 9" ] && [ "$(cat "$tmp/unpacked/deep/x.bin")" = nested ]'

# A folder that does not exist: nothing to do.
scripts/pack-out.sh "$tmp/none" '*.log' >/dev/null 2>&1
rc=$?
check "a missing folder: exit 0, nothing made" '[ $rc -eq 0 ] && [ ! -e "$tmp/none" ]'

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
