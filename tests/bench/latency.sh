#!/usr/bin/env bash
# latency.sh - what a learner feels (make bench): the real blockwise-server on
# loopback with one judged worker on GPU 0, learners posting over HTTP
# (tests/bench/latency.py measures). Run once per job-slot count, so the
# table compares them in the same run, and the default (BW_WORKER_SLOTS) can
# be chosen by measurement.
#   tests/bench/latency.sh BUILD [--quick] [--skip-solutions] [--slots "1 2 4"]
#                          [--budget S] [--triton-budget S] [--problems DIR --ok P/F --wa P/F]
#                          [--only PARTS --solutions P,P --triton-solution F] (latency.py's)
# (the Triton parts, within --triton-budget seconds, run in the first pass only)
# (--skip-solutions: no Submit of every problem's solution, the longest part;
# the first slot count's pass has them, the others compare bursts.)
# --budget S: the first pass runs within S seconds; a later one starts only
# while at least BW_LATENCY_PASS_S (100) of them are left; each pass's lines
# are printed when it ends.
# Logs and latency-slots*.json go to $OUT (or BUILD/bench). TRITON_SPARES=N: the worker's
# warm Triton compilers (judged --triton-spares; default 3 a slot).
set -u
build=${1:-build}
shift
slots_list="1 2 4"
budget=100000
extra=()
while [ $# -gt 0 ]; do
    case $1 in
    --slots) slots_list=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --quick | --skip-solutions) extra+=("$1"); shift ;;
    --problems | --ok | --wa | --only | --solutions | --triton-budget | --triton-solution)
        extra+=("$1" "$2")
        shift 2
        ;;
    *) echo "latency.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
problems=problems
for ((i = 0; i < ${#extra[@]}; i++)); do [ "${extra[$i]}" = --problems ] && problems=${extra[$((i + 1))]}; done
out=${OUT:-$build/bench}
mkdir -p "$out"
T=$(mktemp -d /tmp/bw-latency.XXXXXX)
PORT=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-): no outgoing connection holds it
BASE=http://127.0.0.1:$PORT
cat >"$T/server.conf" <<CONF
port = $PORT
database = $T/db
problems = $problems
web = ""
pwhash_ops = 1
pwhash_mem_kib = 8192
quota_in_flight = 100
# The bench measures the judge, not the quotas: one learner Submits every
# problem's solution and the precision series (over the default 30 an hour).
quota_run = 100000
quota_submit = 100000
# Every learner of the bursts signs up and connects from 127.0.0.1.
signup_address_limit = 0
connections_per_address = 0
CONF
SERVER= JUDGED=
cleanup() {
    [ -n "$JUDGED" ] && kill "$JUDGED" 2>/dev/null
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
"$build/bin/blockwise-server" -c "$T/server.conf" create-worker bench --token-file "$T/w.token" \
    >>"$out/latency-server.log" 2>&1
"$build/bin/blockwise-server" -c "$T/server.conf" >>"$out/latency-server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -s "$BASE/api/health" >/dev/null && break; sleep 0.05; done
deadline=$((SECONDS + budget))
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "machine: ${gpu:-no GPU (the fake driver?)}, $(nproc) CPUs"
: >"$out/latency-table.txt"
for s in $slots_list; do
    left=$((deadline - SECONDS))
    # the first pass runs with whatever the budget gives it (latency.py's --budget)
    need=${BW_LATENCY_PASS_S:-100}
    [ "$s" = "${slots_list%% *}" ] && need=15
    if [ "$left" -lt "$need" ]; then
        echo "slots=$s: skipped, $left s left of the budget" | tee -a "$out/latency-table.txt"
        continue
    fi
    HOME=$T "$build/bin/judged" --server "$BASE" --token-file "$T/w.token" --gpu 0 --slots "$s" \
        --cache "$T/cache" ${TRITON_SPARES:+--triton-spares "$TRITON_SPARES"} \
        >>"$out/latency-judged-slots$s.log" 2>&1 &
    JUDGED=$!
    for _ in $(seq 600); do grep -q registered "$out/latency-judged-slots$s.log" && break; sleep 0.1; done
    mkdir -p "$T/s$s"
    # every problem's Submit once (with the first slot count): the rest compare bursts
    once=()
    [ "$s" != "${slots_list%% *}" ] && once=(--skip-solutions --skip-triton)
    timeout -k 5 "$left" python3 tests/bench/latency.py "$BASE" "$T/s$s" --label "slots=$s" \
        --budget $((left - 10)) "${extra[@]}" "${once[@]}" \
        >"$T/table" 2>>"$out/latency-errors.log" ||
        echo "slots=$s: latency.py failed (see latency-errors.log)" >>"$T/table"
    tee -a "$out/latency-table.txt" <"$T/table"
    cp "$T/s$s/latency.json" "$out/latency-slots$s.json" 2>/dev/null
    kill "$JUDGED" 2>/dev/null
    wait "$JUDGED" 2>/dev/null
    JUDGED=
done
