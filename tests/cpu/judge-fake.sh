#!/usr/bin/env bash
# judge-fake.sh - the whole judging pipeline on a machine without a GPU: real
# sources through real NVRTC in the real compile sandbox, the real runner in
# its real sandbox, on the fake CUDA driver (tests/fake/libcuda.c), which runs
# a C stand-in for each kernel it knows by name. Proves judge.c's steps —
# tests, every @tune configuration, timing with checked outputs, scores,
# learning goals — and every verdict a runner can cause, before a GPU is
# involved. It cannot prove anything about real kernels or the real driver:
# tests/gpu/ does that on the GPU machine.
#   tests/cpu/judge-fake.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
fake=$build/tests/fake
problem=tests/fixtures/fake-gpu/fake-add
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }
# Each judged call has a deadline: a hang fails its check instead of the suite.
jd() { timeout -k 5 120 "$judged" "$@"; }

if [ ! -e "$fake/libcuda.so.1" ] || [ ! -x "$build/bin/blockwise-runner" ]; then
    echo "  skip: needs make all ($fake/libcuda.so.1, $build/bin/blockwise-runner)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
# The runner is exec'd with an empty environment: a wrapper gives it the fake driver.
cat >"$tmp/runner" <<SH
#!/bin/sh
LD_LIBRARY_PATH=$(realpath "$fake") exec $(realpath "$build/bin/blockwise-runner") "\$@"
SH
chmod +x "$tmp/runner"
export BLOCKWISE_RUNNER=$tmp/runner HOME=$tmp
# Triton through the fake triton package (tests/cpu/lib/fake-triton.sh): its
# builds of fake_triton_add / fake_triton_noop run on the fake driver.
. tests/cpu/lib/fake-triton.sh
fake_triton_venv "$tmp/venv" && export BLOCKWISE_PYTHON=$tmp/venv/bin/python3

# Every control gets its declared verdict, executed (not compile-only).
jd validate --json --log-level debug "$problem" >"$tmp/validate.json" 2>"$tmp/validate.err"
rc=$?
if [ $rc -eq 0 ]; then
    ok "validate: every control of fake-add gets its verdict on the fake driver"
else
    bad "validate exit $rc: $(json "$tmp/validate.json" '[(r["file"], r["got"], r["result"]["message"]) for r in d["fake-add"] if not r["ok"]]' 2>&1 | head -c 600) $(head -c 300 "$tmp/validate.err")"
fi
for f in solution.cu tuned.cu wrong/hang.cu wrong/fault.cu solution.py solution_gluon.py starter.py \
    launcher.py launcher_halves.py wrong/launcher_offset.py; do
    got=$(json "$tmp/validate.json" "[r['result']['executed'] for r in d['fake-add'] if r['file']=='$f'][0]" 2>/dev/null)
    [ "$got" = True ] && ok "validate ran $f (executed)" || bad "validate did not execute $f: $got"
done

# A Submit: timed shapes, a score, the learning goals, every step's time.
jd check --json --seed 1234abcd --log-level debug "$problem" "$problem/tuned.cu" \
    >"$tmp/submit.json" 2>"$tmp/submit.err"
rc=$?
[ $rc -eq 0 ] && [ "$(json "$tmp/submit.json" 'd["verdict"]')" = AC ] && ok "tuned.cu Accepted (exit 0)" ||
    bad "tuned.cu: exit $rc, $(head -c 400 "$tmp/submit.json")"
[ "$(json "$tmp/submit.json" 'd["mode"]')" = submit ] && ok "a check without --tests-only is a Submit" ||
    bad "mode: $(json "$tmp/submit.json" 'd.get("mode")')"
[ "$(json "$tmp/submit.json" 'd["seed"]')" = 000000001234abcd ] && ok "--seed is the judging's seed" ||
    bad "seed: $(json "$tmp/submit.json" 'd.get("seed")')"
[ "$(json "$tmp/submit.json" '[b["name"] for b in d["benches"] if b["samples"] >= 10 and b["median_ms"] > 0]')" = "['2^15', '2^16']" ] &&
    ok "both benchmark shapes timed (>= 10 samples each)" ||
    bad "benches: $(json "$tmp/submit.json" 'd["benches"]' | head -c 400)"
[ "$(json "$tmp/submit.json" 'd["gpu"]["calibrated"] and d["score"] > 0')" = True ] &&
    ok "scored against the (fake) GPU's measured limits" ||
    bad "score: $(json "$tmp/submit.json" '(d["score"], d["gpu"])' | head -c 300)"
[ "$(json "$tmp/submit.json" '[(g["name"], g["status"]) for g in d["goals"]]')" = "[('autotune', 'passed'), ('block-128', 'passed'), ('sizes', 'passed')]" ] &&
    ok "learning goals measured: autotune sweep, rebuild with BLOCK=128, shape compare" ||
    bad "goals: $(json "$tmp/submit.json" '[(g["name"], g["status"], g["detail"]) for g in d["goals"]]' | head -c 600)"
# One judging in a fresh `judged check`: its pool's one reference runner is the
# tests', so the timing's reference is computed in line (none idle to compute it ahead).
ahead=$(grep -c "reference computed ahead" "$tmp/submit.err") inline=$(grep -c "reference computed$" "$tmp/submit.err")
reused=$(grep -c "reference reused" "$tmp/submit.err")
[ "$ahead" -eq 0 ] && [ "$inline" -eq 2 ] && [ "$reused" -ge 2 ] &&
    grep -q "reference in line: no idle reference runner" "$tmp/submit.err" &&
    ok "each shape's reference is computed once for every configuration and rebuild ($inline in line: no idle runner to compute them ahead; $reused reused)" ||
    bad "references: $ahead computed ahead, $inline in line, $reused reused"
# In validate (one pool for every control), the controls after the first find
# the reference runner started for them idle, and the timing's reference is ahead.
[ "$(grep -c "reference computed ahead" "$tmp/validate.err")" -ge 2 ] &&
    ok "validate: later Submits compute the timing's reference ahead, while they compile and test" ||
    bad "validate: $(grep -c "reference computed ahead" "$tmp/validate.err") shapes computed ahead, $(grep -c "reference in line" "$tmp/validate.err") judgings in line"
[ "$(json "$tmp/submit.json" 'sorted(d["timing"]["bench_breakdown"])')" = "['gate_ms', 'reference_ms', 'reference_wait_ms', 'runner_ms', 'samples_ms', 'screenings', 'screenings_stood', 'switch_ms', 'timings', 'verify_ms']" ] &&
    [ "$(json "$tmp/submit.json" 'int(d["timing"]["bench_breakdown"]["switch_ms"] > 0)')" = 1 ] &&
    [ "$(json "$tmp/submit.json" '[d["timing"]["bench_breakdown"][k] for k in ("screenings", "timings", "screenings_stood")]')" = "[0, 4, 0]" ] &&
    ok "the timing's breakdown says how long it waited for the reference computed ahead, how long the switches between tuned.cu's 2 configurations took, and its 4 full timings (2 configurations, 2 shapes: no screening)" ||
    bad "bench_breakdown: $(json "$tmp/submit.json" 'd["timing"].get("bench_breakdown")')"
fresh=$(grep -c "configuration [0-9]*: a fresh runner" "$tmp/submit.err")
kept=$(grep -c "configuration [0-9]*: its kept runner" "$tmp/submit.err")
[ "$fresh" -eq 2 ] && [ "$kept" -eq 2 ] &&
    ok "the timing starts one runner per configuration and keeps it for the next shape (2 fresh, 2 kept)" ||
    bad "the timing's runners: $fresh fresh, $kept kept (2 configurations x 2 shapes: 2 and 2)"
# Three configurations or more: each shape screens them all (10 samples, checked), then
# times in full only those within 5% of the fastest screening: never tuned3.cu's slow
# BLOCK=64 (the two fast ones are alike: noise may screen one out too, under ASan).
jd check --json --log-level debug "$problem" "$problem/tuned3.cu" >"$tmp/t3.json" 2>"$tmp/t3.err"
[ "$(json "$tmp/t3.json" '(d["verdict"], [(b["screened"] >= 1, b["samples"] >= 10) for b in d["benches"]])')" = "('AC', [(True, True), (True, True)])" ] &&
    [ "$(grep -c "configuration 1: screened at .* not timed in full" "$tmp/t3.err")" -eq 2 ] &&
    [ "$(grep -c "configuration [0-9]*: a fresh runner" "$tmp/t3.err")" -eq 3 ] &&
    [ "$(json "$tmp/t3.json" '[g["status"] for g in d["goals"] if g["name"] == "autotune"]')" = "['passed']" ] &&
    ok "tuned3.cu: 3 configurations screened on each shape, the slow one not timed in full (3 runners started, kept for every later timing)" ||
    bad "tuned3.cu: $(json "$tmp/t3.json" '(d["verdict"], d["message"], [(b["name"], b.get("screened"), b["samples"]) for b in d["benches"]])') $(grep -c "a fresh runner" "$tmp/t3.err") fresh"
# A kept configuration whose screening already meets the full stop rule (10 samples, RSE within
# 0.5%) is not timed again: its screening is its timing (how many do depends on the machine's noise).
stood=$(grep -oE "its screening meets the stop rule \([0-9]+ samples, RSE [0-9.]+%\)" "$tmp/t3.err")
bad_stood=$(printf '%s\n' "$stood" | sed -E 's/.*\(([0-9]+) samples, RSE ([0-9.]+)%\)/\1 \2/' |
    awk 'NF && ($1 < 10 || $2 > 0.5)')
n_stood=$(printf '%s' "$stood" | grep -c samples)
counts=$(json "$tmp/t3.json" '(lambda bb: (bb["screenings"], bb["timings"] + bb["screenings_stood"] == 6 - sum(b["screened"] for b in d["benches"]), bb["screenings_stood"]))(d["timing"]["bench_breakdown"])')
[ -z "$bad_stood" ] && [ "$counts" = "(6, True, $n_stood)" ] &&
    ok "tuned3.cu: $n_stood kept configurations' screenings stood as their timings, each of 10 samples or more with an RSE within 0.5%; the result counts 6 screenings and the rest timed in full" ||
    bad "tuned3.cu: screenings stood: '$bad_stood' against the rule; (screenings, timings + stood = kept, stood) $counts, $n_stood logged"
# The second configuration's tests compare with the first's expected outputs, kept:
# the reference runs each test case once per judging.
[ "$(json "$tmp/submit.json" 'd["timing"]["tests_breakdown"]["reference_reused"] == len(d["tests"]) > 0 and d["timing"]["tests_breakdown"]["memory_wait_ms"] == 0')" = True ] &&
    ok "tuned.cu's second configuration tested against the first's expected outputs (every case reused; no wait for device memory, judged alone)" ||
    bad "reference_reused: $(json "$tmp/submit.json" '(d["timing"]["tests_breakdown"].get("reference_reused"), len(d["tests"]), d["timing"]["tests_breakdown"].get("memory_wait_ms"))')"
# A configuration wrong where the first is right fails against those kept outputs,
# whole or (every test checked by sample) at their checked elements.
for how in whole sampled; do
    extra=()
    [ $how = sampled ] && extra=(--full-check-max-bytes 1)
    jd check --json --tests-only "${extra[@]}" "$problem" "$problem/wrong/tune_256_wrong.cu" >"$tmp/t256.json" 2>"$tmp/t256.err"
    [ "$(json "$tmp/t256.json" '(d["verdict"], "BLOCK=256" in d["message"], d["timing"]["tests_breakdown"]["reference_reused"] >= 1)')" = "('WA', True, True)" ] &&
        ok "tune_256_wrong.cu ($how): Wrong Answer in BLOCK=256 against the kept expected outputs" ||
        bad "tune_256_wrong.cu ($how): $(json "$tmp/t256.json" '(d["verdict"], d["message"], d["timing"]["tests_breakdown"].get("reference_reused"))')"
done
# A Submit that fails its tests stops the thread computing the timing's checks ahead.
jd check --json --log-level debug "$problem" "$problem/wrong/copy.cu" >"$tmp/wa-submit.json" 2>"$tmp/wa-submit.err"
[ "$(json "$tmp/wa-submit.json" '(d["verdict"], len(d["benches"]))')" = "('WA', 0)" ] &&
    grep -q "the benchmarks' reference ahead stopped" "$tmp/wa-submit.err" &&
    ok "a Submit failing its tests: WA, and the reference ahead stopped, not waited for" ||
    bad "wrong/copy.cu Submit: $(json "$tmp/wa-submit.json" '(d["verdict"], d["message"])'), $(grep -c ahead "$tmp/wa-submit.err") lines on the reference ahead"
rows=$(grep -oE "@rows: [0-9]+ of [0-9]+ rows" "$tmp/submit.err" | sort -u | tr '\n' ' ')
[ "$(grep -cE "@rows: [0-9]+ of (32768|65536) rows" "$tmp/submit.err")" -eq 4 ] &&
    ok "the timed runs are checked against the reference's @rows kernel, only the rows they need ($rows)" ||
    bad "@rows: $(grep -c "@rows" "$tmp/submit.err") lines: $rows"
BLOCKWISE_CHECK_ROWS=1 jd check --json "$problem" "$problem/solution.cu" >"$tmp/rows.json" 2>"$tmp/rows.err"
[ "$(json "$tmp/rows.json" 'd["verdict"]')" = AC ] &&
    ok "BLOCKWISE_CHECK_ROWS=1: the @rows kernel's values are the full reference's" ||
    bad "BLOCKWISE_CHECK_ROWS=1: $(json "$tmp/rows.json" '(d["verdict"], d["message"])' | head -c 400)"
[ "$(json "$tmp/submit.json" 'len(d["tests"]) == 4 and all(t["verdict"] == "AC" for t in d["tests"])')" = True ] &&
    ok "every test of both configurations passed" || bad "tests: $(json "$tmp/submit.json" 'd["tests"]' | head -c 300)"

# A Run (--tests-only): tests, no timing, no goals.
jd check --json --tests-only "$problem" "$problem/solution.cu" >"$tmp/run.json"
rc=$?
[ $rc -eq 0 ] && [ "$(json "$tmp/run.json" '(d["mode"], len(d["benches"]), len(d["goals"]), d["timing"]["bench_ms"])')" = "('run', 0, 0, 0.0)" ] &&
    ok "--tests-only is a Run: no timing, no goals" ||
    bad "--tests-only: exit $rc, $(json "$tmp/run.json" '(d.get("mode"), len(d["benches"]), len(d["goals"]))')"

# A Triton Submit, end to end: one compile request for its three builds (N = 1
# folded, N not divisible by 16, N divisible by 16), each case on its build
# with the two scratch pointers, timed, its goals (the rebuild with BLOCK=128
# recompiles through Triton too).
jd check --json "$problem" "$problem/solution.py" >"$tmp/py.json"
rc=$?
got=$(json "$tmp/py.json" '(d["verdict"], d["executed"], [b["samples"] >= 10 for b in d["benches"]], [(g["name"], g["status"]) for g in d["goals"]])' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "('AC', True, [True, True], [('autotune', 'failed'), ('block-128', 'passed'), ('sizes', 'passed')])" ] &&
    ok "solution.py (Triton): Accepted, both shapes timed, its goals measured (no @tune: autotune fails)" ||
    bad "solution.py: exit $rc, $got"

# A warp-specialised Gluon kernel with maxnreg= (its build has 12 warps, the
# @launch 4: tests/unit/test_triton_program.c checks the block), judged as a
# Triton one: every case on its build.
jd check --json --tests-only "$problem" "$problem/solution_gluon.py" >"$tmp/gluon.json"
rc=$?
got=$(json "$tmp/gluon.json" '(d["verdict"], d["executed"], [t["verdict"] for t in d["tests"]])' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "('AC', True, ['AC', 'AC', 'AC', 'AC'])" ] &&
    ok "solution_gluon.py (Gluon, warp-specialised, maxnreg=168): Accepted" ||
    bad "solution_gluon.py: exit $rc, $got $(json "$tmp/gluon.json" 'd["message"]' | head -c 400)"

# A Triton launcher (solve(...) recorded in the compile sandbox, docs/submission-format.md):
# both @triton.autotune configs built, checked on every test and timed per shape, the autotune
# goal measured from them; views (x[h:]) bound with their element offsets, run on the fake driver.
jd check --json "$problem" "$problem/launcher.py" >"$tmp/launcher.json"
rc=$?
got=$(json "$tmp/launcher.json" '(d["verdict"], d["executed"], len(d["tests"]), [b["samples"] >= 10 for b in d["benches"]], [(g["name"], g["status"]) for g in d["goals"]])' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "('AC', True, 4, [True, True], [('autotune', 'passed'), ('block-128', 'failed'), ('sizes', 'passed')])" ] &&
    ok "launcher.py (solve + @triton.autotune): Accepted, both configs on every test, both shapes timed, the autotune goal passed" ||
    bad "launcher.py: exit $rc, $got $(json "$tmp/launcher.json" 'd["message"]' | head -c 300)"
jd check --json --tests-only "$problem" "$problem/launcher_halves.py" >"$tmp/halves.json"
rc=$?
got=$(json "$tmp/halves.json" '(d["verdict"], [t["verdict"] for t in d["tests"]])' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "('AC', ['AC', 'AC', 'AC', 'AC'])" ] &&
    ok "launcher_halves.py: two launches over x[:h] and x[h:], pointers offset into their buffers: Accepted" ||
    bad "launcher_halves.py: exit $rc, $got"
BLOCKWISE_PYTHON=$BLOCKWISE_PYTHON jd plan "$problem" "$problem/launcher_halves.py" >"$tmp/halves-plan.json"
got=$(json "$tmp/halves-plan.json" '[a.get("offset", 0) for l in d["configs"][0]["cases"][3]["launches"] for a in l["args"] if "buffer" in a]' 2>&1)
[ "$got" = "[0, 0, 0, 2049, 2049, 2049]" ] && ok "judged plan prints a launcher's views with their offsets (N=4099: x[2049:])" ||
    bad "judged plan of launcher_halves.py: $got"
# Triton builds streamed into the tests (judge/worker/triton_program.h): the
# fake triton takes FAKE_COMPILE_MS to build a variant, so the case N=1's build
# (N folded: its own variant) is quick and every other variant takes 4 s. The
# driver compiles them in two processes, in the order the cases need them.
slow_args='args=(x, y, out, N, BLOCK=BLOCK, FAKE_COMPILE_MS=min(N - 1, 1) * 4000)'
for k in add noop; do
    sed -e "s/^def fake_triton_$k(x, y, out, n, BLOCK: tl.constexpr):/def fake_triton_$k(x, y, out, n, BLOCK: tl.constexpr, FAKE_COMPILE_MS: tl.constexpr):/" \
        -e "s/args=(x, y, out, N, BLOCK=BLOCK)/$slow_args/" \
        "$problem/$([ $k = add ] && echo solution || echo starter).py" >"$tmp/slow_$k.py"
done
s0=$(date +%s%N)
jd check --json --tests-only "$problem" "$tmp/slow_noop.py" >"$tmp/slow-wa.json" 2>"$tmp/slow-wa.err"
wall=$((($(date +%s%N) - s0) / 1000000))
got=$(json "$tmp/slow-wa.json" '(d["verdict"], d["timing"]["total_ms"] < 3000, d["timing"]["compile_breakdown"]["streamed"], d["timing"]["compile_breakdown"]["stopped"])' 2>&1)
[ "$got" = "('WA', True, True, True)" ] &&
    ok "a Triton Run failing its first test answers on that test's build ($(json "$tmp/slow-wa.json" 'round(d["timing"]["total_ms"])') ms judging, ${wall} ms for the whole judged check), before the 4 s builds, and stops the compiler" ||
    bad "slow starter: $got $(json "$tmp/slow-wa.json" 'd["message"], d["timing"]' 2>&1 | head -c 600)"
jd check --json --tests-only "$problem" "$tmp/slow_add.py" >"$tmp/slow-ac.json" 2>"$tmp/slow-ac.err"
got=$(json "$tmp/slow-ac.json" '(d["verdict"], d["timing"]["compile_breakdown"]["streamed"], d["timing"]["compile_breakdown"]["first_ms"] < 2500, d["timing"]["compile_ms"] >= 4000, [t["verdict"] for t in d["tests"]])' 2>&1)
[ "$got" = "('AC', True, True, True, ['AC', 'AC', 'AC', 'AC'])" ] &&
    ok "an Accepted Triton Run tests N=1 on its build while the 4 s ones compile (first build $(json "$tmp/slow-ac.json" 'round(d["timing"]["compile_breakdown"]["first_ms"])') ms, compile $(json "$tmp/slow-ac.json" 'round(d["timing"]["compile_ms"])') ms, tests waited $(json "$tmp/slow-ac.json" 'round(d["timing"]["compile_breakdown"]["tests_build_wait_ms"])') ms for builds)" ||
    bad "slow solution: $got $(json "$tmp/slow-ac.json" 'd["message"], d["timing"]' 2>&1 | head -c 600)"

# The same for a launcher (solve(...)): its plans come first, then each build as it
# exists; the case N=1's build is quick, the others take 4 s.
for k in add noop; do
    cat >"$tmp/slow_launcher_$k.py" <<PY
import triton
import triton.language as tl


@triton.jit
def fake_triton_$k(x, y, out, n, BLOCK: tl.constexpr, FAKE_COMPILE_MS: tl.constexpr):
    pass


def solve(x, y, out, N):
    fake_triton_$k[(triton.cdiv(N, 256),)](x, y, out, N, BLOCK=256,
                                          FAKE_COMPILE_MS=0 if N == 1 else 4000)
PY
done
jd check --json --tests-only "$problem" "$tmp/slow_launcher_noop.py" >"$tmp/slow-lwa.json" 2>"$tmp/slow-lwa.err"
got=$(json "$tmp/slow-lwa.json" '(d["verdict"], d["timing"]["total_ms"] < 3000, d["timing"]["compile_breakdown"]["streamed"], d["timing"]["compile_breakdown"]["stopped"])' 2>&1)
[ "$got" = "('WA', True, True, True)" ] &&
    ok "a launcher Run failing its first test answers on that test's build ($(json "$tmp/slow-lwa.json" 'round(d["timing"]["total_ms"])') ms judging), before the 4 s builds, and stops the compiler" ||
    bad "slow launcher starter: $got $(json "$tmp/slow-lwa.json" 'd["message"], d["timing"]' 2>&1 | head -c 600)"
jd check --json --tests-only "$problem" "$tmp/slow_launcher_add.py" >"$tmp/slow-lac.json" 2>"$tmp/slow-lac.err"
got=$(json "$tmp/slow-lac.json" '(d["verdict"], d["timing"]["compile_breakdown"]["streamed"], d["timing"]["compile_breakdown"]["first_ms"] < 2500, d["timing"]["compile_ms"] >= 4000, [t["verdict"] for t in d["tests"]])' 2>&1)
[ "$got" = "('AC', True, True, True, ['AC', 'AC', 'AC', 'AC'])" ] &&
    ok "an Accepted launcher Run tests N=1 on its build while the 4 s ones compile (first build $(json "$tmp/slow-lac.json" 'round(d["timing"]["compile_breakdown"]["first_ms"])') ms, compile $(json "$tmp/slow-lac.json" 'round(d["timing"]["compile_ms"])') ms)" ||
    bad "slow launcher solution: $got $(json "$tmp/slow-lac.json" 'd["message"], d["timing"]' 2>&1 | head -c 600)"

# A launcher's builds cached across judgings (one judged process, one build cache: validate's).
# The problem's Triton solution is launcher.py; an edit of solve alone (its grid written
# another way; its non-constexpr arguments passed as views of the whole tensors) compiles
# nothing, an edit of a kernel compiles every variant again (the key is the module's).
cache=$tmp/cache/fake-add
mkdir -p "$cache"
cp "$problem/reference.cu" "$problem/solution.cu" "$problem/starter.cu" "$problem/statement.md" \
    "$problem/starter.py" "$cache/"
cp "$problem/launcher.py" "$cache/solution.py"
sed "s|grid = lambda meta: (triton.cdiv(N, meta\['BLOCK'\]),)|grid = lambda meta: ((N + meta['BLOCK'] - 1) // meta['BLOCK'],)|" \
    "$problem/launcher.py" >"$cache/launch_grid.py"
sed 's|fake_triton_add\[grid\](x, y, out, N)|fake_triton_add[grid](x[:N], y[:N], out[:N], N)|' \
    "$problem/launcher.py" >"$cache/launch_args.py"
sed 's|    mask = offs < n|    mask = (offs < n) \& (offs >= 0)|' "$problem/launcher.py" >"$cache/kernel_edit.py"
python3 - "$problem/problem.json" "$cache/problem.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["controls"] = {"solution.cu": "Accepted", "starter.cu": "Wrong Answer", "starter.py": "Wrong Answer",
                 "solution.py": "Accepted", "launch_grid.py": "Accepted", "launch_args.py": "Accepted",
                 "kernel_edit.py": "Accepted"}
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
if cmp -s "$problem/launcher.py" "$cache/launch_grid.py" || cmp -s "$problem/launcher.py" "$cache/launch_args.py" ||
    cmp -s "$problem/launcher.py" "$cache/kernel_edit.py"; then
    bad "the launcher edits did not apply (launcher.py changed?)"
else
    jd validate --json "$cache" >"$tmp/cache.json" 2>"$tmp/cache.err"
    rc=$?
    cb='[(r["file"], r["result"]["verdict"], r["result"]["timing"]["compile_breakdown"]["builds_cached"], r["result"]["timing"]["compile_breakdown"]["builds_compiled"]) for r in d["fake-add"] if r["file"].endswith(".py") and r["file"] != "starter.py"]'
    got=$(json "$tmp/cache.json" "$cb" 2>&1)
    [ $rc -eq 0 ] && [ "$got" = "[('solution.py', 'AC', 0, 4), ('launch_grid.py', 'AC', 4, 0), ('launch_args.py', 'AC', 4, 0), ('kernel_edit.py', 'AC', 0, 4)]" ] &&
        ok "a launcher's builds are cached: solve's grid or arguments edited compile 0 of 4 builds (per configuration the tests' and the benchmarks'), a kernel edited compiles them again ($got)" ||
        bad "launcher cache: validate exit $rc, $got $(head -c 300 "$tmp/cache.err")"
fi

# What a Run compiles, and a Submit: launcher.py's two autotune configurations each take one
# build for every test (the tests' integers are not specialised) and one for the benchmark
# shapes (2^15 and 2^16, divisible by 16, as Triton would build them at home).
builds='(d["verdict"], d["timing"]["compile_breakdown"]["builds_compiled"] + d["timing"]["compile_breakdown"]["builds_cached"])'
jd check --json --tests-only "$problem" "$problem/launcher.py" >"$tmp/run-builds.json" 2>&1
jd check --json "$problem" "$problem/launcher.py" >"$tmp/submit-builds.json" 2>&1
got="$(json "$tmp/run-builds.json" "$builds" 2>&1) $(json "$tmp/submit-builds.json" "$builds" 2>&1)"
[ "$got" = "('AC', 2) ('AC', 4)" ] &&
    ok "a Triton Run compiles the tests' builds only (2), a Submit the benchmark shapes' too (4)" ||
    bad "Run and Submit builds: $got"

# The runner's findings, each with its words.
check_verdict() { # FILE VERDICT WORDS
    jd check --json --tests-only "$problem" "$problem/$1" >"$tmp/v.json"
    local v m
    v=$(json "$tmp/v.json" 'd["verdict"]')
    m=$(json "$tmp/v.json" 'd["message"]')
    if [ "$v" = "$2" ] && grep -q -- "$3" <<<"$m"; then ok "$1: $v, \"$m\""; else bad "$1: $v, \"$m\" (wanted $2, \"$3\")"; fi
}
check_verdict wrong/tail_overrun.cu MV "wrote past the end of out"
check_verdict wrong/write_input.cu IM "the input x was changed"
check_verdict wrong/fault.cu RE "CUDA_ERROR_ILLEGAL_ADDRESS in kernel fault"
check_verdict wrong/hang.cu TLE "did not finish within 1000 ms"
check_verdict wrong/partial.cu WA "test N=1: out was never written (its element still holds the judge's 0xFF poison)"
check_verdict wrong/copy.cu WA "test N=1: 1 element of out differs from the reference"
check_verdict wrong/no_kernel.cu CE "no __global__ function named 'vector_add'"
check_verdict starter.py WA "test N=1: out was never written"
check_verdict wrong/launcher_offset.py MV "test N=1: wrote past the end of out"
check_verdict wrong/launcher_reads.py CE "x.item() reads tensor values"
[ "$(json "$tmp/v.json" '[(x["line"], x["message"][:28]) for x in d.get("diagnostics", [])][:1]')" = "[(12, 'error: x.item() reads tensor')]" ] &&
    ok "wrong/launcher_reads.py: the Compile Error is at the learner's line (12)" ||
    bad "wrong/launcher_reads.py diags: $(json "$tmp/v.json" 'd.get("diagnostics")' | head -c 300)"
# The first failure in case order is the verdict, though a case's comparison
# overlaps the next case's run (judge/worker/tests.c): N=129 is wrong, N=4099 (run
# during N=129's comparison) modifies its input and is never reported.
check_verdict wrong/late_failures.cu WA "test N=129: 1 element of out differs"
[ "$(json "$tmp/v.json" '[t["verdict"] for t in d["tests"]]')" = "['AC', 'AC', 'WA', 'NJ']" ] &&
    ok "late_failures.cu: the case after the failing one is not judged" ||
    bad "late_failures.cu: tests $(json "$tmp/v.json" '[(t["name"], t["verdict"]) for t in d["tests"]]')"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
