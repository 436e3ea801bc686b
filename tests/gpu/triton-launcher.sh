#!/usr/bin/env bash
# triton-launcher.sh - Triton launchers (solve(...), recorded in the compile sandbox)
# with the real Triton, on the GPU machine:
#   tests/gpu/triton-launcher.sh BUILD
#
# 1. build/tests/test_triton_launcher with BW_TRITON_REAL=1: the codecs, an autotuned
#    launcher compiled whole with real kernels (its builds found by key: the judge's
#    specialisation rules and the recorder's agree), the recording's cost per case, and
#    the hostile launchers of tests/hostile/triton/launcher/ (the golden files hold the
#    fake triton's register counts and skip).
# 2. The recorder against the real Triton's classes (JITFunction, Autotuner, Heuristics,
#    the active driver): `judged plan` of every launcher of
#    tests/fixtures/triton-launchers/ and of the converted controls records the same
#    launches with the real Triton as with the fake one (the softmax tutorial's grid
#    aside: it follows the real register count).
# 3. warmup()'s n_regs and n_spills, which the recorder reads from the cubin's .nv.info,
#    equal what Triton's own CompiledKernel reports from the CUDA driver
#    (cuFuncGetAttribute) for the tutorials' kernels.
# 4. Each launcher is Accepted on this GPU (judged check --tests-only), the issue's seed
#    also timed (a Submit: both autotune configs timed per shape); the vector-add tutorial as
#    written is rejected by the past-2^31 test alone, and Accepted with its program id in i64.
#
# Without Triton (no python with `import triton`) it skips cleanly. Python:
# $BLOCKWISE_PYTHON, else python3 on PATH (/opt/torch/.venv/bin/python3 there).
set -u
build=${1:-build}
py=${BLOCKWISE_PYTHON:-$(command -v python3 || true)}
judged=$build/bin/judged
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

if [ -z "$py" ] || ! "$py" -c 'import triton' >/dev/null 2>&1; then
    echo "skip triton-launcher: no Python with triton here (${py:-no python3}); set BLOCKWISE_PYTHON"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
for need in "$build/tests/test_triton_launcher" "$build/bin/blockwise-triton-compile" "$judged"; do
    [ -x "$need" ] || { echo "FAIL triton-launcher: $need is not built"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
done
echo "python: $py, Triton $("$py" -c 'import triton; print(triton.__version__)')"
dump=$(mktemp -d /tmp/bw-triton-launcher-XXXXXX)
trap 'rm -rf "$dump"' EXIT
fix=tests/fixtures/triton-launchers

# ---- 1. the unit tests with the real Triton ---------------------------------------------
log=$dump/unit.log
BW_TRITON_REAL=1 BLOCKWISE_PYTHON=$py BLOCKWISE_TRITON_COMPILE=$build/bin/blockwise-triton-compile \
    BW_TEST_DEADLINE_S=240 "$build/tests/test_triton_launcher" >"$log" 2>&1
sed 's/^/  | /' "$log" | grep -v '^  | ok ' | tail -n 60
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ -n "$line" ]; then
    p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + ${s:-0}))
    echo "test_triton_launcher (real Triton): $line"
else
    bad "test_triton_launcher (real Triton): no summary line"
fi

# ---- 2. the real Triton's plans are the fake's ---------------------------------------------
. tests/cpu/lib/fake-triton.sh
base=/usr/bin/python3
[ -x "$base" ] || base=$(command -v python3)
PATH=$(dirname "$base"):$PATH fake_triton_venv "$dump/fake" || bad "cannot make the fake triton's venv"
launches='[[[(l["kernel"], l["grid"] if "softmax_tutorial" not in "FILE" else None, l["args"], l["constexprs"], l["num_warps"], l["num_stages"]) for l in c.get("launches", [])] for c in cfg["cases"]] for cfg in d["configs"]]'
for spec in vector_add_seed:vector-add vector_add_tutorial:vector-add vector_add_leetgpu:vector-add \
    softmax_tutorial:softmax matmul_tutorial:autotuned-matmul matmul_descriptor_strides:autotuned-matmul; do
    file=$fix/${spec%%:*}.py problem=problems/${spec#*:}
    BLOCKWISE_PYTHON=$py timeout 300 "$judged" plan "$problem" "$file" >"$dump/real.json" 2>"$dump/real.err" &&
        BLOCKWISE_PYTHON=$dump/fake/bin/python3 timeout 300 "$judged" plan "$problem" "$file" >"$dump/fake.json" 2>"$dump/fake.err"
    rc=$?
    a=$(json "$dump/real.json" "${launches//FILE/$file}" 2>&1) b=$(json "$dump/fake.json" "${launches//FILE/$file}" 2>&1)
    [ $rc -eq 0 ] && [ -n "$a" ] && [ "$a" = "$b" ] &&
        ok "$file: the real Triton records the fake's plans (real: $(json "$dump/real.json" 'd["launcher"]["record_ms"]') ms)" ||
        bad "$file: exit $rc, the plans differ: $(head -c 300 "$dump/real.err")"
done
# the converted controls (tests/cpu/lib/same-plans.py: launches and buffers, a scratch
# buffer sized for the config that needs the most where the autotuned config decides)
for spec in vector-add softmax logsumexp transpose mean-variance online-softmax gemv \
    fused-multiply-add relu gelu silu dropout vector-sum vector-max l2-norm \
    sgemm matmul-bias-relu autotuned-matmul grouped-matmul block-pointer-matmul \
    kv-cache-append rope flash-attention sdpa sdpa:solution_gluon.py \
    vectorized-add cross-entropy layernorm-forward rmsnorm-forward \
    layernorm-backward:wrong/mean_over_block.py; do
    problem=${spec%%:*} file=solution.py
    [ "$problem" = "$spec" ] || file=${spec#*:}
    BLOCKWISE_PYTHON=$py timeout 300 "$judged" plan "problems/$problem" "problems/$problem/$file" >"$dump/real.json" &&
        "$judged" plan "problems/$problem" "$fix/directive-forms/$problem-${file//\//-}" >"$dump/directive.json"
    rc=$?
    got=$(python3 tests/cpu/lib/same-plans.py "$dump/directive.json" "$dump/real.json" 2>&1)
    [ $rc -eq 0 ] && [ "${got%% *}" -gt 0 ] 2>/dev/null && ok "problems/$problem/$file with the real Triton: its directive form's plans" ||
        bad "problems/$problem/$file: exit $rc, $got"
done

# ---- 3. n_regs from the cubin == the driver's -------------------------------------------------
cat >"$dump/regs.py" <<'EOF2'
import importlib.util, sys
import torch
sys.path.insert(0, "judge/triton")
import launcher  # the recorder: cubin_resources


def load(path):
    spec = importlib.util.spec_from_file_location("m%d" % abs(hash(path)), path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


x = torch.empty(1823, 781, device="cuda")
sm = load("tests/fixtures/triton-launchers/softmax_tutorial.py")
va = load("tests/fixtures/triton-launchers/vector_add_tutorial.py")
mm = load("tests/fixtures/triton-launchers/matmul_tutorial.py")
a = torch.empty(512, 512, device="cuda", dtype=torch.float16)
cases = {
    "softmax_kernel": lambda: sm.softmax_kernel.warmup(x, x, 781, 781, 1823, 781, BLOCK_SIZE=1024,
                                                       num_stages=4, num_warps=8, grid=(1,)),
    "add_kernel": lambda: va.add_kernel.warmup(x, x, x, 4096, BLOCK_SIZE=1024, grid=(1,)),
    "matmul_kernel": lambda: mm.matmul_kernel.fn.warmup(a, a, a, 512, 512, 512, 512, 1, 512, 1, 512, 1,
                                                        BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64,
                                                        GROUP_SIZE_M=8, ACTIVATION="", num_warps=8,
                                                        num_stages=3, grid=(1,)),
}
bad = 0
for name, warm in cases.items():
    k = warm()
    k._init_handles()
    regs, frame = launcher.cubin_resources(bytes(k.asm["cubin"]), k.metadata.name)
    if regs == k.n_regs and frame // 4 == k.n_spills:
        print("ok   %s: n_regs %d and n_spills %d from the cubin are the driver's" % (name, regs, frame // 4))
    else:
        print("FAIL %s: the cubin says %s registers, %d spills; the driver %d, %d"
              % (name, regs, frame // 4, k.n_regs, k.n_spills))
        bad += 1
sys.exit(1 if bad else 0)
EOF2
out=$(TRITON_CACHE_DIR=$dump/cache "$py" "$dump/regs.py" 2>&1)
echo "$out" | tail -n 20
pass=$((pass + $(grep -c '^ok ' <<<"$out")))
n=$(grep -c '^FAIL ' <<<"$out")
[ "$n" -gt 0 ] && fail=$((fail + n))
grep -qE '^(ok|FAIL) ' <<<"$out" || bad "the register check did not run"

# ---- 4. Accepted on this GPU ----------------------------------------------------------------
# Triton's vector-add tutorial keeps its offsets in 32 bits (`pid * BLOCK_SIZE` is i32): it passes
# every test under 2^31 elements, and vector-add's last test (N = 2^31 + 129, problems/vector-add's
# statement) rejects it with the hint that names the wrap. With the statement's one change (the
# program id widened to i64) the same file is Accepted below.
BLOCKWISE_PYTHON=$py timeout 400 "$judged" check --json --tests-only problems/vector-add "$fix/vector_add_tutorial.py" >"$dump/check.json"
rc=$?
got=$(json "$dump/check.json" '(d["verdict"], d["tests"][-1]["name"], all(t["verdict"] == "AC" for t in d["tests"][:-1]), "more than 2^31 elements" in d["tests"][-1]["detail"]["hint"])' 2>&1)
[ $rc -eq 1 ] && [ "$got" = "('RE', 'past 2^31 N=2147483777', True, True)" ] &&
    ok "vector_add_tutorial.py as the tutorial has it: every test under 2^31 elements passed, then Runtime Error at the past-2^31 test with the hint: $(json "$dump/check.json" 'd["tests"][-1]["detail"]["hint"]' | head -c 120)..." ||
    bad "vector_add_tutorial.py: exit $rc, $got $(json "$dump/check.json" 'd["message"]' 2>&1 | head -c 400)"
sed 's/pid = tl.program_id(axis=0)/pid = tl.program_id(axis=0).to(tl.int64)/' "$fix/vector_add_tutorial.py" >"$dump/vector_add_tutorial_i64.py"
for spec in vector_add_seed:vector-add "$dump/vector_add_tutorial_i64.py:vector-add" vector_add_leetgpu:vector-add \
    softmax_tutorial:softmax matmul_tutorial:autotuned-matmul; do
    file=${spec%%:*} problem=problems/${spec#*:}
    [[ "$file" == /* ]] || file=$fix/$file.py
    BLOCKWISE_PYTHON=$py timeout 400 "$judged" check --json --tests-only "$problem" "$file" >"$dump/check.json"
    rc=$?
    got=$(json "$dump/check.json" '(d["verdict"], d["executed"])' 2>&1)
    [ $rc -eq 0 ] && [ "$got" = "('AC', True)" ] &&
        ok "$file: Accepted on $(json "$dump/check.json" 'd["gpu"]["name"]') (compile $(json "$dump/check.json" 'round(d["timing"]["compile_ms"])') ms)" ||
        bad "$file: exit $rc, $got $(json "$dump/check.json" 'd["message"]' 2>&1 | head -c 400)"
done
BLOCKWISE_PYTHON=$py timeout 400 "$judged" check --json problems/vector-add "$fix/vector_add_seed.py" >"$dump/submit.json"
rc=$?
got=$(json "$dump/submit.json" '(d["verdict"], len(d["benches"]), all(b["samples"] >= 10 for b in d["benches"]))' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "('AC', 2, True)" ] &&
    ok "vector_add_seed.py Submitted: Accepted, both shapes timed over both autotune configs ($(json "$dump/submit.json" '[round(b["gbps"]) for b in d["benches"]]') GB/s)" ||
    bad "vector_add_seed.py Submit: exit $rc, $got"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
