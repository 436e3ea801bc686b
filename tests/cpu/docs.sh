#!/usr/bin/env bash
# docs.sh - documentation that is generated or cross-referenced stays true.
set -u
pass=0 fail=0
check() { # NAME COMMAND...
    if "${@:2}" >/dev/null 2>&1; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
check "docs/limits.md matches common/limits.h" diff <(scripts/limits-doc.sh) docs/limits.md
unjoined='| `\` |' # a #define continued on the next line, read as its backslash
check "every limit in docs/limits.md has its value" bash -c "! grep -qF '$unjoined' docs/limits.md"
check "README names the two commands" grep -q 'make test' README.md
for d in docs/*.md; do
    check "$d is referenced from README.md or another doc" grep -rqF "$(basename "$d")" README.md docs --exclude="$(basename "$d")"
done
for d in problems/*/; do
    [ -f "$d/problem.json" ] || continue
    id=$(basename "$d")
    check "docs/speed-of-light.md has a row for $id (a figure or why not)" grep -qF "| $id |" docs/speed-of-light.md
done
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
