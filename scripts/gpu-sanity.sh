set -u
b=build; o=$OUT; s=$SECONDS
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv > $o/facts.txt 2>&1
t() { local n=$1; shift; local t0=$SECONDS; timeout -k 5 "$@" > $o/$n.log 2>&1; echo "$n rc=$? $((SECONDS-t0))s $(grep -E '^[0-9]+ passed' $o/$n.log | tail -1)" | tee -a $o/summary.txt; }
t runner 200 tests/gpu/runner.sh $b
t hostile 200 tests/gpu/hostile.sh $b
t validate3 300 $b/bin/judged validate --tests-only problems/softmax problems/sgemm problems/layernorm-forward problems/flash-attention
t va_sol_cu 150 $b/bin/judged check --tests-only --progress problems/vector-add problems/vector-add/solution.cu
t va_int32_cu 150 $b/bin/judged check --tests-only problems/vector-add problems/vector-add/wrong/int32_offsets.cu
t va_sol_py 150 $b/bin/judged check --tests-only problems/vector-add problems/vector-add/solution.py
grep -E "verdict|past 2\^31|total|tests " $o/va_*.log | head -30
tail -5 $o/validate3.log
echo total $((SECONDS-s))s
cd $o && tar czf logs.tgz *.log && rm -f *.log
