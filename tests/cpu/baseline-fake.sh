#!/usr/bin/env bash
# baseline-fake.sh - PyTorch's time beside a Submit (judge/worker/baseline.h), on a machine
# without PyTorch or a GPU: the real driver (judge/worker/baseline_driver.py, embedded in
# judged) runs a problem's baseline.py on a fake torch (tests/fake/torch: lists, CUDA events
# that say 0.25 ms), the runner on the fake CUDA driver. Proves the conversation (the request,
# the GPU gate asked for and given, the samples, the judge's stop rule), the cache (written,
# reused, measured again for another PyTorch), the result's JSON (pytorch_ms, pytorch_speedup,
# "pytorch"), validate's check against the reference, a baseline.py that fails, and a worker
# without PyTorch saying so. tests/gpu/baseline.sh proves the timing itself on the H200.
#   tests/cpu/baseline-fake.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
fake=$build/tests/fake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print(repr(($2)))" 2>&1; }
jd() { timeout -k 5 120 "$judged" "$@"; }

if [ ! -e "$fake/libcuda.so.1" ] || [ ! -x "$build/bin/blockwise-runner" ]; then
    echo "  skip: needs make all ($fake/libcuda.so.1, $build/bin/blockwise-runner)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
cat >"$tmp/runner" <<SH
#!/bin/sh
LD_LIBRARY_PATH=$(realpath "$fake") exec $(realpath "$build/bin/blockwise-runner") "\$@"
SH
chmod +x "$tmp/runner"
export BLOCKWISE_RUNNER=$tmp/runner HOME=$tmp

# A venv whose torch is the fake one (as tests/cpu/lib/fake-triton.sh makes Triton's).
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pyexe=$(python3 -c 'import sys; print(sys.executable)')
mkdir -p "$tmp/venv/bin" "$tmp/venv/lib/python$pyver/site-packages"
ln -sfn "$(realpath tests/fake/torch)" "$tmp/venv/lib/python$pyver/site-packages/torch"
ln -sf "$pyexe" "$tmp/venv/bin/python3"
printf 'home = %s\ninclude-system-site-packages = false\n' "$(dirname "$pyexe")" >"$tmp/venv/pyvenv.cfg"
export BLOCKWISE_PYTHON=$tmp/venv/bin/python3

# The fake-add problem with a baseline.py.
cp -r tests/fixtures/fake-gpu/fake-add "$tmp/fake-add"
P=$tmp/fake-add
cat >"$P/baseline.py" <<'PY'
def baseline(x, y, **_):
    return x + y
PY

# 1. judged baseline: every shape timed, the judge's stop rule, the figures cached.
jd baseline --json "$P" >"$tmp/m.json" 2>"$tmp/m.err"
got=$(json "$tmp/m.json" '[(s["name"], s["median_ms"], s["samples"], s["stop"]) for s in d["fake-add"]["shapes"]]')
if [ "$got" = "[('2^15', 0.25, 10, 'rse'), ('2^16', 0.25, 10, 'rse')]" ]; then
    ok "judged baseline times every shape the judge's way (10 samples, stopped by the RSE rule)"
else
    bad "judged baseline: $got $(tail -c 600 "$tmp/m.err")"
fi
got=$(json "$tmp/m.json" 'd["fake-add"]["method"]["l2_flush_bytes"], d["fake-add"]["method"]["sets"], d["fake-add"]["torch"]')
[ "$got" = "(268435456, 2, '0.0+fake')" ] && ok "the figures say the judge's constants and PyTorch's version" || bad "method: $got"
n=$(ls "$HOME/.cache/blockwise/baselines/" 2>/dev/null | wc -l)
[ "$n" = 1 ] && ok "the figures are cached (one file per problem version and GPU)" || bad "cache: $n files"
[ ! -e "$P/__pycache__" ] && ok "importing baseline.py leaves nothing in the problem's directory" || bad "$P/__pycache__ was written"

# 2. check --pytorch: x PyTorch beside each shape, from the cache.
echo 9 >"$HOME/fake-torch-ms"
jd check --pytorch --json "$P" "$P/solution.cu" >"$tmp/c.json" 2>"$tmp/c.err"
got=$(json "$tmp/c.json" '[(b["pytorch_ms"], b["pytorch_speedup"] > 0) for b in d["benches"]], d["pytorch"]["measured"], d["pytorch"]["speedup"] > 0, d["pytorch"]["torch"], bool(d["pytorch"]["method"])')
if [ "$got" = "([(0.25, True), (0.25, True)], True, True, '0.0+fake', True)" ]; then
    ok "check --pytorch: pytorch_ms and pytorch_speedup per shape, from the cache (not 9 ms)"
else
    bad "check --pytorch: $got $(tail -c 600 "$tmp/c.err")"
fi
jd check --pytorch "$P" "$P/solution.cu" >"$tmp/c.txt" 2>&1
grep -q "x PyTorch" "$tmp/c.txt" && grep -q "^pytorch   PyTorch 0.0+fake" "$tmp/c.txt" &&
    ok "the text report has an x PyTorch column and says how it was measured" || bad "text: $(head -c 800 "$tmp/c.txt")"

# 3. Another PyTorch: the cache does not serve it; measured again.
rm -rf "$tmp/venv/lib/python$pyver/site-packages/torch"
mkdir -p "$tmp/torch2" && cp -r tests/fake/torch "$tmp/torch2/torch"
sed -i 's/^__version__ = .*/__version__ = "0.1+fake"/' "$tmp/torch2/torch/__init__.py"
ln -sfn "$tmp/torch2/torch" "$tmp/venv/lib/python$pyver/site-packages/torch"
echo 0.5 >"$HOME/fake-torch-ms"
jd check --pytorch --json "$P" "$P/solution.cu" >"$tmp/c2.json" 2>"$tmp/c2.err"
got=$(json "$tmp/c2.json" '[b["pytorch_ms"] for b in d["benches"]], d["pytorch"]["torch"]')
[ "$got" = "([0.5, 0.5], '0.1+fake')" ] && ok "another PyTorch version is measured again" || bad "re-measure: $got $(tail -c 400 "$tmp/c2.err")"
rm -f "$HOME/fake-torch-ms"

# 4. validate's check: baseline.py against the reference on the small test cases.
jd baseline --check "$P" >"$tmp/k.txt" 2>&1
grep -q "^ok   fake-add: baseline.py matches the reference" "$tmp/k.txt" &&
    ok "judged baseline --check: baseline.py matches the reference" || bad "--check: $(head -c 800 "$tmp/k.txt")"
jd validate --pytorch --tests-only "$P" >"$tmp/v.txt" 2>&1
grep -q "^  ok   baseline.py *PyTorch matches the reference" "$tmp/v.txt" &&
    ok "judged validate --pytorch checks baseline.py after the controls" || bad "validate --pytorch: $(tail -c 800 "$tmp/v.txt")"
cat >"$P/baseline.py" <<'PY'
def baseline(x, y, **_):
    return x + y + y
PY
jd baseline --check "$P" >"$tmp/k2.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "differs from the reference" "$tmp/k2.txt" && grep -q "elements differ" "$tmp/k2.txt" &&
    ok "a baseline.py that computes something else differs, with the mismatches" || bad "--check wrong (rc $rc): $(head -c 800 "$tmp/k2.txt")"

# 5. A baseline.py that raises: each shape says why, and the result says PyTorch has no time.
cat >"$P/baseline.py" <<'PY'
def baseline(x, y, **_):
    raise RuntimeError("CUDA out of memory (on purpose)")
PY
jd baseline --json "$P" >"$tmp/e.json" 2>"$tmp/e.err"
rc=$?
got=$(json "$tmp/e.json" '[s.get("error") for s in d["fake-add"]["shapes"]]')
[ $rc -eq 1 ] && [[ "$got" == *"RuntimeError: CUDA out of memory (on purpose)"* ]] &&
    ok "a baseline.py that raises: each shape has its error (exit 1)" || bad "raise (rc $rc): $got"
jd check --pytorch --json "$P" "$P/solution.cu" >"$tmp/c3.json" 2>/dev/null
got=$(json "$tmp/c3.json" '[b["pytorch_ms"] for b in d["benches"]], d["pytorch"]["measured"], d["pytorch"]["reason"]')
[[ "$got" == "([None, None], False, \"PyTorch's baseline has no time on 2^15: RuntimeError: CUDA out of memory (on purpose)\")" ]] &&
    ok "the result says which shape has no PyTorch time and why" || bad "reason: $got"

# 6. No PyTorch: the result says so instead of a time.
BLOCKWISE_PYTHON=$pyexe jd check --pytorch --json "$P" "$P/solution.cu" >"$tmp/n.json" 2>/dev/null
got=$(json "$tmp/n.json" 'd["pytorch"]["measured"], d["pytorch"]["reason"][:46], d["benches"][0]["pytorch_ms"]')
[ "$got" = "(False, 'PyTorch is not installed on this worker (impor', None)" ] &&
    ok "without PyTorch the result says \"PyTorch is not installed on this worker\"" || bad "no torch: $got"
jd check --json "$P" "$P/solution.cu" >"$tmp/p.json" 2>/dev/null
got=$(json "$tmp/p.json" 'd["pytorch"], d["benches"][0]["pytorch_ms"]')
[ "$got" = "(None, None)" ] && ok "without --pytorch the result has pytorch null" || bad "plain check: $got"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
