#!/usr/bin/env bash
# huge.sh - on the GPU: vector-add's and relu's last test, "past 2^31
# N=2147483777" (8.6 GB of output), checked by sample (judge/worker/checks.h):
# the solutions are Accepted with that test sampled, wrong/int32_offsets.* get
# their Runtime Error there, and each judging's time is printed with where it
# went, beside the same judging of a copy of the problem without that test (what
# the test adds: the target is a few hundred ms, a Run of vector-add ~0.5 s).
#   tests/gpu/huge.sh BUILD                  CUDA controls (part of make gpu-test)
#   LANGUAGE=all tests/gpu/huge.sh BUILD     CUDA and Triton (solution.py, int32_offsets.py)
# HUGE_MAX_TESTS_MS (default 3000): a judging whose tests take longer fails (they
# took ~17 s when the test's outputs crossed to the judge whole).
set -u
build=${1:-build}
judged=$build/bin/judged
language=${LANGUAGE:-cuda}
max_tests_ms=${HUGE_MAX_TESTS_MS:-3000}
pass=0 fail=0 skip=0
if [ ! -e /dev/nvidia0 ] && ! command -v nvidia-smi >/dev/null; then
    echo "skip: no GPU on this machine"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@" 2>/dev/null; }
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }

# judge NAME DIR FILE: a Run (--tests-only) of FILE against DIR into $T/NAME.json, its
# wall time in $wall_ms and the peak GPU memory nvidia-smi saw meanwhile in $peak.
judge() {
    local name=$1 dir=$2 file=$3 sampler=
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$T/$name.mem" 2>/dev/null &
        sampler=$!
    fi
    local s0=$(date +%s%N)
    timeout 300 "$judged" check --json --tests-only "$dir" "$file" >"$T/$name.json" 2>"$T/$name.err"
    wall_ms=$((($(date +%s%N) - s0) / 1000000))
    if [ -n "$sampler" ]; then
        kill "$sampler" 2>/dev/null
        wait "$sampler" 2>/dev/null
        peak=$(sort -n "$T/$name.mem" | tail -1)
        peak="${peak:-?} MiB"
    else
        peak="unknown"
    fi
}

# Where a judging's time went, in one line.
breakdown() {
    field "$1" '"judging %d ms (compile %d, runners %d, tests %d: reference wait %d, submission %d [%s], compare %d)" % (d["total_ms"], d["compile_ms"], d["timing"]["runners_ms"], d["timing"]["tests_ms"], d["timing"]["tests_breakdown"]["reference_wait_ms"], d["timing"]["tests_breakdown"]["submission_ms"], ", ".join("%s %d" % (k, d["timing"]["tests_breakdown"]["submission_%s_ms" % k]) for k in ("alloc", "setup", "launch", "checks", "return", "free")), d["timing"]["tests_breakdown"]["compare_ms"])'
}

for p in vector-add relu; do
    dir=problems/$p
    # The same problem without its last test: what that test adds to a Run.
    small=$T/$p
    cp -r "$dir" "$small"
    python3 - "$small/problem.json" <<'PY'
import json, sys
path = sys.argv[1]
d = json.load(open(path))
d["tests"] = [t for t in d["tests"] if not t.get("name", "").startswith("past 2^31")]
json.dump(d, open(path, "w"), indent=1)
PY
    files=(solution.cu wrong/int32_offsets.cu)
    [ "$language" = all ] || [ "$language" = triton ] && files+=(solution.py wrong/int32_offsets.py)
    [ "$language" = triton ] && files=(solution.py wrong/int32_offsets.py)
    for f in "${files[@]}"; do
        name=$p-$(basename "$f" | tr . -)
        judge "$name" "$dir" "$dir/$f"
        got=$(field "$T/$name.json" 'd["verdict"]')
        last=$(field "$T/$name.json" 'd["tests"][-1]["name"]')
        case $f in
        solution.*)
            sampled=$(field "$T/$name.json" '(lambda t: (t["verdict"], bool(t["detail"].get("sampled")), t["detail"]["outputs"][0]["checked"], t["detail"]["outputs"][0]["count"], t["detail"]["outputs"][0].get("scanned_unwritten")))(d["tests"][-1])')
            tests_ms=$(field "$T/$name.json" 'round(d["timing"]["tests_ms"])')
            if [ "$got" = AC ] && [[ "$sampled" == "('AC', True, "*", 2147483777, 0)" ]]; then
                ok "$p/$f: Accepted, $last checked by sample $sampled; ${wall_ms} ms wall, $(breakdown "$T/$name.json"); peak GPU memory $peak"
            else
                bad "$p/$f: $got $(field "$T/$name.json" 'd["message"]') (last test: $last $sampled) $(tail -c 300 "$T/$name.err")"
            fi
            if [ -n "$tests_ms" ] && [ "$tests_ms" -le "$max_tests_ms" ]; then
                ok "$p/$f: the tests took $tests_ms ms (at most $max_tests_ms)"
            else
                bad "$p/$f: the tests took ${tests_ms:-?} ms (more than $max_tests_ms)"
            fi
            judge "$name-small" "$small" "$dir/$f"
            with=$(field "$T/$name.json" 'round(d["total_ms"])')
            without=$(field "$T/$name-small.json" 'round(d["total_ms"])')
            if [ "$(field "$T/$name-small.json" 'd["verdict"]')" = AC ] && [ -n "$with" ] && [ -n "$without" ]; then
                ok "$p/$f: $last adds $((with - without)) ms to the judging ($with ms with it, $without ms without; tests $(field "$T/$name.json" 'round(d["timing"]["tests_ms"])') and $(field "$T/$name-small.json" 'round(d["timing"]["tests_ms"])') ms; ${wall_ms} ms wall without it)"
            else
                bad "$p/$f without $last: $(field "$T/$name-small.json" 'd["verdict"], d["message"]') $(tail -c 300 "$T/$name-small.err")"
            fi
            ;;
        *)
            msg=$(field "$T/$name.json" 'd["message"]')
            hint=$(field "$T/$name.json" '[t["detail"].get("hint") for t in d["tests"] if t.get("detail")][-1]')
            if [ "$got" = RE ] && [[ "$msg" == "test past 2^31 N=2147483777: CUDA_ERROR_ILLEGAL_ADDRESS"* ]] &&
                [[ "$hint" == *"more than 2^31 elements"* ]]; then
                ok "$p/$f: Runtime Error at the past-2^31 test, \"$msg\"; ${wall_ms} ms wall, $(breakdown "$T/$name.json"); peak GPU memory $peak"
            else
                bad "$p/$f: $got \"$msg\" (wanted RE at past 2^31 N=2147483777 with the 2^31 hint; hint: ${hint:-none}) $(tail -c 300 "$T/$name.err")"
            fi
            ;;
        esac
    done
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
