#!/usr/bin/env bash
# pack-out.sh - keeps a GPU call's $OUT within what the device tool brings
# back (8 files; a file over that count, or in a folder too deep, is left on
# the machine): when DIR holds more than 8 files, every file whose name
# matches none of the KEEP patterns (shell globs, matched against the path
# under DIR) moves into DIR/rest.tar.gz. 8 files or fewer: nothing moves.
#   scripts/pack-out.sh DIR KEEP...        e.g. scripts/pack-out.sh "$OUT" summary.txt '*.log'
set -u
dir=$1
shift
[ -d "$dir" ] || exit 0
mapfile -t files < <(cd "$dir" && find . -type f ! -name rest.tar.gz | sed 's|^\./||' | sort)
[ ${#files[@]} -le 8 ] && exit 0
pack=()
for f in "${files[@]}"; do
    keep=
    for k in "$@"; do
        # shellcheck disable=SC2053 # $k is a glob on purpose
        [[ "$f" == $k ]] && keep=1
    done
    [ -z "$keep" ] && pack+=("$f")
done
[ ${#pack[@]} -eq 0 ] && exit 0
(cd "$dir" && tar czf rest.tar.gz "${pack[@]}" && rm -f "${pack[@]}" && find . -mindepth 1 -type d -empty -delete) ||
    { echo "pack-out: could not pack $dir" >&2; exit 1; }
echo "pack-out: ${#pack[@]} files of $dir in rest.tar.gz (tar xzf it)"
