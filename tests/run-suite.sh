#!/usr/bin/env bash
# run-suite.sh - runs one suite of Blockwise's tests and prints one summary line.
#
#   tests/run-suite.sh cpu BUILD [ASAN_BUILD]   unit tests, the same under ASan, shell suites
#   tests/run-suite.sh gpu BUILD                the GPU suite (on the H200 machine)
#
# Every test binary and script ends its output with "N passed, N failed, N skipped";
# this script runs each, keeps its full log under BUILD/test-logs/, prints the
# logs of the ones that failed, and ends with the sum in the same format.
#
# Every program runs under a wall-clock deadline (the table below), so a test
# that hangs becomes a failure that names itself instead of a stuck run. A
# unit-test binary is told its deadline (BW_TEST_DEADLINE_S, tests/test_main.c)
# and reports the test case that was running when it passed; DEADLINE_GRACE_S
# later `timeout` sends SIGTERM to the program's whole process group, and
# DEADLINE_KILL_S after that SIGKILL. A timed-out program counts as a failure,
# named, with its log tail.
set -u
suite=$1
build=$2
asan=${3:-}
logs=$build/test-logs
mkdir -p "$logs/asan"

# ---- deadlines: the one place they are set ---------------------------------
# Seconds per program, by the name it is logged under. Measured durations (in
# the comments: two runs of `make test` on the 2-core development machine
# while other engineers' builds and tests ran on it) are wall-clock seconds;
# each deadline is about 5 times the slower figure or more, so only a hang
# reaches it. ASan builds get ASAN_DEADLINE_FACTOR times the deadline.
# BW_DEADLINE_S, when set, replaces every deadline, and BW_DEADLINE_GRACE_S
# and BW_DEADLINE_KILL_S the two waits after it (tests/cpu/deadlines.sh uses
# them to check this script in seconds; also handy to shorten a debugging run).
declare -A DEADLINE_S=(
    [test_compile]=300         # 16, 30 s (ASan 11, 36 s): NVRTC in the sandbox, every flag
    [test_triton_compile]=400  # 82 s (load average 900): ~45 sandboxed Pythons, a 100 MB print
    [test_runner]=300          # 10, 23 s: the runner against the fake libcuda
    [test_worker]=300          # 6, 13 s: two workers against a real server, a lease expiry
    [problems-compile]=1800    # 181, 358 s: every problem's solutions through NVRTC
    [server]=400               # 38, 80 s
    [hardening]=600            # 65 s alone: slow clients, a killed judged, 200 sign-ins under load
    [browser]=300              # 26, 58 s
    [judge-fake]=400           # 48 s alone, 48 s: the pipeline on the fake CUDA driver
    [profile-fake]=180         # 5.5 s alone: Profiles on the fake driver and the fake CUPTI
    [cupti-host]=120           # 2 s alone: g++ on cupti_host.h, the real CUPTI host library, the runner opening it (no GPU)
    [worker-fake]=300          # 25 s alone: server + judged --slots 2 on the fake driver
    [cli]=300                  # 24, 42 s: the learner's CLI against server + judged (fake driver)
    [bench-smoke]=600          # 114 s alone: make bench's latency suite on the fake driver
    [dropout-philox]=300       # 18, 39 s
    [tritonsim]=900            # 156 s alone (load average over 1000): interpreter + 3 fixtures
    [step8-tolerance]=300      # 9, 32 s
    [server_judged]=300        # 11, 29 s
    [store-dump]=120           # ~4 s: export and import, SQLite -> PostgreSQL -> SQLite
    [scale]=600                # two servers, three workers, 1,000 submissions, a SIGKILL (PostgreSQL)
    [tolerance-oracle]=300     # 14, 24 s
    [judged-cli]=300           # 20, 18 s
    [triton-launcher]=300      # 25 s alone: the tutorials' launchers recorded and compiled (fake triton)
    [tolerance-steps2-4]=300   # 11, 16 s
    [cuda_host_equiv]=180      # 7, 14 s
    [rows-reference]=600       # 18 s alone: two attention references in the CUDA simulator
)
DEFAULT_DEADLINE_S=180         # every other CPU program: 8 s at most (asan/test_directive)
# The GPU suite (make gpu-test) must finish in one 10-minute call of the GPU
# machine: its deadlines are hang guards, and validate runs tests only there
# (the timed validate of every problem is make gpu-validate, with its own).
declare -A GPU_DEADLINE_S=(
    [validate]=360     # every control of 30 problems, tests only (about 200 s before the pool)
    [two-workers]=240  # 154 s with the scripts before it (issue 10's measurement)
    [oracle]=180
    [triton]=240       # the real Triton: the unit tests and hostile corpus, PTX vs the launcher
    [triton-launcher]=420 # the real Triton: launchers recorded, n_regs, the tutorials Accepted (unmeasured)
    [rows]=240         # flash-attention's Submit with the full reference too (~35 s), unmeasured
    [huge]=240         # six Runs of vector-add and relu past 2^31 (CUDA), unmeasured: a hang guard
    [profile]=420      # 4 Profiles (15 s each at most), 2 Submits, 2 hostile Profiles and 2 after: unmeasured
)
GPU_DEFAULT_DEADLINE_S=120
ASAN_DEADLINE_FACTOR=2
DEADLINE_GRACE_S=${BW_DEADLINE_GRACE_S:-15} # after a unit binary's own deadline, before SIGTERM
DEADLINE_KILL_S=${BW_DEADLINE_KILL_S:-10}   # after SIGTERM, before SIGKILL

# deadline_of NAME: the deadline of the program logged as NAME, in seconds.
deadline_of() {
    local name=$1 base=${1#asan/} d
    base=${base%@postgresql}
    if [ -n "${BW_DEADLINE_S:-}" ]; then
        echo "$BW_DEADLINE_S"
        return
    fi
    if [ "$suite" = gpu ]; then
        d=${GPU_DEADLINE_S[$base]:-$GPU_DEFAULT_DEADLINE_S}
    else
        d=${DEADLINE_S[$base]:-$DEFAULT_DEADLINE_S}
    fi
    [[ "$name" == asan/* ]] && d=$((d * ASAN_DEADLINE_FACTOR))
    echo "$d"
}

# The program running now (a `timeout` process): ^C or a TERM to this script
# ends it too, instead of leaving it to run out its deadline.
current=
trap '[ -n "$current" ] && kill -TERM "$current" 2>/dev/null; echo "interrupted" >&2; exit 130' INT TERM

total_pass=0 total_fail=0 total_skip=0
failed_names=()

# run NAME COMMAND... : runs one test program, adds its summary line to the totals.
run() {
    local name=$1
    shift
    local log=$logs/$name.log
    local start=$SECONDS
    local deadline timed_out=
    deadline=$(deadline_of "$name")
    BW_TEST_DEADLINE_S=$deadline timeout --kill-after="$DEADLINE_KILL_S" \
        "$((deadline + DEADLINE_GRACE_S))" "$@" >"$log" 2>&1 </dev/null &
    current=$!
    # (bash's "Killed" notice for a SIGKILLed program is said below in words)
    { wait "$current"; } 2>/dev/null
    local rc=$?
    current=
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        timed_out=1
        echo "  $name: TIMED OUT: still running $((deadline + DEADLINE_GRACE_S)) s after it" \
            "started (deadline ${deadline} s, tests/run-suite.sh);" \
            "$([ "$rc" -eq 137 ] && echo "killed (SIGKILL)" || echo "stopped (SIGTERM)")"
    fi
    local line p=0 f=1 s=0
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
        f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
        s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
        s=${s:-0}
        # A program stopped at its deadline after its summary line (a shell
        # suite's child left running) has one failure more than it said.
        [ -n "$timed_out" ] && f=$((f + 1))
    elif [ -z "$timed_out" ]; then
        # A program that died before its summary counts as one failure.
        echo "  $name: no summary line (exit $rc); see $log"
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "  $name: exit status $rc with no failed test; counted as a failure"
    fi
    line="$p passed, $f failed, $s skipped"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + s))
    printf '%-40s %s  (%ds)\n' "$name" "$line" $((SECONDS - start))
    if [ "$f" -ne 0 ]; then
        failed_names+=("$name${timed_out:+ (timed out)}")
        sed 's/^/    | /' "$log" | grep -v '^    | ok ' | tail -n 60
        [ -n "$timed_out" ] && echo "    (log tail of $name, timed out: $log)"
    fi
}

# The server suites run once per backend: the embedded SQLite file, then a
# throw-away PostgreSQL cluster (tests/lib/postgres.sh) started here for the
# whole run; each suite makes its own database in it. Without PostgreSQL's
# binaries the PostgreSQL runs are skipped, each saying why.
PG_SUITES=(server hardening server_judged)
pg_dir=
start_postgres() {
    # Only for a run that has the suites that use it (not deadlines.sh's fake build).
    [ -e tests/cpu/server.sh ] || [ -e "$build/tests/test_server" ] || return 0
    . "$(dirname "${BASH_SOURCE[0]}")/lib/postgres.sh"
    pg_dir=$(mktemp -d /tmp/bw-pg.XXXXXX)
    if BW_TEST_PG=$(pg_cluster_start "$pg_dir"); then
        export BW_TEST_PG
        echo "PostgreSQL: a test cluster in $pg_dir ($("$(pg_bindir)/postgres" --version))"
    else
        echo "PostgreSQL: no test cluster: ${PG_WHY:-}"
        rm -rf "$pg_dir"
        pg_dir=
        unset BW_TEST_PG
    fi
}
stop_postgres() {
    [ -n "$pg_dir" ] && pg_cluster_stop "$pg_dir"
    pg_dir=
    return 0
}

case "$suite" in
cpu)
    start_postgres
    trap 'stop_postgres; [ -n "$current" ] && kill -TERM "$current" 2>/dev/null; echo "interrupted" >&2; exit 130' INT TERM
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        run "$(basename "$t")" "$t"
    done
    if [ -n "$asan" ]; then
        for t in "$asan"/tests/test_*; do
            [ -x "$t" ] || continue
            # The sandbox and NVRTC tests fork children that ASan's leak checker
            # cannot follow usefully; leaks are checked in-process only.
            ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
                run "asan/$(basename "$t")" "$t"
        done
    fi
    for s in tests/cpu/*.sh; do
        [ -x "$s" ] || continue
        name=$(basename "$s" .sh)
        run "$name" "$s" "$build"
        if [[ " ${PG_SUITES[*]} " == *" $name "* ]]; then
            if [ -n "${BW_TEST_PG:-}" ]; then
                BW_TEST_BACKEND=postgresql run "$name@postgresql" "$s" "$build"
            else
                echo "  $name@postgresql: skipped: no PostgreSQL test cluster (above)"
                total_skip=$((total_skip + 1))
            fi
        fi
    done
    stop_postgres
    ;;
gpu)
    # GPU_SKIP="validate ...": suites left out of this call (a GPU session that
    # runs them another way, e.g. make gpu-validate), each counted as skipped.
    for s in tests/gpu/*.sh; do
        [ -x "$s" ] || continue
        name=$(basename "$s" .sh)
        if [[ " ${GPU_SKIP:-} " == *" $name "* ]]; then
            echo "  $name: skipped (GPU_SKIP)"
            total_skip=$((total_skip + 1))
            continue
        fi
        run "$name" "$s" "$build"
    done
    # On the GPU machine's call, 8 files of $OUT come back: the logs stay, the rest is archived.
    [ -n "${OUT:-}" ] && scripts/pack-out.sh "$OUT" '*.log' '*.txt'
    ;;
*)
    echo "usage: $0 cpu|gpu BUILD [ASAN_BUILD]" >&2
    exit 2
    ;;
esac

if [ ${#failed_names[@]} -gt 0 ]; then
    list=${failed_names[0]}
    for n in "${failed_names[@]:1}"; do list+=", $n"; done
    echo "failed: $list"
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
