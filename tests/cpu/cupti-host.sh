#!/usr/bin/env bash
# cupti-host.sh - the runner's profiler against the toolkit's real CUPTI, with no GPU:
#   1. judge/runner/cupti_host.h (the C copy of cupti_profiler_host.h's structs) against the real
#      header: every size, offset, enum value and _STRUCT_SIZE (tests/cpu/cupti_host_abi.cpp,
#      compiled by g++; skipped without g++ or the header);
#   2. the profile's metric table against the real host library for the H200's chip, GH100
#      (tests/cpu/cupti_host_check.c: every name known, the set in one configuration, its
#      passes within BW_PROFILE_MAX_PASSES; skipped without libcupti and libnvperf_host);
#   3. the runner, in its sandbox on the fake CUDA driver, opening that real library as it does
#      on a GPU (--cupti): libnvperf preloaded, every entry point resolved, cuptiGetVersion
#      answered, and then CUPTI's first call that needs a real driver refused, in CUPTI's words
#      (what must not happen: a missing entry point, a library that does not load, a dead runner).
# The library's host API needs no GPU; what a real GPU adds (the counter availability image, the
# range profiler itself) is tests/gpu/profile.sh's.
#   tests/cpu/cupti-host.sh BUILD        (CUPTI_CHIP=AD102 for another chip)
set -u
build=${1:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
chip=${CUPTI_CHIP:-GH100}
pass=0 fail=0 skip=0

inc=
for d in "$cuda/include" "$cuda/extras/CUPTI/include"; do
    [ -e "$d/cupti_profiler_host.h" ] && inc=$d && break
done
libdir=
for d in "$cuda/extras/CUPTI/lib64" "$cuda/lib64" "$cuda/lib"; do
    for f in libcupti.so.13 libcupti.so libcupti.so.12; do
        [ -e "$d/$f" ] && [ -e "$d/libnvperf_host.so" ] && libdir=$d lib=$d/$f && break 2
    done
done
mkdir -p "$build/tests"

# 1. The copy's layout against the real header.
if [ -z "$inc" ]; then
    echo "skip - cupti_host.h against cupti_profiler_host.h: no cupti_profiler_host.h under $cuda"
    skip=$((skip + 1))
elif ! command -v "${CXX:-g++}" >/dev/null; then
    echo "skip - cupti_host.h against cupti_profiler_host.h: no C++ compiler (${CXX:-g++})"
    skip=$((skip + 1))
elif "${CXX:-g++}" -std=c++17 -fsyntax-only -Wall -Werror -I. -isystem "$inc" \
    -isystem "$cuda/include" tests/cpu/cupti_host_abi.cpp >"$build/tests/cupti_host_abi.log" 2>&1; then
    echo "ok - judge/runner/cupti_host.h matches $inc/cupti_profiler_host.h (sizes, offsets, enums, _STRUCT_SIZE)"
    pass=$((pass + 1))
else
    grep -E "error" "$build/tests/cupti_host_abi.log" | head -n 20
    echo "FAIL - judge/runner/cupti_host.h differs from $inc/cupti_profiler_host.h (above)"
    fail=$((fail + 1))
fi

# 2. The metric table against the real host library.
out=$build/tests/cupti_host_check
if [ -z "$libdir" ] || [ -z "$inc" ]; then
    echo "skip - the metric table against CUPTI's host library: no libcupti with libnvperf_host.so under $cuda"
    skip=$((skip + 1))
elif [ ! -e "$build/libwire.a" ] || [ ! -e "$build/libcommon.a" ]; then
    echo "skip - the metric table against CUPTI's host library: needs make all ($build/libwire.a)"
    skip=$((skip + 1))
elif ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Werror -I. -isystem "$inc" -isystem "$cuda/include" \
    -o "$out" tests/cpu/cupti_host_check.c "$build/libwire.a" "$build/libcommon.a" \
    "$lib" -Wl,-rpath,"$libdir" -ljansson -lm >"$out.log" 2>&1; then
    cat "$out.log"
    echo "FAIL - build of cupti_host_check"
    fail=$((fail + 1))
else
    # CUPTI opens libnvperf_host.so by name: from its own folder here (the runner preloads it).
    LD_LIBRARY_PATH=$libdir "$out" "$chip" >"$out.out" 2>&1
    cat "$out.out"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out.out" | tail -n 1)
    if [ -n "$line" ]; then
        pass=$((pass + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")))
        fail=$((fail + $(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")))
    else
        echo "FAIL - cupti_host_check ended without its summary (with $lib)"
        fail=$((fail + 1))
    fi
fi

# 3. The runner opening the real library (on the fake driver, which CUPTI cannot profile).
fake=$build/tests/fake
if [ -z "$libdir" ]; then
    echo "skip - the runner opening the real CUPTI: no libcupti with libnvperf_host.so under $cuda"
    skip=$((skip + 1))
elif [ ! -e "$fake/libcuda.so.1" ] || [ ! -x "$build/bin/judged" ] || [ ! -x "$build/bin/blockwise-runner" ]; then
    echo "skip - the runner opening the real CUPTI: needs make all ($fake/libcuda.so.1, $build/bin/judged)"
    skip=$((skip + 1))
else
    tmp=$(mktemp -d)
    cat >"$tmp/runner" <<SH
#!/bin/sh
LD_LIBRARY_PATH=$(realpath "$fake") exec $(realpath "$build/bin/blockwise-runner") "\$@"
SH
    chmod +x "$tmp/runner"
    problem=tests/fixtures/fake-gpu/fake-add
    BLOCKWISE_RUNNER=$tmp/runner HOME=$tmp timeout -k 5 120 "$build/bin/judged" check --json --profile \
        --cupti "$lib" "$problem" "$problem/solution.cu" >"$tmp/p.json" 2>"$tmp/p.err"
    got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["profile"]; print(d["verdict"], p["available"], p.get("why", ""))' "$tmp/p.json" 2>&1)
    if [[ "$got" == "AC False CUPTI: cuptiProfilerInitialize: "* ]] || [[ "$got" == "AC False CUPTI: cuptiProfilerDeviceSupported: "* ]]; then
        echo "ok - the runner loads $lib in its sandbox, resolves every entry point and reports CUPTI's refusal of the fake driver: ${got#AC False }"
        pass=$((pass + 1))
    else
        echo "FAIL - the runner with $lib on the fake driver: $got $(tail -n 3 "$tmp/p.err")"
        fail=$((fail + 1))
    fi
    rm -rf "$tmp"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
