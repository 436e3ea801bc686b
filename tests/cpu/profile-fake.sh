#!/usr/bin/env bash
# profile-fake.sh - Profile mode end to end on a machine without a GPU: real
# sources through real NVRTC, the real runner in its real sandbox on the fake
# CUDA driver (tests/fake/libcuda.c), opening the FAKE CUPTI
# (tests/fake/libcupti.c, whose counters are made up from the bytes each
# launch moved) exactly as it opens the real one. Proves the judge's half:
# the case chosen, the runner's profile request, the summary's JSON as the
# contract (docs/profile.md) has it and its table, every reason a profile is
# not available, and a hostile plan under Profile contained. Nothing here
# measures a GPU: tests/gpu/profile.sh does.
#   tests/cpu/profile-fake.sh BUILD
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

if [ ! -e "$fake/libcuda.so.1" ] || [ ! -e "$fake/libcupti.so" ] ||
    [ ! -x "$build/bin/blockwise-runner" ]; then
    echo "  skip: needs make all ($fake/libcuda.so.1, $fake/libcupti.so, $build/bin/blockwise-runner)"
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
unset BLOCKWISE_CUPTI
cupti=$(realpath "$fake/libcupti.so")

# A Profile of the solution: Accepted, and the contract's profile.
jd check --json --profile --cupti "$cupti" --log-level debug "$problem" "$problem/solution.cu" \
    >"$tmp/p.json" 2>"$tmp/p.err"
rc=$?
[ $rc -eq 0 ] && [ "$(json "$tmp/p.json" '(d["verdict"], d["mode"], d["executed"], len(d["benches"]))')" = "('AC', 'profile', True, 0)" ] &&
    ok "a Profile is judged as a Run (Accepted, mode profile, no timing), exit 0" ||
    bad "Profile of solution.cu: exit $rc, $(head -c 400 "$tmp/p.json") $(tail -n 3 "$tmp/p.err")"
got=$(json "$tmp/p.json" 'sorted(d["profile"])' 2>&1)
[ "$got" = "['available', 'case', 'kernels', 'profiler', 'raw', 'reading', 'wall_ms']" ] &&
    ok "the profile has the contract's fields" || bad "profile fields: $got"
got=$(json "$tmp/p.json" '(d["profile"]["available"], d["profile"]["case"], d["profile"]["profiler"])' 2>&1)
[ "$got" = "(True, '2^16', 'CUPTI 13.0 range profiler (fake-libcupti), kernel replay, 7 passes')" ] &&
    ok "the largest benchmark case by bytes (2^16) profiled by the (fake) CUPTI, its passes named" ||
    bad "profile head: $got"
keys="['block', 'dram_bytes', 'dram_pct', 'duration_ms', 'fma_pct', 'grid', 'kernel', 'l1_hit_pct', 'l1_pct', 'l2_hit_pct', 'l2_pct', 'launch', 'limiter', 'model_bytes', 'occupancy_achieved_pct', 'occupancy_limiter', 'occupancy_theoretical_pct', 'reading', 'sm_pct', 'stalls', 'tensor_pct']"
got=$(json "$tmp/p.json" '[sorted(k) for k in d["profile"]["kernels"]]' 2>&1)
[ "$got" = "[$keys]" ] && ok "one kernel launch summarised with every field of the contract" ||
    bad "kernel fields: $got"
got=$(json "$tmp/p.json" '(lambda k: (k["kernel"], k["launch"], k["grid"], k["block"], k["limiter"], k["dram_bytes"], k["model_bytes"], k["occupancy_theoretical_pct"], k["occupancy_limiter"], k["dram_pct"] > 60, len(k["stalls"]), k["stalls"][0]["reason"].startswith("long scoreboard"), k["tensor_pct"]))(d["profile"]["kernels"][0])' 2>&1)
[ "$got" = "('vector_add', 0, [256, 1, 1], [256, 1, 1], 'memory', 786432, 786432, 100.0, 'none', True, 3, True, 0.0)" ] &&
    ok "vector_add: memory-bound, its bytes against the model (12 N = 786432), occupancy 100% (12 registers), top stalls" ||
    bad "vector_add summary: $got"
got=$(json "$tmp/p.json" '(d["profile"]["reading"], d["profile"]["kernels"][0]["reading"] == d["profile"]["reading"])' 2>&1)
[[ "$got" == "('memory-bound at 80% of DRAM bandwidth"*", True)" ]] &&
    ok "the plan's reading: $(json "$tmp/p.json" 'd["profile"]["reading"]')" || bad "reading: $got"
got=$(json "$tmp/p.json" '(lambda r: (len(r), "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed" in r, "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active" in r, "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio" in r, r.get("driver__occupancy_theoretical_pct")))(d["profile"]["raw"]["vector_add#0"])' 2>&1)
[ "$got" = "(24, True, False, False, 100.0)" ] &&
    ok "raw: the 23 metrics the (fake) chip schedules and the driver's occupancy (100%, as the judge's), DRAM under its second name, the wgmma pipe absent, the metric its configuration refused dropped" ||
    bad "raw: $got"
[ "$(json "$tmp/p.json" 'd["timing"]["profile_ms"] > 0 and d["profile"]["wall_ms"] > 0')" = True ] &&
    ok "what profiling cost is in wall_ms and timing.profile_ms" || bad "wall_ms: $(json "$tmp/p.json" 'd["profile"]["wall_ms"]')"

# The same as a table, beside the tests.
jd check --profile --cupti "$cupti" "$problem" "$problem/solution.cu" >"$tmp/p.txt" 2>&1
grep -q "^profile   2^16, CUPTI 13.0 range profiler (fake-libcupti), kernel replay, 7 passes" "$tmp/p.txt" &&
    grep -qE "^  vector_add \(0\) +0\.[0-9]+ +80\.0 " "$tmp/p.txt" && grep -q "^    stalls: long scoreboard" "$tmp/p.txt" &&
    grep -q "^reading   memory-bound at 80% of DRAM bandwidth" "$tmp/p.txt" &&
    ok "judged check --profile prints the profile as a table" ||
    bad "table: $(cat "$tmp/p.txt")"

# Progress: the web app's and the CLI's "profiling" stage, then the profile's end.
jd check --json --progress --profile --cupti "$cupti" "$problem" "$problem/solution.cu" >/dev/null 2>"$tmp/progress.err"
grep -q "^  profiling the plan on 2^16 under the GPU's profiler (CUPTI, kernel replay)$" "$tmp/progress.err" &&
    grep -qE "^  profile 2\^16: done \([0-9]+ ms\)$" "$tmp/progress.err" &&
    ok "progress events: profiling (with its message), then profile" || bad "progress: $(cat "$tmp/progress.err")"

# Where the library comes from: $BLOCKWISE_CUPTI too.
BLOCKWISE_CUPTI=$cupti jd check --json --profile "$problem" "$problem/solution.cu" >"$tmp/env.json" 2>/dev/null
[ "$(json "$tmp/env.json" 'd["profile"]["available"]')" = True ] &&
    ok "\$BLOCKWISE_CUPTI names the library" || bad "BLOCKWISE_CUPTI: $(json "$tmp/env.json" 'd.get("profile")' | head -c 300)"

# Every reason there is no profile is one sentence, and the verdict stays the tests'.
jd check --json --profile --cupti "$(realpath "$fake/libcupti-denied.so")" "$problem" "$problem/solution.cu" \
    >"$tmp/denied.json" 2>/dev/null
got=$(json "$tmp/denied.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"].startswith("the GPU driver restricts its performance counters to administrators (NVreg_RestrictProfilingToAdminUsers=1)"))' 2>&1)
[ "$got" = "('AC', False, True)" ] &&
    ok "a driver that restricts counters to administrators: not available, with that sentence" ||
    bad "denied: $got"
jd check --json --profile --cupti "$tmp/no-such-libcupti.so" "$problem" "$problem/solution.cu" >"$tmp/none.json" 2>/dev/null
got=$(json "$tmp/none.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"])' 2>&1)
[[ "$got" == "('AC', False, 'the CUPTI library named ($tmp/no-such-libcupti.so) cannot be read: No such file or directory')" ]] &&
    ok "a named library that is not there: not available, saying so" || bad "missing library: $got"
printf 'not a library\n' >"$tmp/libcupti.so.13"
jd check --json --profile --cupti "$tmp/libcupti.so.13" "$problem" "$problem/solution.cu" >"$tmp/junk.json" 2>/dev/null
got=$(json "$tmp/junk.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"])' 2>&1)
[[ "$got" == "('AC', False, 'cannot load CUPTI: $tmp/libcupti.so.13: "* ]] &&
    ok "a file that is not a library: the runner cannot load it, and says so" || bad "junk library: $got"

# A Wrong Answer ran to its end: it is profiled. A crash did not: it is not.
jd check --json --profile --cupti "$cupti" "$problem" "$problem/wrong/copy.cu" >"$tmp/wa.json" 2>/dev/null
got=$(json "$tmp/wa.json" '(d["verdict"], d["profile"]["available"], [k["kernel"] for k in d["profile"]["kernels"]])' 2>&1)
[ "$got" = "('WA', True, ['copy_f32'])" ] && ok "a Wrong Answer is profiled (its plan ran to its end)" ||
    bad "WA profile: $got"
jd check --json --profile --cupti "$cupti" "$problem" "$problem/wrong/fault.cu" >"$tmp/re.json" 2>/dev/null
got=$(json "$tmp/re.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"])' 2>&1)
[ "$got" = "('RE', False, 'the tests did not run to their end (Runtime Error): a plan that fails is not profiled')" ] &&
    ok "a Runtime Error is not profiled, and the profile says why" || bad "RE profile: $got"
jd check --json --profile --cupti "$cupti" "$problem" "$problem/wrong/no_kernel.cu" >"$tmp/ce.json" 2>/dev/null
got=$(json "$tmp/ce.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"])' 2>&1)
[ "$got" = "('CE', False, 'the source did not compile: there is nothing to profile')" ] &&
    ok "a Compile Error: nothing to profile" || bad "CE profile: $got"

# A hostile plan met only under Profile (correct on the tests, a fault on the profiled shape):
# contained as under a Submit: the verdict is the tests', the profile says what the plan did,
# the runner that faulted is gone, and the next Profile works.
hostile=tests/fixtures/fake-gpu/profile/fault_mid.cu
jd check --json --profile --cupti "$cupti" "$problem" "$hostile" >"$tmp/h.json" 2>"$tmp/h.err"
rc=$?
got=$(json "$tmp/h.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"])' 2>&1)
[ $rc -eq 0 ] && [ "$got" = "('AC', False, 'the plan failed on 2^16 under the profiler (Runtime Error): CUDA_ERROR_ILLEGAL_ADDRESS in kernel vector_add_fault_mid')" ] &&
    ok "a plan that faults only on the profiled shape: contained, the fault named, the verdict the tests'" ||
    bad "hostile under Profile: exit $rc, $got $(tail -n 3 "$tmp/h.err")"
jd check --json --profile --cupti "$cupti" "$problem" "$problem/solution.cu" >"$tmp/after.json" 2>/dev/null
[ "$(json "$tmp/after.json" '(d["verdict"], d["profile"]["available"])')" = "('AC', True)" ] &&
    ok "the next Profile after the hostile one is whole" || bad "after hostile: $(head -c 300 "$tmp/after.json")"
# Submit of the same source: the same fault is a Runtime Error there (the timing meets it).
jd check --json "$problem" "$hostile" >"$tmp/hs.json" 2>/dev/null
[ "$(json "$tmp/hs.json" 'd["verdict"]')" = RE ] &&
    ok "the same plan under Submit: Runtime Error on the benchmark (what Profile contained)" ||
    bad "hostile Submit: $(json "$tmp/hs.json" '(d["verdict"], d["message"])')"

# A Triton Profile: the kernel named as the learner wrote it, not as the runner loaded it.
. tests/cpu/lib/fake-triton.sh
if fake_triton_venv "$tmp/venv"; then
    BLOCKWISE_PYTHON=$tmp/venv/bin/python3 jd check --json --profile --cupti "$cupti" "$problem" \
        "$problem/solution.py" >"$tmp/py.json" 2>"$tmp/py.err"
    got=$(json "$tmp/py.json" '(d["verdict"], d["profile"]["available"], [(k["kernel"], k["block"], k["limiter"]) for k in d["profile"]["kernels"]], list(d["profile"]["raw"]))' 2>&1)
    [ "$got" = "('AC', True, [('fake_triton_add', [128, 1, 1], 'memory')], ['fake_triton_add#0'])" ] &&
        ok "a Triton Profile: fake_triton_add (block of its 4 warps), memory-bound" ||
        bad "Triton profile: $got $(tail -n 3 "$tmp/py.err")"
else
    skip=$((skip + 1))
    echo "skip Triton Profile: no venv for the fake triton"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
