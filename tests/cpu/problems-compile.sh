#!/usr/bin/env bash
# problems-compile.sh - every .cu of every problem compiles for sm_90a, and the
# shipped solutions do not spill registers.
#
#   tests/cpu/problems-compile.sh BUILD [PROBLEM...]
#
# Compiles like the judge does, as far as nvcc can: device code only, straight
# to a cubin for sm_90a, FTZ off and no fast math, each "// @const NAME=INT"
# passed as -DNAME=INT, each "// @flags" option passed through, and one build
# per combination of the "// @tune NAME=(v1, v2, ...)" values. It also
# checks that every kernel named by an @launch is an extern "C" __global__
# entry of the cubin. Needs nvcc (skips without it). Ends with
# "N passed, N failed, N skipped".
set -u
build=${1:-build}
shift || true
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
cuda_inc=${CUDA_HOME:-/usr/local/cuda}/include
pass=0 fail=0 skip=0
log_dir=$build/test-logs/problems-compile
mkdir -p "$log_dir"

if ! [ -x "$nvcc" ]; then
    echo "skip: no nvcc at $nvcc"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi

problems=("$@")
if [ ${#problems[@]} -eq 0 ]; then
    for d in problems/*/; do
        [ -f "$d/problem.json" ] && problems+=("$(basename "$d")")
    done
fi

for p in "${problems[@]}"; do
    dir=problems/$p
    for f in "$dir"/*.cu "$dir"/wrong/*.cu; do
        [ -f "$f" ] || continue
        name=${f#problems/}
        defs=()
        while read -r def; do
            defs+=("-D$def")
        done < <(sed -nE 's@^[[:space:]]*//[[:space:]]*\@const[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)=(-?[0-9]+).*@\1=\2@p' "$f")
        flags=()
        while read -r fl; do
            # shellcheck disable=SC2206
            flags+=($fl)
        done < <(sed -nE 's@^[[:space:]]*//[[:space:]]*\@flags[[:space:]]+(.*)$@\1@p' "$f")
        # One build per @tune combination (each value as -DNAME=VALUE), as the judge does.
        while IFS= read -r tune; do
            label=
            [ -n "$tune" ] && label=" [$(sed -e 's/-D//g' -e 's/ /,/g' <<<"$tune")]"
            log=$log_dir/$(tr '/ ,=' '____' <<<"$name$label").log
            # shellcheck disable=SC2086 # $tune is a list of -D options
            if ! "$nvcc" -cubin -arch=sm_90a -std=c++17 -I"$cuda_inc" -I"$cuda_inc/cccl" \
                -ftz=false -prec-div=true -prec-sqrt=true -fmad=true -Xptxas -v "${defs[@]}" $tune \
                "${flags[@]}" "$f" -o "$log_dir/out.cubin" </dev/null >"$log" 2>&1; then
                echo "FAIL $name$label: does not compile"
                sed 's/^/    | /' "$log" | head -20
                fail=$((fail + 1))
                continue
            fi
            missing=
            for k in $(sed -nE 's@^[[:space:]]*//[[:space:]]*\@launch[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*@\1@p' "$f"); do
                # An unmangled entry name proves the kernel is extern "C" __global__.
                if ! grep -q "Compiling entry function '$k'" "$log"; then
                    missing="$missing $k"
                fi
            done
            if [ -n "$missing" ]; then
                echo "FAIL $name$label: @launch names no extern \"C\" __global__ kernel:$missing"
                fail=$((fail + 1))
                continue
            fi
            if [ "$(basename "$f")" = solution.cu ] &&
                grep -Eq '[1-9][0-9]* bytes spill (stores|loads)' "$log"; then
                echo "FAIL $name$label: the solution spills registers"
                grep -E 'spill|registers' "$log" | sed 's/^/    | /'
                fail=$((fail + 1))
                continue
            fi
            res=$(grep -E 'Used [0-9]+ registers' "$log" | sed -E 's/.*(Used [0-9]+ registers).*/\1/' | paste -sd, -)
            echo "ok   $name$label ($res)"
            pass=$((pass + 1))
        done < <(python3 - "$f" <<'PY'
import itertools, re, sys
names, values = [], []
for line in open(sys.argv[1]):
    m = re.match(r"\s*//\s*@tune\s+([A-Za-z_]\w*)\s*=\s*\((.*)\)\s*$", line)
    if m:
        names.append(m.group(1))
        values.append([v.strip() for v in m.group(2).split(",")])
for combo in itertools.product(*values):
    print(" ".join(f"-D{n}={v}" for n, v in zip(names, combo)))
PY
        )
    done
done
rm -f "$log_dir/out.cubin"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
