#!/usr/bin/env bash
# limits-doc.sh - renders common/limits.h as docs/limits.md, so the documented
# limits can never drift from the enforced ones (tests/cpu/docs.sh checks it).
#   scripts/limits-doc.sh > docs/limits.md
set -euo pipefail
cd "$(dirname "$0")/.."
cat <<'HEAD'
# Limits

Every hard limit of Blockwise, generated from `common/limits.h` by
`scripts/limits-doc.sh` (do not edit by hand). Each check that enforces one
names it in its error message.

HEAD
# A #define that clang-format wrapped (a trailing backslash) is joined into one line first.
awk '
/^\/\* --- / { t=$0; sub(/^\/\* --- /,"",t); sub(/ -+ *\*\/$/,"",t); printf "\n## %s\n\n| name | value | meaning |\n|---|---|---|\n", t; next }
/^#define BW_/ && $2 !~ /_H$/ {
    name=$2; rest=$0; sub(/^#define [A-Z0-9_]+ +/,"",rest)
    value=rest; sub(/ *\/\*.*$/,"",value)
    comment=rest; if (comment ~ /\/\*/) { sub(/^.*\/\* */,"",comment); sub(/ *\*\/$/,"",comment) } else comment=""
    gsub(/\|/,"\\|",comment)
    printf "| `%s` | `%s` | %s |\n", name, value, comment
}' <(sed -e ':a' -e '/\\$/N; s/[[:space:]]*\\\n[[:space:]]*/ /; ta' common/limits.h)
