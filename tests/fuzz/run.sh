#!/usr/bin/env bash
# run.sh - builds the parser fuzz targets with libFuzzer and runs each one.
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]     from the repository root
#
# SECONDS per target (default 30); TARGETs among expr, directive, problem, request,
# launcher (default all). Builds into build-fuzz/ with clang -fsanitize=fuzzer,address,undefined.
# New inputs go to build-fuzz/corpus-TARGET/ (the seed corpus in
# tests/fuzz/corpus/TARGET/ is only read); a crash leaves its input as
# build-fuzz/crash-TARGET-* and stops with exit status 1. After fixing the
# bug, copy that input into tests/fuzz/corpus/TARGET/ so that
# tests/unit/test_fuzz_replay.c replays it in `make test` forever.
set -eu
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(expr directive problem request launcher)
out=build-fuzz
mkdir -p "$out"
CC=${CLANG:-clang}
# The parsers and what they use; nothing that links CUDA. Only the problem
# loader and the request bodies need jansson (and its field reader).
deps=($(ls plan/directive*.c) plan/flags.c plan/tune.c plan/triton_params.c common/expr.c common/diag.c
      common/dtype.c common/language.c common/buf.c common/error.c common/util.c)
# The problem loader: problem/ but the bundles (load.h lists its files).
problem_deps=($(ls problem/*.c | grep -v bundle.c) common/json_reader.c
    common/verdict.c)
# The server's request bodies (server/bodies.h) and the JSON error writer.
request_deps=(server/api.c server/bodies.c server/http.c server/arena.c common/json_reader.c
    common/verdict.c common/log.c)
# A Triton launcher's answer (judge/worker/triton_launcher.c) and its recorded plans
# (plan/recorded.c): the Triton compile record's decoder and the plan checks, with the
# problem loader for the fixture problem the plans are checked against.
already='common/(expr|diag|dtype|language|buf|error|util|json_reader|verdict)\.c'
launcher_deps=(judge/worker/triton_launcher.c judge/worker/triton_compile.c judge/worker/compile.c
    wire/compile_wire.c plan/plan.c plan/plan_check.c plan/recorded.c plan/resolve.c
    plan/triton_variant.c plan/launcher_form.c judge/sandbox/sandbox.c judge/sandbox/sandbox_job.c
    judge/sandbox/spawn.c "${problem_deps[@]}" $(ls common/*.c | grep -vE "$already")
    -ljansson -lseccomp -lpthread)
status=0
for t in "${targets[@]}"; do
    bin=$out/fuzz_$t
    extra=()
    [ "$t" = problem ] && extra=("${problem_deps[@]}" -ljansson)
    [ "$t" = request ] && extra=("${request_deps[@]}" -ljansson -lmicrohttpd)
    [ "$t" = launcher ] && extra=("${launcher_deps[@]}")
    "$CC" -g -O1 -std=c11 -D_GNU_SOURCE -DBW_FUZZ_MAIN -I. \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -o "$bin" "tests/fuzz/fuzz_$t.c" "${deps[@]}" "${extra[@]}" -lm
    mkdir -p "$out/corpus-$t"
    dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    echo "fuzzing $t for ${seconds}s"
    if ! "$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$t-" "${dict[@]}" "$out/corpus-$t" "tests/fuzz/corpus/$t" \
        >"$out/fuzz_$t.log" 2>&1; then
        echo "fuzz_$t found a failure; see $out/fuzz_$t.log and $out/crash-$t-*"
        tail -n 40 "$out/fuzz_$t.log"
        status=1
    else
        grep -E '^stat::number_of_executed_units|^Done' "$out/fuzz_$t.log" || true
    fi
done
exit $status
