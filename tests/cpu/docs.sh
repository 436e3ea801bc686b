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
    number=$(grep -o '"number": *[0-9]*' "$d/problem.json" | grep -o '[0-9]*$')
    step=$(grep -o '"step": *[0-9]*' "$d/problem.json" | grep -o '[0-9]*$')
    check "docs/problem-catalogue.md lists $id as number $number, step $step" \
        grep -qF "| $number | $id | $step |" docs/problem-catalogue.md
done

# The repository stands on its own: nothing tracked cites the design notes the
# project started from (its own words are in docs/: style.md, problem-catalogue.md,
# the contracts), nor the folder they lived in. The bracketed letters keep this
# file from matching itself.
outside='\b(DESIG[N]|PROBLEM[S])(\.md\b| ?§)|\b(STYL[E]|GP[U])\.md\b|(^|[^[:alnum:]_./-])share[d]/|/work/share[d]\b'
citations=$(git grep -n -I -E "$outside" -- ':!web/node_modules' ':!web/package-lock.json' 2>/dev/null)
check "no tracked file cites a document outside the repository" test -z "$citations"
[ -z "$citations" ] || printf '%s\n' "$citations" | sed 's/^/     /'

# Every @launch line of the problems' controls fits 160 columns (issue 26): a longer one wants a
# @let or a continuation line (docs/submission-format.md). Continuation lines of a @launch count
# too. Both languages' controls: the Triton ones are launchers now, but split-k-matmul's (its
# SPLIT_K=1 rebuild goal needs a @const) and a few kept in the directive form on purpose still
# have @launch lines.
launch_files=(problems/*/*.cu problems/*/wrong/*.cu problems/*/*.py problems/*/wrong/*.py)
long_launches() { # FILE... : prints each @launch line over 160 columns; fails if there is one
    awk 'FNR == 1 { cont = 0 }
        { launch = $0 ~ /^[ \t]*(\/\/|#)[ \t]*@launch([ \t]|$)/ || cont
          if (launch && length($0) > 160) { print FILENAME ":" FNR ": " length($0) " columns"; bad = 1 }
          cont = launch && $0 ~ /\\[ \t]*$/ }
        END { exit bad }' "$@"
}
check "no @launch line of a problem's controls is over 160 columns" long_launches "${launch_files[@]}"
long_launches "${launch_files[@]}" >&2 || true

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
