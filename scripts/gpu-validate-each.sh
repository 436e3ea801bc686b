#!/usr/bin/env bash
# gpu-validate-each.sh - judged validate per problem, each under its own time
# limit, JSON per problem in $OUT; a table last. For GPU sessions.
#   scripts/gpu-validate-each.sh BUILD LIMIT_S [--tests-only] [PROBLEM...]
# LANGUAGE=cuda (or triton): only that language's controls.
set -u
build=$1 limit=$2
shift 2
flags=()
[ "${1:-}" = --tests-only ] && { flags+=(--tests-only); shift; }
[ -n "${LANGUAGE:-}" ] && flags+=(--language "$LANGUAGE")
out=${OUT:-/tmp/validate-each}
mkdir -p "$out"
ps=("$@")
[ ${#ps[@]} -eq 0 ] && ps=($(ls problems))
for p in "${ps[@]}"; do
    [ -f "problems/$p/problem.json" ] || continue
    s=$SECONDS
    timeout -k 5 "$limit" "$build/bin/judged" validate "${flags[@]}" --json "problems/$p" >"$out/v-$p.json" 2>"$out/v-$p.err"
    rc=$?
    python3 - "$out/v-$p.json" "$p" "$rc" $((SECONDS - s)) <<'PY'
import json, sys
path, p, rc, secs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
try:
    rows = json.load(open(path)).get(p, [])
except Exception:
    print(f"{p:22s} rc={rc} {secs}s  no JSON (timed out or crashed)")
    sys.exit()
bad = [f"{r['file']}: want {r['expected']} got {r['got']} ({(r['result'].get('message') or '')[:150]})" for r in rows if not r["ok"]]
print(f"{p:22s} rc={rc} {secs}s  {len(rows)-len(bad)}/{len(rows)} ok")
for b in bad:
    print("    " + b)
PY
done
