#!/usr/bin/env bash
# profile.sh - Profile mode on the GPU (docs/profile.md), issue 29's done-when:
#   - vector-add's, softmax's and sgemm's solutions and sgemm's naive.cu each get a profile
#     (CUPTI's range profiler in the sandboxed runner) within PROFILE_MAX_S (15 s) of wall time;
#   - vector-add's and softmax's DRAM throughput under the profiler (DRAM bytes / duration)
#     agrees with their Submit's bandwidth on the same shape within PROFILE_MAX_DIFF_PCT (10%);
#     sgemm's is printed, not held to it (its Submit counts the model's bytes, the profile what
#     DRAM moved: the two are the same only for a kernel that moves the model's bytes);
#   - the naive sgemm's limiter differs from the tiled one's;
#   - the judge's theoretical occupancy agrees with the driver's (driver__occupancy_theoretical_pct,
#     cuOccupancyMaxActiveBlocksPerMultiprocessor in the runner: CUPTI has no such metric);
#   - each hostile kernel of tests/hostile/profile/ (correct on the tests, misbehaving on the
#     profiled shape) is contained: the verdict stays the tests', the profile names what the plan
#     did, and vector-add's solution profiled right after has its figures.
# Ends with a table of what each profile said. Needs a driver that lets non-administrators
# count (NVreg_RestrictProfilingToAdminUsers=0): the runner is sandboxed in a user namespace.
#   tests/gpu/profile.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
max_s=${PROFILE_MAX_S:-15}
max_diff=${PROFILE_MAX_DIFF_PCT:-10}
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
rows=()

# What the driver says about counters, for a profile that is not available.
admin_only=$(grep -i "RmProfilingAdminOnly" /proc/driver/nvidia/params 2>/dev/null | tr -d ' ')
echo "driver: ${admin_only:-RmProfilingAdminOnly not readable}; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"

# profile NAME DIR FILE: a Profile into $T/NAME.json, its wall time in $wall_ms.
profile() {
    local s0
    s0=$(date +%s%N)
    timeout 300 "$judged" check --json --profile --log-level debug "$2" "$3" >"$T/$1.json" 2>"$T/$1.err"
    wall_ms=$((($(date +%s%N) - s0) / 1000000))
}

# The figure of the launch that took the most GPU time, as Python.
TOP='(lambda ks: max(ks, key=lambda k: k["duration_ms"] or 0))(d["profile"]["kernels"])'

for spec in vector-add:solution.cu softmax:solution.cu sgemm:solution.cu sgemm:naive.cu; do
    p=${spec%%:*} f=${spec#*:}
    name=$p-${f%.cu}
    profile "$name" "problems/$p" "problems/$p/$f"
    verdict=$(field "$T/$name.json" 'd["verdict"]')
    avail=$(field "$T/$name.json" 'd["profile"]["available"]')
    if [ "$avail" != True ]; then
        bad "$p/$f: verdict $verdict, no profile: $(field "$T/$name.json" 'd["profile"]["why"]' || tail -n 3 "$T/$name.err")"
        continue
    fi
    [ "$name" = vector-add-solution ] &&
        echo "CUPTI: $(grep -o 'with /[^ ]*' "$T/$name.err" | head -1 | cut -c6-); $(field "$T/$name.json" 'd["profile"]["profiler"]'); metrics read: $(field "$T/$name.json" 'len(list(d["profile"]["raw"].values())[0])') (the others were unknown to the GPU: null)"
    if [ "$verdict" = AC ] && [ "$wall_ms" -le $((max_s * 1000)) ]; then
        ok "$p/$f: Accepted and profiled in $((wall_ms / 1000)).$((wall_ms % 1000 / 100)) s (profile step $(field "$T/$name.json" 'round(d["timing"]["profile_ms"])') ms)"
    else
        bad "$p/$f: verdict $verdict, ${wall_ms} ms of wall time (at most ${max_s} s)"
    fi
    # Our theoretical occupancy against the driver's, launch by launch.
    occ=$(field "$T/$name.json" '[(k["kernel"], k["occupancy_theoretical_pct"], d["profile"]["raw"]["%s#%d" % (k["kernel"], k["launch"])].get("driver__occupancy_theoretical_pct")) for k in d["profile"]["kernels"]]')
    if field "$T/$name.json" 'all(k["occupancy_theoretical_pct"] is not None and abs(k["occupancy_theoretical_pct"] - (d["profile"]["raw"]["%s#%d" % (k["kernel"], k["launch"])].get("driver__occupancy_theoretical_pct") or -100)) < 1 for k in d["profile"]["kernels"])' | grep -q True; then
        ok "$p/$f: theoretical occupancy agrees with the driver's: $occ"
    else
        bad "$p/$f: theoretical occupancy (ours, the driver's): $occ"
    fi
    case=$(field "$T/$name.json" 'd["profile"]["case"]')
    gbps=$(field "$T/$name.json" "(lambda ks: sum(k['dram_bytes'] or 0 for k in ks) / sum(k['duration_ms'] or 0 for k in ks) / 1e6)(d['profile']['kernels'])")
    submit_gbps=- diff=-
    if [ "$f" = solution.cu ] && [ "$p" != sgemm ]; then
        timeout 300 "$judged" check --json "problems/$p" "problems/$p/$f" >"$T/$name-submit.json" 2>/dev/null
        submit_gbps=$(field "$T/$name-submit.json" "[b['gbps'] for b in d['benches'] if b['name'] == '$case'][0]")
        diff=$(python3 -c "print(round(100 * abs($gbps - $submit_gbps) / $submit_gbps, 1))" 2>/dev/null)
        if [ -n "$diff" ] && python3 -c "import sys; sys.exit(0 if $diff <= $max_diff else 1)"; then
            ok "$p/$f on $case: DRAM under the profiler $(printf '%.0f' "$gbps") GB/s, the Submit's $(printf '%.0f' "$submit_gbps") GB/s: ${diff}% apart"
        else
            bad "$p/$f on $case: DRAM under the profiler ${gbps} GB/s, the Submit's ${submit_gbps} GB/s: ${diff:-?}% apart (at most ${max_diff}%)"
        fi
    fi
    rows+=("$(field "$T/$name.json" "'%-24s %6.1f %-12s %-8s %6s %6s %6s %8.0f %8s %6s  %s' % ('$p/$f', $wall_ms / 1000, d['profile']['case'], ${TOP}['limiter'], ${TOP}['dram_pct'], ${TOP}['l1_pct'], ${TOP}['fma_pct'], $gbps, '$submit_gbps'[:8], '$diff', d['profile']['reading'])")")
done

# The naive sgemm is told from the tiled one by its limiter.
tiled=$(field "$T/sgemm-solution.json" "${TOP}['limiter']")
naive=$(field "$T/sgemm-naive.json" "${TOP}['limiter']")
if [ -n "$tiled" ] && [ -n "$naive" ] && [ "$tiled" != "$naive" ]; then
    ok "sgemm: the tiled solution is $tiled-bound, the naive one $naive-bound"
else
    bad "sgemm: the tiled solution's limiter ($tiled) and the naive one's ($naive) do not differ: $(field "$T/sgemm-solution.json" 'd["profile"]["reading"]') / $(field "$T/sgemm-naive.json" 'd["profile"]["reading"]')"
fi

# Hostile plans under Profile, each followed by a profile that must be whole.
for f in tests/hostile/profile/*.cu; do
    name=hostile-$(basename "$f" .cu)
    want=$(sed -n '1s|^// expect: ||p' "$f")
    profile "$name" problems/vector-add "$f"
    got=$(field "$T/$name.json" '(d["verdict"], d["profile"]["available"], d["profile"]["why"])')
    profile "$name-after" problems/vector-add problems/vector-add/solution.cu
    after=$(field "$T/$name-after.json" '(d["verdict"], d["profile"]["available"])')
    if [[ "$got" == "('AC', False, 'the plan failed on N=2^28 under the profiler ($want): "* ]] &&
        [ "$after" = "('AC', True)" ]; then
        ok "$(basename "$f"): contained ($got); vector-add's solution profiled afterwards: $after"
    else
        bad "$(basename "$f"): expected Accepted with the profile naming $want: got $got; afterwards: $after"
    fi
done

echo
printf '%-24s %6s %-12s %-8s %6s %6s %6s %8s %8s %6s  %s\n' "profile of" "wall s" "case" "limiter" "DRAM%" "L1%" "FMA%" "DRAM GB/s" "Submit" "diff%" "reading"
for r in "${rows[@]}"; do echo "$r"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
