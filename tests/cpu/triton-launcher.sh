#!/usr/bin/env bash
# triton-launcher.sh - Triton launchers (solve(...), recorded in the Triton compile
# sandbox) through `judged`, with the fake triton package (tests/fake/triton):
#   - the problems' controls converted to the launcher form (the solution.py of the
#     problems the loop below lists; a wrong control of layernorm-backward, whose
#     solution.py keeps directives) record the same plans as their directive forms
#     (tests/fixtures/triton-launchers/directive-forms/): launches, grids, arguments and
#     offsets, constexprs, num_warps, num_stages, maxnreg, buffers
#     (tests/cpu/lib/same-plans.py);
#   - Triton's tutorials and a LeetGPU-style solve (tests/fixtures/triton-launchers/)
#     record, and compile: `judged check` stops after compiling where there is no GPU
#     (the GPU machine proves them Accepted: tests/gpu/triton-launcher.sh);
#   - the errors of the form: a solve with directives, kernels that nothing launches;
#   - a machine without Triton says so (exit 5).
#   tests/cpu/triton-launcher.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
jd() { timeout -k 5 180 "$judged" "$@"; }

if [ ! -x "$judged" ] || [ ! -x "$build/bin/blockwise-triton-compile" ]; then
    echo "  skip: needs make all"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# judged caches a GPU's figures under $HOME: a fake GPU a developer's run left there must
# not make these checks try to run kernels.
export HOME=$tmp
. tests/cpu/lib/fake-triton.sh
fake_triton_venv "$tmp/venv" && export BLOCKWISE_PYTHON=$tmp/venv/bin/python3
# No GPU here: `judged check` compiles, then says it cannot run (exit 4). A fake driver
# in the environment would run the kernels it knows; none of these.
unset BLOCKWISE_RUNNER
fix=tests/fixtures/triton-launchers

# ---- the converted controls: the directive forms' plans --------------------------------
# tests/cpu/lib/same-plans.py: every launch and buffer of every configuration and case
# (a scratch buffer sized for the config that needs the most where the config decides).
# PROBLEM compares problems/PROBLEM/solution.py, PROBLEM:FILE problems/PROBLEM/FILE, with
# $fix/directive-forms/PROBLEM-FILE (a / of FILE as -).
for spec in vector-add softmax logsumexp transpose mean-variance online-softmax gemv \
    fused-multiply-add relu gelu silu dropout vector-sum vector-max l2-norm \
    sgemm matmul-bias-relu autotuned-matmul grouped-matmul block-pointer-matmul \
    kv-cache-append rope flash-attention sdpa sdpa:solution_gluon.py \
    vectorized-add cross-entropy layernorm-forward rmsnorm-forward \
    layernorm-backward:wrong/mean_over_block.py; do
    problem=${spec%%:*} file=solution.py
    [ "$problem" = "$spec" ] || file=${spec#*:}
    jd plan "problems/$problem" "$fix/directive-forms/$problem-${file//\//-}" >"$tmp/directive.json" &&
        jd plan "problems/$problem" "problems/$problem/$file" >"$tmp/launcher.json"
    rc=$?
    got=$(python3 tests/cpu/lib/same-plans.py "$tmp/directive.json" "$tmp/launcher.json" 2>&1)
    read -r n larger <<<"$got"
    [ $rc -eq 0 ] && [ "$n" -gt 0 ] 2>/dev/null &&
        ok "problems/$problem/$file (a launcher) records the plans of its directive form ($n case plans$([ "$larger" = 0 ] || echo ", $larger scratch buffers sized for the config that needs the most"))" ||
        bad "problems/$problem/$file: exit $rc, $got"
done

# ---- the tutorials and a LeetGPU-style solve: recorded, then compiled -----------------
# FILE:PROBLEM:CONFIGS:WHAT
for spec in "vector_add_seed:vector-add:2:the issue's seed (autotune, lambda grid)" \
    "vector_add_tutorial:vector-add:1:tutorial 01 (DEVICE, asserts, meta grid)" \
    "vector_add_leetgpu:vector-add:1:LeetGPU-style solve(a, b, c, N) (the canonical order)" \
    "softmax_tutorial:softmax:1:tutorial 02 (warmup, n_regs, occupancy, persistent grid)" \
    "matmul_tutorial:autotuned-matmul:8:tutorial 03 (8 autotune configs, ACTIVATION='')" \
    "matmul_descriptor_strides:autotuned-matmul:1:tensor descriptors with the strides passed (the 1s folded)"; do
    IFS=: read -r file problem configs what <<<"$spec"
    jd plan "problems/$problem" "$fix/$file.py" >"$tmp/$file.json" 2>"$tmp/$file.err"
    rc=$?
    got=$(json "$tmp/$file.json" '(len(d["configs"]), all("launches" in c for cfg in d["configs"] for c in cfg["cases"]))' 2>&1)
    [ $rc -eq 0 ] && [ "$got" = "($configs, True)" ] &&
        ok "$file.py recorded: $what, $configs configuration(s), every case launches ($(json "$tmp/$file.json" 'd["launcher"]["record_ms"]') ms)" ||
        bad "$file.py: judged plan exit $rc, $got $(head -c 300 "$tmp/$file.err")"
    jd check --json --tests-only "problems/$problem" "$fix/$file.py" >"$tmp/$file.check.json" 2>/dev/null
    rc=$?
    got=$(json "$tmp/$file.check.json" '(d["executed"], d["message"].startswith("compiled; running needs a GPU"))' 2>&1)
    [ $rc -eq 4 ] && [ "$got" = "(False, True)" ] &&
        ok "$file.py compiles for every configuration and case (no GPU here: exit 4)" ||
        bad "$file.py: judged check exit $rc, $got $(json "$tmp/$file.check.json" 'd["message"]' 2>&1 | head -c 300)"
done
got=$(json "$tmp/softmax_tutorial.json" '[c["launches"][0]["grid"][0] for c in d["configs"][0]["cases"] if c["name"] in ("randn M=1823,N=781", "131072x1024")]' 2>&1)
[ "$got" = "[660, 660]" ] &&
    ok "softmax_tutorial.py: the persistent grid is NUM_SM x occupancy from the warmup's n_regs and shared memory (132 x 5 with the fake's 48 registers)" ||
    bad "softmax_tutorial.py grids: $got"
got=$(json "$tmp/matmul_tutorial.json" 'd["configs"][7]["cases"][0]["launches"][0]["constexprs"]' 2>&1)
[ "$got" = "{'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8, 'ACTIVATION': ''}" ] &&
    ok "matmul_tutorial.py: the last config's constexprs, ACTIVATION a str" || bad "matmul constexprs: $got"

# ---- the form's errors, at their lines -------------------------------------------------
printf '# @launch add grid=(1) args=(A, B, C, N)\nimport triton\n\n\ndef solve(A, B, C, N):\n    pass\n' >"$tmp/both.py"
jd plan problems/vector-add "$tmp/both.py" >/dev/null 2>"$tmp/both.err"
rc=$?
[ $rc -eq 1 ] && grep -q "both.py:1:1: this file has a solve(...) launcher (line 5) and directives (line 1)" "$tmp/both.err" &&
    ok "a solve and directives in one file: an error at the directive's line (exit 1)" || bad "both: exit $rc, $(cat "$tmp/both.err")"
printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef add(a, b, c, n):\n    pass\n' >"$tmp/none.py"
jd check --json problems/vector-add "$tmp/none.py" >"$tmp/none.json"
rc=$?
got=$(json "$tmp/none.json" '(d["verdict"], d["diagnostics"][0]["line"], d["message"][:44])' 2>&1)
[ $rc -eq 1 ] && [ "$got" = "('CE', 6, 'kernel \`add\` is defined but nothing launches')" ] &&
    ok "a kernel and neither a solve nor a # @launch: a Compile Error at the kernel's line" || bad "none: exit $rc, $got"

# ---- a machine without Triton ------------------------------------------------------------
BLOCKWISE_PYTHON=$(command -v python3) jd plan problems/vector-add problems/vector-add/solution.py >/dev/null 2>"$tmp/notriton.err"
rc=$?
if python3 -c 'import triton' 2>/dev/null; then
    skip=$((skip + 1))
    echo "skip a machine without Triton: python3 here has triton"
else
    [ $rc -eq 5 ] && grep -qi "triton" "$tmp/notriton.err" &&
        ok "judged plan of a launcher where there is no Triton: exit 5, saying why" ||
        bad "no Triton: exit $rc, $(cat "$tmp/notriton.err")"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
