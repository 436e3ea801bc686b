#!/usr/bin/env bash
# goals.sh - the learning goals for real on the GPU machine: the fixture
# tests/golden/problems/ok-goals has one goal of each kind (autotune,
# rebuild, sass, bandwidth, compare, roofline) plus goals that must fail; its
# solution.cu (float4, @tune BLOCK, @const DELAY) and scalar.cu (one float per
# thread, no @tune) are judged with `judged check --json` and every goal's
# status is checked, then rebuilds that do not compile or go wrong, Run mode
# and a rejected submission (no goals). First, the SASS check of test_goals on
# real NVRTC cubins with this machine's nvdisasm.
#   tests/gpu/goals.sh BUILD    (run from the repository root)
set -u
build=${1:-build}
judged=$build/bin/judged
problem=tests/golden/problems/ok-goals
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# goal FILE NAME -> "status|detail" of goal NAME in the JSON result FILE
goal() {
    python3 -c "
import json, sys
d = json.load(open('$1'))
g = [x for x in d.get('goals', []) if x['name'] == '$2']
print(g[0]['status'] + '|' + g[0]['detail'] if g else 'absent|')
" 2>/dev/null || echo "unreadable|"
}
field() { python3 -c "import json; d=json.load(open('$1')); print($2)" 2>/dev/null; }

# expect FILE NAME STATUS [TEXT]: goal NAME has STATUS, and its detail contains TEXT
expect() {
    local got
    got=$(goal "$1" "$2")
    if [ "${got%%|*}" = "$3" ] && { [ -z "${4:-}" ] || [[ "${got#*|}" == *"$4"* ]]; }; then
        ok "$(basename "$1" .json): $2 $3: ${got#*|}"
    else
        bad "$(basename "$1" .json): $2: expected $3${4:+ with \"$4\"}, got $got"
    fi
}

judge() { # NAME FILE [FLAGS...]: judges FILE into $tmp/NAME.json
    local name=$1 file=$2
    shift 2
    "$judged" check ${JUDGED_FLAGS:-} --json "$@" "$problem" "$file" >"$tmp/$name.json" 2>"$tmp/$name.err"
}
report() { # NAME FILE [FLAGS...]: the text report of judging FILE into $tmp/NAME.txt
    local name=$1 file=$2
    shift 2
    "$judged" check ${JUDGED_FLAGS:-} "$@" "$problem" "$file" >"$tmp/$name.txt" 2>&1
}

if [ ! -x "$judged" ] || [ ! -x "$build/tests/test_goals" ]; then
    echo "FAIL $judged or $build/tests/test_goals is not built"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

# 1. The SASS scan on real cubins (float4 copy vs scalar copy) with the real disassembler.
if BLOCKWISE_GPU_TESTS=1 "$build/tests/test_goals" sass_real >"$tmp/sass.log" 2>&1 &&
    grep -q '^ok   sass_real_cubins' "$tmp/sass.log"; then
    ok "real cubins: $(grep info: "$tmp/sass.log" | sed 's/^ *info: //')"
else
    bad "real cubins: $(tail -n 5 "$tmp/sass.log")"
fi

# 2. solution.cu: Accepted, and every goal as designed.
judge solution "$problem/solution.cu"
v=$(field "$tmp/solution.json" 'd["verdict"]')
[ "$v" = AC ] && ok "solution.cu is Accepted" || bad "solution.cu: verdict $v: $(head -c 400 "$tmp/solution.json") $(tail -n 3 "$tmp/solution.err")"
expect "$tmp/solution.json" sweep passed "2 configurations: autotune gain"
expect "$tmp/solution.json" delay passed "over the same kernel built with DELAY=100000"
expect "$tmp/solution.json" undeclared failed "declare SPLIT_K with @const or @tune"
expect "$tmp/solution.json" vector-access passed "found LDG.E.128"
expect "$tmp/solution.json" tensor-cores failed "no HMMA in the machine code"
expect "$tmp/solution.json" bandwidth passed "of the copy bandwidth"
expect "$tmp/solution.json" impossible failed "(500% required)"
expect "$tmp/solution.json" half-size passed "2^24 runs"
expect "$tmp/solution.json" speed passed "of the speed of light"
n=$(field "$tmp/solution.json" 'len(d["goals"])')
[ "$n" = 9 ] && ok "solution.cu: 9 goal outcomes" || bad "solution.cu: $n goal outcomes"
s=$(field "$tmp/solution.json" 'd["score"]')
report solution "$problem/solution.cu"
grep -q '^goals     6 of 9 passed' "$tmp/solution.txt" && grep -q '^verdict   Accepted' "$tmp/solution.txt" &&
    ok "solution.cu report: $(grep '^goals' "$tmp/solution.txt"), score $s" ||
    bad "solution.cu report: $(grep -A12 '^goals' "$tmp/solution.txt" | head -20)"

# 3. scalar.cu: Accepted too (goals never change the verdict), its goals fail where designed.
judge scalar "$problem/scalar.cu"
v=$(field "$tmp/scalar.json" 'd["verdict"]')
[ "$v" = AC ] && ok "scalar.cu is Accepted" || bad "scalar.cu: verdict $v"
expect "$tmp/scalar.json" sweep failed "this submission has no @tune"
expect "$tmp/scalar.json" delay failed "declare DELAY with @const or @tune"
expect "$tmp/scalar.json" vector-access failed "no LDG.E.128 in the machine code"
expect "$tmp/scalar.json" bandwidth passed
expect "$tmp/scalar.json" half-size passed
expect "$tmp/scalar.json" speed passed

# 4. Rebuilds that cannot be built, or that compute wrong results when rebuilt.
cat >"$tmp/assert.cu" <<'CU'
// @const DELAY=0
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)
static_assert(DELAY == 0, "DELAY must stay 0");
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}
CU
judge assert "$tmp/assert.cu"
expect "$tmp/assert.json" delay failed "does not compile with DELAY=100000"
cat >"$tmp/broken.cu" <<'CU'
// @const DELAY=0
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(x, y, out, N)
extern "C" __global__ void vector_add(const float *x, const float *y, float *out, long long n)
{
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    if (i < n)
        out[i] = DELAY ? 0.0f : x[i] + y[i];
}
CU
judge broken "$tmp/broken.cu"
v=$(field "$tmp/broken.json" 'd["verdict"]')
[ "$v" = AC ] && ok "broken.cu is Accepted as submitted" || bad "broken.cu: verdict $v"
expect "$tmp/broken.json" delay failed "Wrong Answer"

# 5. Run (tests only) and a rejected submission: no goals at all.
judge run "$problem/solution.cu" --tests-only
report run "$problem/solution.cu" --tests-only
n=$(field "$tmp/run.json" 'len(d["goals"])')
[ "$n" = 0 ] && ! grep -q '^goals ' "$tmp/run.txt" && ok "Run mode: no goals" || bad "Run mode: $n goals"
judge starter "$problem/starter.cu"
v=$(field "$tmp/starter.json" 'd["verdict"]')
n=$(field "$tmp/starter.json" 'len(d["goals"])')
[ "$v" = WA ] && [ "$n" = 0 ] && ok "a Wrong Answer has no goals" || bad "starter.cu: verdict $v, $n goals"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
