#!/usr/bin/env bash
# judged-cli.sh - `judged check` and `judged validate` end to end on a machine
# without a GPU: real NVRTC in the real sandbox, real problem directories.
#   tests/cpu/judged-cli.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
# When this machine has a GPU the verdicts differ; this suite is for the CPU path.
if [ -e /dev/nvidia0 ]; then
    echo "  skip: a GPU is present (tests/gpu covers this machine)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
export HOME=$tmp # no cached GPU figures

# A directive error: Compile Error at its line and column, exit 1.
cat >"$tmp/bad-directive.cu" <<'CU'
// @launch vector_add grid=(cdiv(N, 256) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, long long n) {}
CU
"$judged" check --json problems/vector-add "$tmp/bad-directive.cu" >"$tmp/out.json"
rc=$?
[ $rc -eq 1 ] && [ "$(json "$tmp/out.json" 'd["verdict"]')" = CE ] &&
    [ "$(json "$tmp/out.json" 'd["diagnostics"][0]["line"]')" = 1 ] && ok "directive error is CE at line 1 (exit $rc)" ||
    bad "directive error: exit $rc, $(head -c 300 "$tmp/out.json")"

# A C++ error: Compile Error with NVRTC's diagnostic at the learner's line.
cat >"$tmp/syntax.cu" <<'CU'
// @launch vector_add grid=(cdiv(N, 256)) block=(256) args=(A, B, C, N)
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, long long n)
{
    c[0] = a[0] + undeclared;
}
CU
"$judged" check --json problems/vector-add "$tmp/syntax.cu" >"$tmp/out.json"
rc=$?
[ $rc -eq 1 ] && [ "$(json "$tmp/out.json" 'd["diagnostics"][0]["line"]')" = 4 ] &&
    json "$tmp/out.json" 'd["diagnostics"][0]["message"]' | grep -q undeclared && ok "NVRTC error mapped to line 4" ||
    bad "syntax error: exit $rc, $(head -c 400 "$tmp/out.json")"

# An int parameter where the problem passes int64: Compile Error before any GPU.
"$judged" check --json problems/vector-add tests/hostile/run/wrong-param-width.cu >"$tmp/out.json"
rc=$?
[ $rc -eq 1 ] && json "$tmp/out.json" 'd["message"]' | grep -q "4 bytes" && ok "parameter width mismatch found from PTX" ||
    bad "param width: exit $rc, $(json "$tmp/out.json" 'd["message"]')"

# A missing extern "C": a clear message.
sed 's/extern "C" //' problems/vector-add/solution.cu >"$tmp/mangled.cu"
"$judged" check --json problems/vector-add "$tmp/mangled.cu" >"$tmp/out.json"
json "$tmp/out.json" 'd["message"]' | grep -q 'extern "C"' && ok "missing extern \"C\" explained" ||
    bad "mangled: $(json "$tmp/out.json" 'd["message"]')"

# A correct solution compiles; without a GPU: exit 4 and a clear message.
"$judged" check problems/vector-add problems/vector-add/solution.cu >"$tmp/out.txt"
rc=$?
[ $rc -eq 4 ] && grep -q "running needs a GPU" "$tmp/out.txt" && grep -q "registers" "$tmp/out.txt" &&
    ok "solution compiles, resources shown, execution needs a GPU (exit 4)" || bad "solution: exit $rc: $(cat "$tmp/out.txt")"

# Bad input: a missing problem directory, a missing file, bad options: exit 2 with a message.
"$judged" check problems/nope "$tmp/syntax.cu" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "problems/nope" "$tmp/err.txt" && ok "missing problem directory (exit 2)" || bad "missing problem: exit $rc"
"$judged" check problems/vector-add "$tmp/none.cu" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "none.cu" "$tmp/err.txt" && ok "missing source file (exit 2)" || bad "missing file: exit $rc"
"$judged" check --seed zz problems/vector-add "$tmp/syntax.cu" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "hexadecimal" "$tmp/err.txt" && ok "bad --seed (exit 2)" || bad "bad seed: exit $rc"
mkfifo "$tmp/fifo.cu"
timeout 10 "$judged" check problems/vector-add "$tmp/fifo.cu" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "not a regular file" "$tmp/err.txt" && ok "a FIFO as the source is refused (exit 2)" || bad "fifo: exit $rc"

# validate without a GPU compiles every control of every problem: exit 4. With
# no Triton here (a Python without it), the Triton controls are skipped, said why.
BLOCKWISE_PYTHON=$(command -v python3) "$judged" validate problems/vector-add problems/softmax \
    problems/sgemm >"$tmp/val.txt"
rc=$?
[ $rc -eq 4 ] && ! grep -q FAIL "$tmp/val.txt" && ok "validate compiles every control (exit 4)" || bad "validate: exit $rc: $(grep FAIL "$tmp/val.txt")"
# Issue 28: a control that was only compiled is never "ok" (its verdict was not
# checked): it says so, and the last line counts it apart.
n=$(grep -c '^  comp .*\.cu .* compiled, not run (no GPU here)$' "$tmp/val.txt")
total=$(grep -cE '^  (comp|skip|ok  |FAIL) ' "$tmp/val.txt")
s=$(grep -c '^  skip ' "$tmp/val.txt")
! grep -q '^  ok ' "$tmp/val.txt" && [ "$n" -ge 20 ] &&
    tail -n 1 "$tmp/val.txt" | grep -qx "$total controls: 0 got their verdict, 0 did not, $n compiled, not run (no GPU here), $s skipped, 0 could not be judged" &&
    ok "validate without a GPU says 'compiled, not run', never ok, and counts them apart ($n)" ||
    bad "validate's compile-only lines or summary: $(grep -m2 -E '^  (ok|comp) ' "$tmp/val.txt"); $(tail -n 1 "$tmp/val.txt")"
grep -q "^  skip solution.py .*skipped: no Triton here (.*triton" "$tmp/val.txt" &&
    ok "validate skips the Triton controls where there is no Triton, and says why" ||
    bad "no skip line for solution.py: $(grep solution.py "$tmp/val.txt")"

BLOCKWISE_PYTHON=$(command -v python3) "$judged" check problems/vector-add \
    problems/vector-add/solution.py >/dev/null 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 5 ] && grep -q "cannot judge Triton here: .*triton" "$tmp/err.txt" &&
    ok "a .py check where there is no Triton says why (exit 5)" || bad "no Triton: exit $rc, $(cat "$tmp/err.txt")"

# With Triton (the fake package of tests/fake/triton in a venv: its cubins never
# run), a .py submission goes through the judge's Triton path: every variant in
# one sandboxed compile, then "running needs a GPU" here.
. tests/cpu/lib/fake-triton.sh
venv=$tmp/venv
fake_triton_venv "$venv"
export BLOCKWISE_PYTHON=$venv/bin/python3
"$judged" validate --language triton problems/vector-add problems/softmax >"$tmp/val-py.txt" 2>&1
rc=$?
n=$(grep -c '^  comp .*\.py .*compiled, not run' "$tmp/val-py.txt")
[ $rc -eq 4 ] && [ "$n" -ge 10 ] && ! grep -q '\.cu ' "$tmp/val-py.txt" &&
    ok "validate --language triton compiles only the Triton controls ($n of them, exit 4)" ||
    bad "validate --language triton: exit $rc, $n compiled: $(head -c 600 "$tmp/val-py.txt")"
"$judged" check --json problems/vector-add problems/vector-add/solution.py >"$tmp/py.json"
rc=$?
got=$(json "$tmp/py.json" '(d["verdict"], d["executed"], "needs a GPU" in d["message"])')
[ $rc -eq 4 ] && [ "$got" = "('NJ', False, True)" ] &&
    ok "judged check FILE.py compiles it through Triton (exit 4 without a GPU)" || bad "check .py: exit $rc, $got"
printf '# @launch add_kernel grid=(1) num_warps=4 args=(A, B, C, N, BLOCK=1024)\nimport triton\n\n@triton.jit\ndef add_kernel(x, y, out, N, BLOCK):\n    pass\n' >"$tmp/ce.py"
"$judged" check --json problems/vector-add "$tmp/ce.py" >"$tmp/ce.json"
rc=$?
got=$(json "$tmp/ce.json" '(d["verdict"], [(g["line"], "constexpr" in g["message"]) for g in d["diagnostics"]][:1])')
[ $rc -eq 1 ] && [ "$got" = "('CE', [(1, True)])" ] &&
    ok "a Triton binding error is a Compile Error at the @launch line (BLOCK is not tl.constexpr)" || bad "ce.py: exit $rc, $got, $(head -c 400 "$tmp/ce.json")"
# Issue 28: a module that raises while it is imported failed every @tune
# configuration and was reported as "the source does not compile with
# BLOCK=512"; it is the module's error, at its line.
cat >"$tmp/raise.py" <<'PY'
# @tune BLOCK=(512, 1024)
# @launch add_kernel grid=(cdiv(N, BLOCK)) num_warps=4 args=(A, B, C, N, BLOCK=BLOCK)
import triton
import triton.language as tl

raise ValueError("no such configuration")


@triton.jit
def add_kernel(x, y, out, N, BLOCK: tl.constexpr):
    pass
PY
sed -e 's/^raise ValueError.*/SPLIT = undefined_name + 1/' "$tmp/raise.py" >"$tmp/name.py"
for f in raise name; do
    "$judged" check --json problems/vector-add "$tmp/$f.py" >"$tmp/$f.json"
    rc=$?
    got=$(json "$tmp/$f.json" 'd["verdict"] + " " + d["message"]')
    want=$([ $f = raise ] && echo "line 6: ValueError: no such configuration" ||
        echo "line 6: NameError: name 'undefined_name' is not defined")
    [ $rc -eq 1 ] && [ "$got" = "CE $want" ] &&
        ok "an import-time $([ $f = raise ] && echo ValueError || echo NameError) is the module's error at its line, not a configuration's" ||
        bad "$f.py: exit $rc, $got"
done
"$judged" check problems/vector-add "$tmp/add.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 2 ] && grep -q "FILE.cu (CUDA) or FILE.py (Triton)" "$tmp/err.txt" && ok "a file that is neither .cu nor .py is refused (exit 2)" || bad "add.txt: exit $rc, $(cat "$tmp/err.txt")"
unset BLOCKWISE_PYTHON

# judged plan: what the judge would launch, per configuration and case (Triton here).
cat >"$tmp/add.py" <<'PY'
# @tune BLOCK=(512, 1024)
# @launch add_kernel grid=(cdiv(N, BLOCK)) num_warps=8 args=(A, B, C, N, BLOCK=BLOCK, R=next_pow2(N))
import triton
PY
"$judged" plan problems/vector-add "$tmp/add.py" >"$tmp/plan.json"
rc=$?
got=$(json "$tmp/plan.json" '(d["language"], len(d["configs"]), d["configs"][1]["name"], [(l["num_warps"], l["constexprs"], [a.get("type") for a in l["args"]]) for l in d["configs"][1]["cases"][2]["launches"]], d["configs"][1]["cases"][2]["sizes"])' 2>&1)
want="('triton', 2, 'BLOCK=1024', [(8, {'BLOCK': 1024, 'R': $(json "$tmp/plan.json" 'd["configs"][1]["cases"][2]["launches"][0]["constexprs"]["R"]')}, [None, None, None, 'i32'])], $(json "$tmp/plan.json" 'd["configs"][1]["cases"][2]["sizes"]'))"
[ $rc -eq 0 ] && [ "$got" = "$want" ] && ok "judged plan: Triton launches with num_warps, constexprs and i32 sizes" || bad "plan: exit $rc, $got"
printf '# @launch add_kernel grid=(1) block=(256) args=(A)\n' >"$tmp/bad.py"
"$judged" plan problems/vector-add "$tmp/bad.py" 2>"$tmp/err.txt" >/dev/null
rc=$?
[ $rc -eq 1 ] && grep -q "bad.py:1:31: block= in a Triton @launch" "$tmp/err.txt" && ok "judged plan reports directive errors at their line (exit 1)" || bad "plan errors: exit $rc, $(cat "$tmp/err.txt")"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
