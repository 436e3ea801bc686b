#!/usr/bin/env bash
# problems-compile.sh - every .cu of every problem compiles for sm_90a, with
# NVRTC as the judge compiles it and with nvcc for ptxas' resource report; the
# shipped solutions do not spill registers.
#
#   tests/cpu/problems-compile.sh BUILD [PROBLEM...]
#
# Each "// @const NAME=INT" is passed as -DNAME=INT and each "// @flags"
# option passed through. NVRTC runs through tests/oracle/nvrtc_compile.c
# (built here); nvcc compiles device code only, straight to a cubin, FTZ off,
# no fast math, with -Xptxas -v. The check also proves that every kernel named
# by an @launch is an extern "C" __global__ entry of the cubin. Needs nvcc (skips without it). Ends with
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

cc=${CC:-gcc}
nvrtc_tool=$build/oracle/nvrtc_compile
mkdir -p "$build/oracle"
if ! "$cc" -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes \
    -Wstrict-prototypes -Wformat=2 -Wvla -isystem "$cuda_inc" tests/oracle/nvrtc_compile.c \
    -o "$nvrtc_tool" -L"${CUDA_HOME:-/usr/local/cuda}/lib64" -lnvrtc \
    -Wl,-rpath,"${CUDA_HOME:-/usr/local/cuda}/lib64"; then
    echo "FAIL cannot build tests/oracle/nvrtc_compile.c"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
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
        log=$log_dir/$(tr '/' '_' <<<"$name").log
        if ! "$nvrtc_tool" "$f" "${defs[@]}" "${flags[@]}" >"$log.nvrtc" 2>&1; then
            echo "FAIL $name: NVRTC rejects it"
            sed 's/^/    | /' "$log.nvrtc" | head -20
            fail=$((fail + 1))
            continue
        fi
        if ! "$nvcc" -cubin -arch=sm_90a -std=c++17 -I"$cuda_inc" -I"$cuda_inc/cccl" \
            -ftz=false -prec-div=true -prec-sqrt=true -fmad=true -Xptxas -v "${defs[@]}" \
            "${flags[@]}" "$f" -o "$log_dir/out.cubin" >"$log" 2>&1; then
            echo "FAIL $name: does not compile"
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
            echo "FAIL $name: @launch names no extern \"C\" __global__ kernel:$missing"
            fail=$((fail + 1))
            continue
        fi
        if [ "$(basename "$f")" = solution.cu ] &&
            grep -Eq '[1-9][0-9]* bytes spill (stores|loads)' "$log"; then
            echo "FAIL $name: the solution spills registers"
            grep -E 'spill|registers' "$log" | sed 's/^/    | /'
            fail=$((fail + 1))
            continue
        fi
        res=$(grep -E 'Used [0-9]+ registers' "$log" | sed -E 's/.*(Used [0-9]+ registers).*/\1/' | paste -sd, -)
        echo "ok   $name ($res)"
        pass=$((pass + 1))
    done
done
rm -f "$log_dir/out.cubin"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
